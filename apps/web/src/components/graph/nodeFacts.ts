// What the graph shows of one layout node (an entry, or a compressed run of entries): its kind,
// text, label and whether it is on the active path, the leaf, or failed. The canvas painter and the
// DOM cards both draw from these facts, so the two never disagree.

import { subtreeSize, ViewFlags, type FlatRow, type ViewTree } from '@canopy/session-core';
import type { GraphLayout } from '../../layout/graphLayout';
import { entryKind, type EntryKind } from '../../lib/entryKind';
import type { VisibleRows } from '../../store/derived';

export interface NodeFacts {
  ids: string[];
  kind: EntryKind;
  active: boolean;
  leaf: boolean;
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

export function factsOf(
  layout: GraphLayout,
  index: number,
  tree: ViewTree,
  rows: VisibleRows,
  leafId: string | null,
): NodeFacts {
  const node = layout.nodes[index]!;
  const ids = node.kind === 'run' ? (node.members as string[]) : [node.id];
  const row = rowOfNode(layout, index, rows);
  if (node.kind === 'run') {
    return {
      ids,
      kind: 'other',
      active: row?.onActivePath ?? false,
      leaf: leafId !== null && ids.includes(leafId),
      text: `⋯ ${ids.length} entries`,
      error: false,
    };
  }
  const entry = tree.get(ids[0]!);
  if (!entry) return { ids, kind: 'other', active: false, leaf: false, text: '', error: false };
  const archived = (entry.flags & ViewFlags.Archived) !== 0;
  if (archived && !tree.archivedRevealed && (entry.flags & ViewFlags.ArchiveRoot) !== 0) {
    // A folded archived branch: one node stands for it.
    const count = subtreeSize(tree, entry.id);
    return {
      ids,
      kind: 'other',
      active: false,
      leaf: row?.isLeaf ?? false,
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
