// Suggestions to tidy a tree (docs/archive-and-family.md#tidy): branches off the active path that
// hold no answered assistant reply (oh-my-pi's /prune verdict: an entry is worth keeping only when
// an answered reply sits at or below it), or that a branch summary written on leaving them already
// covers. Only suggestions: nothing is archived without the user's click. Linear passes, no per-entry
// ancestor walks.

import { ViewFlags } from './row-format';

/** What the suggestions read of an entry: a tree node or a view entry. */
export interface TidyNode {
  id: string;
  parentId: string | null;
  type: string;
  role?: string;
  flags: number;
}

/** A branch summary and the leaf it was written on leaving (`branchSummaryOrigin` 'left-leaf'). */
export interface LeftBranchSummary {
  summaryId: string;
  leftLeafId: string;
}

/** Why a branch is offered: no answered reply in it, or a branch summary covers it. */
export const TIDY_REASONS = ['unanswered', 'summarized'] as const;
export type TidyReason = (typeof TIDY_REASONS)[number];

export interface TidySuggestion {
  /** The root of the branch to archive. */
  targetId: string;
  reason: TidyReason;
  /** Entries in the branch. */
  entries: number;
  /** The branch summary that covers it ('summarized'). */
  summaryId?: string;
}

/** An assistant reply that answered: it has text and did not stop on an error or abort. */
export function isAnsweredReply(node: TidyNode): boolean {
  return (
    node.type === 'message' &&
    node.role === 'assistant' &&
    (node.flags & (ViewFlags.ToolOnlyAssistant | ViewFlags.Error | ViewFlags.Aborted)) === 0
  );
}

/**
 * The branches worth archiving, in tree order: each the topmost entry off the active path (a child,
 * not on the path, of an entry that is) whose subtree holds no answered reply, or the branch a
 * branch summary left. Branches already archived, and anything on the path from a root to `leafId`,
 * are never suggested.
 */
export function tidySuggestions(
  nodes: readonly TidyNode[],
  leafId: string | null,
  summaries: readonly LeftBranchSummary[] = [],
): TidySuggestion[] {
  const count = nodes.length;
  const position = new Map<string, number>();
  for (let i = 0; i < count; i++) if (!position.has(nodes[i]!.id)) position.set(nodes[i]!.id, i);
  const parent = new Int32Array(count).fill(-1);
  const children: number[][] = Array.from({ length: count }, () => []);
  const roots: number[] = [];
  for (let i = 0; i < count; i++) {
    const p = nodes[i]!.parentId === null ? undefined : position.get(nodes[i]!.parentId!);
    if (p === undefined || p === i || position.get(nodes[i]!.id) !== i) roots.push(i);
    else {
      parent[i] = p;
      children[p]!.push(i);
    }
  }
  // Depth-first order from the roots (a cycle of a damaged file is never reached, so never looped).
  const order: number[] = [];
  const stack = [...roots].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    order.push(node);
    const kids = children[node]!;
    for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k]!);
  }
  const size = new Int32Array(count);
  const answered = new Uint8Array(count);
  for (let k = order.length - 1; k >= 0; k--) {
    const node = order[k]!;
    size[node]! += 1;
    if (isAnsweredReply(nodes[node]!)) answered[node] = 1;
    const p = parent[node]!;
    if (p >= 0) {
      size[p]! += size[node]!;
      if (answered[node]) answered[p] = 1;
    }
  }
  const onPath = new Uint8Array(count);
  const leaf = leafId === null ? undefined : position.get(leafId);
  for (let node = leaf ?? -1; node >= 0 && !onPath[node]; node = parent[node]!) onPath[node] = 1;

  const suggested = new Map<number, TidySuggestion>();
  // Inside an archived branch: the entry or an ancestor is an archive target (parents come first in `order`).
  const inArchive = new Uint8Array(count);
  for (const node of order) {
    const p = parent[node]!;
    if ((nodes[node]!.flags & ViewFlags.ArchiveTarget) !== 0 || (p >= 0 && inArchive[p] === 1))
      inArchive[node] = 1;
  }
  const archived = (node: number) => inArchive[node] === 1;
  for (const node of order) {
    const p = parent[node]!;
    if (p < 0 || onPath[node] || !onPath[p] || archived(node) || answered[node]) continue;
    suggested.set(node, { targetId: nodes[node]!.id, reason: 'unanswered', entries: size[node]! });
  }
  for (const { summaryId, leftLeafId } of summaries) {
    const summary = position.get(summaryId);
    const left = position.get(leftLeafId);
    if (summary === undefined || left === undefined) continue;
    const summaryPath = new Set<number>();
    for (let node = summary; node >= 0 && !summaryPath.has(node); node = parent[node]!) summaryPath.add(node);
    // The branch left: the ancestor of the left leaf just below the point both paths share.
    let branch = left;
    const seen = new Set<number>();
    while (parent[branch]! >= 0 && !summaryPath.has(parent[branch]!) && !seen.has(branch)) {
      seen.add(branch);
      branch = parent[branch]!;
    }
    if (summaryPath.has(branch) || parent[branch]! < 0) continue;
    if (onPath[branch] || archived(branch) || suggested.has(branch)) continue;
    suggested.set(branch, {
      targetId: nodes[branch]!.id,
      reason: 'summarized',
      entries: size[branch]!,
      summaryId,
    });
  }
  const rank = new Map<number, number>();
  order.forEach((node, k) => rank.set(node, k));
  return [...suggested.entries()].sort((a, b) => rank.get(a[0])! - rank.get(b[0])!).map(([, s]) => s);
}
