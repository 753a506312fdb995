// The whole session's token and cost totals (the detail panel's "session" row), counted in slices:
// at 500,000 entries one pass over every entry (and the garbage it left to collect) was a 100+ ms
// task after the open. A count goes on from the last one of the same tree when the tree only grew
// (a streamed part, a live append), adding in file order from where it stopped, so the sums are
// exactly those of one pass from the first entry.

import type { TreeNode } from '@canopy/protocol';
import type { ViewTree } from '@canopy/session-core';

export interface SessionUsage {
  tokens: number;
  cost: number;
  /** Entries that carry usage numbers: every model call (replies, usage entries, tools' own, summaries). */
  withUsage: number;
}

interface Counted {
  version: number;
  size: number;
  usage: SessionUsage;
}

const counted = new WeakMap<ViewTree, Counted>();

/** Entries counted between two looks at the caller's clock. */
const ENTRIES_PER_CHECK = 4096;

/** A count of `tree` as it is now: its result, or the job that makes it a slice at a time. */
export interface UsageCount {
  /** The totals of the tree as it is now, once counted; null before. */
  result(): SessionUsage | null;
  /** The totals last counted for this tree (maybe older), to show while counting. */
  latest(): SessionUsage | null;
  /** Counts until `shouldYield()` says stop; true once over (counted, or the tree changed meanwhile). */
  step(shouldYield: () => boolean): boolean;
}

export function countSessionUsage(tree: ViewTree): UsageCount {
  const version = tree.version;
  const size = tree.size;
  const last = counted.get(tree);
  const grewOnly =
    last !== undefined && size >= last.size && tree.entriesChangedSince(last.version)?.length === 0;
  let at = grewOnly ? last.size : 0;
  let { tokens, cost, withUsage } = grewOnly ? last.usage : { tokens: 0, cost: 0, withUsage: 0 };
  const done = () => {
    const now = counted.get(tree);
    return now !== undefined && now.version === version && now.size === size ? now.usage : null;
  };
  return {
    result: done,
    latest: () => counted.get(tree)?.usage ?? null,
    step(shouldYield) {
      if (done() !== null || tree.version !== version) return true;
      const start = at;
      for (; at < size; at++) {
        if ((at - start) % ENTRIES_PER_CHECK === 0 && at > start && shouldYield()) return false;
        // The tree holds the nodes as the server sent them, usage included.
        const u = (tree.entryAt(at) as TreeNode).usage;
        if (!u) continue;
        tokens += u.totalTokens > 0 ? u.totalTokens : u.input + u.output + u.cacheRead + u.cacheWrite;
        cost += u.cost;
        withUsage++;
      }
      counted.set(tree, { version, size, usage: { tokens, cost, withUsage } });
      return true;
    },
  };
}
