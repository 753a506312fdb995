// Token and cost totals of one branch (root → node), from the skeleton's usage numbers (every entry
// that used a model: replies, and pi 1.x's usage entries, tools' own calls, summaries), so they need
// no round trip. Iterative walk up the parent chain.

import type { UsageNumbers } from '@canopy/session-core';

/** An entry's token and cost numbers, as the tree's nodes carry them (session-core's `usageNumbersOf`). */
export type UsageLike = UsageNumbers;

export interface BranchTotals extends UsageLike {
  entries: number;
  /** Entries that carry usage: model calls (replies, usage entries, tools' own calls, summaries). */
  withUsage: number;
}

export function emptyTotals(): BranchTotals {
  return {
    entries: 0,
    withUsage: 0,
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: 0,
  };
}

export function addUsage(totals: BranchTotals, usage: UsageLike | undefined): void {
  totals.entries += 1;
  if (!usage) return;
  totals.withUsage += 1;
  totals.input += usage.input;
  totals.output += usage.output;
  totals.cacheRead += usage.cacheRead;
  totals.cacheWrite += usage.cacheWrite;
  // Some writers leave totalTokens at 0; fall back to the sum of the parts then.
  totals.totalTokens +=
    usage.totalTokens > 0
      ? usage.totalTokens
      : usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
  totals.cost += usage.cost;
}

/**
 * The totals of the branch from the root to `id`, walked by node index (the tree's parent column):
 * walked by id, each step was two hash lookups and a set insertion, ~15 ms per path of a 200,000-
 * entry session, paid for the selected entry and the leaf after every live append and jump. The
 * tree's parents have no cycles (ViewTree), so the walk ends at a root; an unknown id has none.
 */
export function branchTotals<Entry>(
  tree: { indexOf(id: string): number; entryAt(index: number): Entry; parentIndexAt(index: number): number },
  id: string | null,
  usageOf: (entry: Entry) => UsageLike | undefined,
): BranchTotals {
  const totals = emptyTotals();
  for (let node = id === null ? -1 : tree.indexOf(id); node >= 0; node = tree.parentIndexAt(node))
    addUsage(totals, usageOf(tree.entryAt(node)));
  return totals;
}

/**
 * The totals of the subtree under `id` (itself included): what an archived branch's folded stub
 * hides (docs/archive-and-family.md#archive). Iterative, over the tree's child columns.
 */
export function subtreeTotals<Entry>(
  tree: {
    indexOf(id: string): number;
    entryAt(index: number): Entry;
    childCountAt(index: number): number;
    childAt(index: number, k: number): number;
  },
  id: string,
  usageOf: (entry: Entry) => UsageLike | undefined,
): BranchTotals {
  const totals = emptyTotals();
  const start = tree.indexOf(id);
  const stack = start < 0 ? [] : [start];
  while (stack.length > 0) {
    const node = stack.pop()!;
    addUsage(totals, usageOf(tree.entryAt(node)));
    for (let k = tree.childCountAt(node) - 1; k >= 0; k--) stack.push(tree.childAt(node, k));
  }
  return totals;
}
