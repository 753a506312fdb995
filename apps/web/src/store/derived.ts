// Derived data, memoised on the identity and version of its inputs so that React renders and
// keystrokes that do not change them reuse the previous result (rows and layout are O(n)).

import {
  computeRows,
  findNearestVisible,
  type FilterMode,
  type FlatRow,
  type RowsResult,
  type TreeSelectorState,
  type ViewTree,
} from '@canopy/session-core';
import { layoutGraph, type GraphLayout, type GraphSource } from '../layout/graphLayout';

export interface RowsInput {
  tree: ViewTree | null;
  treeVersion: number;
  leafId: string | null;
  mode: FilterMode;
  query: string;
}

const EMPTY_ROWS: RowsResult = {
  rows: [],
  indexById: new Map(),
  selectedIndex: -1,
  multipleRoots: false,
  leafIndex: -1,
};

function memoRows() {
  let last: (RowsInput & { result: RowsResult }) | null = null;
  return (input: RowsInput): RowsResult => {
    if (
      last &&
      last.tree === input.tree &&
      last.treeVersion === input.treeVersion &&
      last.leafId === input.leafId &&
      last.mode === input.mode &&
      last.query === input.query
    )
      return last.result;
    const result = input.tree
      ? computeRows(input.tree, { leafId: input.leafId, mode: input.mode, query: input.query })
      : EMPTY_ROWS;
    last = { ...input, result };
    return result;
  };
}

/** Outline rows: filter mode and search query. */
export const outlineRows = memoRows();
const graphRowsWithoutQuery = memoRows();

/** The rows a view draws: the visible rows and their index. */
export type VisibleRows = Pick<RowsResult, 'rows' | 'indexById'>;

let lastShared: { selector: TreeSelectorState; result: VisibleRows } | null = null;

/**
 * Graph rows: the filter mode only; the search highlights matches in the graph instead of hiding
 * the rest. Without a search they are exactly the selector's rows, so they are not computed twice.
 */
export function graphRows(
  selector: TreeSelectorState | null,
  tree: ViewTree | null,
  treeVersion: number,
  leafId: string | null,
): VisibleRows {
  if (!selector || !tree) return EMPTY_ROWS;
  if (selector.query === '') {
    if (lastShared && lastShared.selector.rows === selector.rows) return lastShared.result;
    const result: VisibleRows = {
      rows: selector.rows as FlatRow[],
      indexById: selector.indexById as Map<string, number>,
    };
    lastShared = { selector, result };
    return result;
  }
  return graphRowsWithoutQuery({ tree, treeVersion, leafId, mode: selector.mode, query: '' });
}

/** The row to show as selected: the selected entry or its nearest visible ancestor. */
export function selectedRowIndex(tree: ViewTree | null, rows: RowsResult, selectedId: string | null): number {
  if (!tree) return -1;
  return findNearestVisible(tree, rows.indexById, selectedId);
}

/** Children in file order (not active-first) so the graph does not reshuffle on every jump. */
export function graphSourceFromRows(tree: ViewTree, rows: VisibleRows): GraphSource {
  const children = new Map<string, string[]>();
  const roots: string[] = [];
  for (const row of rows.rows) {
    const parent = row.visibleParentId;
    if (parent === null) roots.push(row.id);
    else {
      const list = children.get(parent);
      if (list) list.push(row.id);
      else children.set(parent, [row.id]);
    }
  }
  const byFileOrder = (a: string, b: string) => tree.indexOf(a) - tree.indexOf(b);
  roots.sort(byFileOrder);
  for (const list of children.values()) if (list.length > 1) list.sort(byFileOrder);
  const none: string[] = [];
  return {
    roots,
    children: (id) => children.get(id) ?? none,
    isPinned: (id) => {
      const entry = tree.get(id);
      return entry?.label !== undefined;
    },
  };
}

let lastLayout: {
  rows: VisibleRows;
  expanded: ReadonlySet<string>;
  layout: GraphLayout;
  tree: ViewTree;
} | null = null;

export function graphLayoutFor(
  tree: ViewTree | null,
  rows: VisibleRows,
  expanded: ReadonlySet<string>,
): GraphLayout | null {
  if (!tree) return null;
  if (lastLayout && lastLayout.rows === rows && lastLayout.expanded === expanded && lastLayout.tree === tree)
    return lastLayout.layout;
  const layout = layoutGraph(graphSourceFromRows(tree, rows), { expandedRuns: expanded });
  lastLayout = { rows, expanded, layout, tree };
  return layout;
}
