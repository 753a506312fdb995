// What the views say about archived branches (docs/archive-and-family.md#archive): the size of a
// folded branch for its "▸ N archived entries" stub, how many search matches the folded branches
// hold, and what of a branch is hidden. Over the view tree's own columns: no map, no recursion.

import { isArchivedState } from './archive-state';
import { matchesQuery, tokenizeQuery } from './search';
import type { ViewTree } from './view-tree';

/** Entries in the subtree of `id`, itself included (0 for an unknown id). */
export function subtreeSize(tree: ViewTree, id: string): number {
  const start = tree.indexOf(id);
  if (start < 0) return 0;
  let count = 0;
  tree.walkSubtree(start, () => {
    count++;
    return true;
  });
  return count;
}

/** Entries inside archived branches whose text matches `query` (none for an empty query). */
export function archivedMatchCount(tree: ViewTree, query: string): number {
  const tokens = tokenizeQuery(query);
  if (tokens.length === 0) return 0;
  let count = 0;
  for (let node = 0; node < tree.size; node++) {
    if (isArchivedState(tree.archiveStateAt(node)) && matchesQuery(tree.entryAt(node), tokens)) count++;
  }
  return count;
}

/** Archived branches and their entries in the whole tree: what the folded view hides. */
export interface ArchivedCounts {
  branches: number;
  entries: number;
}

export function archivedCounts(tree: ViewTree): ArchivedCounts {
  // Kept by the tree as states change (view-tree.ts): reading them walks nothing.
  return tree.archivedCounts;
}
