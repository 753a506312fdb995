// What the graph shows of one layout node (an entry, or a compressed run of entries): its kind,
// text, label and whether it is on the active path, the leaf, or failed. The canvas painter and the
// DOM cards both draw from these facts, so the two never disagree.

import {
  isArchivedState,
  isArchiveRootState,
  subtreeSize,
  ViewFlags,
  type FlatRow,
  type ViewTree,
} from '@canopy/session-core';
import type { GraphLayout } from '../../layout/graphLayout';
import { entryKind, type EntryKind } from '../../lib/entryKind';
import type { VisibleRows } from '../../store/derived';

export interface NodeFacts {
  ids: string[];
  kind: EntryKind;
  active: boolean;
  leaf: boolean;
  /**
   * The leaf is hidden (by the filter or a fold) under this node: the outline's "leaf ↓"
   * (docs/tree-and-context.md#leaf-mark).
   */
  leafBelow: boolean;
  /** Rows a fold hides under this node (docs/tree-and-context.md#folding), 0 when it is not folded. */
  folded: number;
  text: string;
  label?: string;
  error: boolean;
  /** Inside an archived branch (docs/archive-and-family.md#archive): drawn dimmed. */
  archived?: boolean;
}

/** The facts of the node at a layout index. */
export type FactsAt = (index: number) => NodeFacts;

/** The set of entry ids a search matched, or null when there is no search. */
export type Matches = ReadonlySet<string> | ReadonlyMap<string, unknown> | null;

/** The selector's folds as the graph draws them. */
export interface FoldFacts {
  hiddenByFold: ReadonlyMap<string, number>;
  leafFoldId: string | null;
}

export const NO_FOLD_FACTS: FoldFacts = { hiddenByFold: new Map(), leafFoldId: null };

/** Whether the row carries the hidden leaf's mark: its nearest visible ancestor, or the fold that hides it. */
function holdsHiddenLeaf(row: FlatRow | undefined, folds: FoldFacts): boolean {
  if (row === undefined || row.isLeaf) return false;
  return row.isLeafPosition || row.id === folds.leafFoldId;
}

export function factsOf(
  layout: GraphLayout,
  index: number,
  tree: ViewTree,
  rows: VisibleRows,
  leafId: string | null,
  folds: FoldFacts = NO_FOLD_FACTS,
): NodeFacts {
  const node = layout.nodes[index]!;
  const ids = node.kind === 'run' ? (node.members as string[]) : [node.id];
  const row = rowOfNode(layout, index, rows);
  if (node.kind === 'run') {
    const leaf = leafId !== null && ids.includes(leafId);
    const rowOf = (id: string) => {
      const at = rows.indexById.get(id);
      return at === undefined ? undefined : rows.rows[at];
    };
    return {
      ids,
      kind: 'other',
      active: row?.onActivePath ?? false,
      leaf,
      leafBelow: !leaf && ids.some((id) => holdsHiddenLeaf(rowOf(id), folds)),
      folded: 0,
      text: `⋯ ${ids.length} entries`,
      error: false,
    };
  }
  const entry = tree.get(ids[0]!);
  if (!entry)
    return {
      ids,
      kind: 'other',
      active: false,
      leaf: false,
      leafBelow: false,
      folded: 0,
      text: '',
      error: false,
    };
  const archiveState = tree.archiveStateOf(entry.id);
  const archived = isArchivedState(archiveState);
  if (!tree.archivedRevealed && isArchiveRootState(archiveState)) {
    // A folded archived branch: one node stands for it.
    const count = subtreeSize(tree, entry.id);
    const leaf = row?.isLeaf ?? false;
    return {
      ids,
      kind: 'other',
      active: false,
      leaf,
      leafBelow: holdsHiddenLeaf(row, folds),
      folded: 0,
      text: `▸ ${count} archived ${count === 1 ? 'entry' : 'entries'}`,
      error: false,
      archived,
    };
  }
  return {
    ...(archived ? { archived } : {}),
    ids,
    kind: entryKind(entry.type, entry.role),
    active: row?.onActivePath ?? false,
    leaf: row?.isLeaf ?? false,
    leafBelow: holdsHiddenLeaf(row, folds),
    folded: folds.hiddenByFold.get(entry.id) ?? 0,
    // Some rows have no text (pi's session_info); a card still needs something to show.
    text: entry.text || `[${entry.type.replace(/_/g, ' ')}]`,
    ...(entry.label !== undefined ? { label: entry.label } : {}),
    error: (entry.flags & (ViewFlags.Error | ViewFlags.Aborted | ViewFlags.ToolError)) !== 0,
  };
}

/**
 * The row of a layout node (a run's: its first member's) in `rows`. Looked up by id, not through
 * `layout.sourceIndex`: a layout is kept across rows of the same visible tree (a jump), and its
 * source numbers are the row indices of the rows it was first computed from (store/derived.ts).
 */
export function rowOfNode(layout: GraphLayout, index: number, rows: VisibleRows): FlatRow | undefined {
  const row = rows.indexById.get(layout.nodes[index]!.id);
  return row === undefined ? undefined : rows.rows[row];
}

/** Whether a search matched any entry of the node. */
export function isMatch(facts: NodeFacts, matches: Matches): boolean {
  return matches !== null && facts.ids.some((id) => matches.has(id));
}
