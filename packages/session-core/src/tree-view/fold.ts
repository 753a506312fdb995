// Folding branch segments and jumping between segment starts, as pi 1.6's tree selector does
// (docs/tree-and-context.md#folding). The fold state is a plain set of entry ids that the caller
// owns (the selector state holds it); nothing here remembers anything between calls.
//
// pi's rules, kept exactly:
// - a row is foldable when it has visible children and is a root (no visible parent) or a segment
//   start (its visible parent has several visible children);
// - folding hides every descendant of the folded entry; the folded row stays;
// - Ctrl+← folds the selected row when it is foldable and not folded, otherwise it moves to the
//   previous segment start up the visible parent chain (the root when there is none);
// - Ctrl+→ unfolds the selected row when it is folded, otherwise it follows first children down to
//   the next fork's first child (or the end of the chain);
// - a change of filter or search drops every fold (the selector does that, selection.ts).

import type { FlatRow } from './flatten';

/** The folded entries: ids of rows whose descendants are hidden. Owned by the caller. */
export type FoldSet = ReadonlySet<string>;

export const NO_FOLDS: FoldSet = new Set<string>();

export interface FoldedRows {
  rows: readonly FlatRow[];
  indexById: ReadonlyMap<string, number>;
  /** Rows hidden under each visible folded row (only folded rows that hide something are listed). */
  hiddenCount: ReadonlyMap<string, number>;
  /** For each hidden row, the folded row that hides it. */
  hiddenUnder: ReadonlyMap<string, string>;
  /** The ids of the rows each visible folded row hides, in row order. */
  hiddenIds: ReadonlyMap<string, readonly string[]>;
}

/**
 * The rows with the descendants of every visible folded row left out. A row's descendants follow it
 * in depth-first order, so each fold hides one run of rows: those whose visible parent is the
 * folded row or a row hidden by it. Answers null when no visible row is folded (the rows stand).
 */
export function applyFolds(rows: readonly FlatRow[], folded: FoldSet): FoldedRows | null {
  if (folded.size === 0) return null;
  const kept: FlatRow[] = [];
  const indexById = new Map<string, number>();
  const hiddenCount = new Map<string, number>();
  const hiddenUnder = new Map<string, string>();
  const hiddenIds = new Map<string, readonly string[]>();
  let foldId: string | null = null;
  let hidden = new Set<string>();
  const close = (id: string) => {
    if (hidden.size === 0) return;
    hiddenCount.set(id, hidden.size);
    hiddenIds.set(id, [...hidden]);
  };
  for (const row of rows) {
    if (foldId !== null) {
      const parent = row.visibleParentId;
      if (parent !== null && (parent === foldId || hidden.has(parent))) {
        hidden.add(row.id);
        hiddenUnder.set(row.id, foldId);
        continue;
      }
      close(foldId);
      foldId = null;
      hidden = new Set();
    }
    indexById.set(row.id, kept.length);
    kept.push(row);
    if (folded.has(row.id) && row.visibleChildCount > 0) foldId = row.id;
  }
  if (foldId !== null) close(foldId);
  if (hiddenCount.size === 0) return null;
  return { rows: kept, indexById, hiddenCount, hiddenUnder, hiddenIds };
}

/** Visible children of a row as the folded view shows them (none for a folded row). */
function childCount(row: FlatRow, folded: FoldSet): number {
  return folded.has(row.id) ? 0 : row.visibleChildCount;
}

/** pi's `isFoldable`: visible children, and a root or the start of a segment. */
export function isFoldable(
  rows: readonly FlatRow[],
  indexById: ReadonlyMap<string, number>,
  index: number,
  folded: FoldSet,
): boolean {
  const row = rows[index];
  if (row === undefined || childCount(row, folded) === 0) return false;
  if (row.visibleParentId === null) return true;
  const parentIndex = indexById.get(row.visibleParentId);
  const parent = parentIndex === undefined ? undefined : rows[parentIndex];
  return parent !== undefined && childCount(parent, folded) > 1;
}

/** What the connector (or a root's marker) shows for a row: pi's `⊞` folded, `⊟` foldable. */
export type FoldMark = 'folded' | 'foldable' | null;

export function foldMark(
  rows: readonly FlatRow[],
  indexById: ReadonlyMap<string, number>,
  index: number,
  folded: FoldSet,
): FoldMark {
  const row = rows[index];
  if (row === undefined) return null;
  if (folded.has(row.id)) return 'folded';
  return isFoldable(rows, indexById, index, folded) ? 'foldable' : null;
}

/**
 * pi's `findBranchSegmentStart`: the row Ctrl+← (`up`) or Ctrl+→ (`down`) moves to from `index`.
 * Down follows first children (the next row in depth-first order) to the first child of the next
 * fork, or to the end of the chain; up walks the visible parents to the nearest segment start above
 * the selection, or to the root.
 */
export function segmentStart(
  rows: readonly FlatRow[],
  indexById: ReadonlyMap<string, number>,
  index: number,
  direction: 'up' | 'down',
  folded: FoldSet,
): number {
  let current = rows[index];
  if (current === undefined) return index;
  let at = index;
  if (direction === 'down') {
    for (;;) {
      const children = childCount(current, folded);
      if (children === 0) return at;
      at += 1;
      if (children > 1) return at;
      current = rows[at]!;
    }
  }
  for (;;) {
    const parentId = current.visibleParentId;
    if (parentId === null) return at;
    const parentAt = indexById.get(parentId);
    if (parentAt === undefined) return at;
    const parent = rows[parentAt]!;
    if (childCount(parent, folded) > 1 && at < index) return at;
    current = parent;
    at = parentAt;
  }
}
