// Pure helpers of the compare view's stats (docs/branches.md#the-compare-view): which lane cost more,
// in words, and a lane's wall time.

import type { CompareResponse } from '@canopy/protocol';
import { formatCost, formatTokens } from './format';

type Rollup = CompareResponse['a']['rollup'];
type Side = 'a' | 'b';

/** A lane's wall time (ancestor to its last entry) for people: seconds, minutes or hours. */
export function wallTime(ms: number | null): string {
  if (ms === null) return '—';
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** Which lane cost more, in words (by cost when either recorded one, else by tokens). */
export function costVerdict(a: Rollup, b: Rollup): { more: Side | null; text: string } {
  const byCost = a.usage.cost > 0 || b.usage.cost > 0;
  const value = (lane: Rollup) => (byCost ? lane.usage.cost : lane.usage.totalTokens);
  const [va, vb] = [value(a), value(b)];
  if (va === vb)
    return { more: null, text: byCost ? 'Both lanes cost the same.' : 'Both lanes used the same tokens.' };
  const more: Side = va > vb ? 'a' : 'b';
  const difference = Math.abs(va - vb);
  const amount = byCost ? formatCost(difference) : `${formatTokens(difference)} tokens`;
  return {
    more,
    text: `Lane ${more.toUpperCase()} cost ${amount} more${byCost ? '' : ' (no cost recorded)'}.`,
  };
}
