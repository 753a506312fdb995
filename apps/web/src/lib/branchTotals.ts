// Token and cost totals of the assistant messages on one branch (root → node), from the skeleton's
// usage numbers, so they need no round trip. Iterative walk up the parent chain.

export interface UsageLike {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: number;
}

export interface BranchTotals extends UsageLike {
  entries: number;
  assistantMessages: number;
}

export function emptyTotals(): BranchTotals {
  return {
    entries: 0,
    assistantMessages: 0,
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
  totals.assistantMessages += 1;
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

export function branchTotals(
  id: string | null,
  lookup: (id: string) => { parentId: string | null; usage?: UsageLike } | undefined,
): BranchTotals {
  const totals = emptyTotals();
  const seen = new Set<string>();
  let current = id;
  while (current !== null && !seen.has(current)) {
    seen.add(current);
    const node = lookup(current);
    if (!node) break;
    addUsage(totals, node.usage);
    current = node.parentId;
  }
  return totals;
}
