// Derived data, memoised on the identity and version of its inputs so that React renders and
// keystrokes that do not change them reuse the previous result (rows and layout are O(n)). The
// caches belong to one store (createDerived, reached through useDerived), never to the module.

import {
  computeRows,
  type FilterMode,
  type FlatRow,
  type TreeSelectorState,
  type ViewTree,
} from '@canopy/session-core';
import { layoutGraph, type GraphLayout, type IndexedGraphSource } from '../layout/graphLayout';
import { appendToLayout, type LaidOutRows } from './graphAppend';

interface RowsInput {
  tree: ViewTree;
  treeVersion: number;
  leafId: string | null;
  mode: FilterMode;
}

/** The rows a view draws: the visible rows and their index. */
export interface VisibleRows {
  readonly rows: readonly FlatRow[];
  readonly indexById: ReadonlyMap<string, number>;
}

const EMPTY_ROWS: VisibleRows = { rows: [], indexById: new Map() };

/** The memoised derivations of one store: each store (each app, each test) has its own caches. */
export interface Derived {
  /**
   * Graph rows: the filter mode only; the search highlights matches in the graph instead of hiding
   * the rest. Without a search they are exactly the selector's rows, so they are not computed
   * twice; and a search started from there reuses them (same object, so the layout is not redone
   * on the first keystroke nor when the search is cleared).
   */
  graphRows(selector: TreeSelectorState | null): VisibleRows;
  /**
   * The graph layout of those rows, memoised on the visible tree and the expanded runs: rows of
   * the same visible tree (a jump that hides and shows no entry) answer the same layout object,
   * numbered by the rows it was first computed from, so neither the graph source nor the layout's
   * structure comparison runs again (O(n) each). Rows that grew from the last ones by an append
   * under the tip of a run (or by entries the filter hides) answer that layout brought up to date
   * (graphAppend.ts), with the same positions. Read a node's row through `rowOfNode`
   * (components/graph/nodeFacts.ts), never through its `sourceIndex`.
   */
  graphLayoutFor(tree: ViewTree | null, rows: VisibleRows, expanded: ReadonlySet<string>): GraphLayout | null;
}

export function createDerived(): Derived {
  const sameInputs = (a: RowsInput, b: RowsInput) =>
    a.tree === b.tree && a.treeVersion === b.treeVersion && a.leafId === b.leafId && a.mode === b.mode;
  /** The selector's rows of the last state without a search, with what they were computed from. */
  let lastUnsearched: (RowsInput & { rows: TreeSelectorState['rows']; result: VisibleRows }) | null = null;
  let lastComputed: (RowsInput & { result: VisibleRows }) | null = null;
  /** What each rows result handed out by graphRows was computed from (to compare visible trees). */
  const inputOf = new WeakMap<VisibleRows, RowsInput>();
  const remember = (result: VisibleRows, input: RowsInput): VisibleRows => {
    inputOf.set(result, input);
    return result;
  };
  /**
   * Whether two rows results show the same visible tree. Within one tree version and filter mode
   * an entry is visible when it passes the mode, and the leaf also when it passes as the leaf (see
   * session-core's tree-view/filter.ts), so the visible sets can differ only in the two leaves; a
   * visible entry's parent is its nearest visible ancestor, the graph's children are in file order
   * and its pins are labels (same version), so the same visible set is the same graph source.
   */
  const sameVisibleTree = (a: VisibleRows, b: VisibleRows): boolean => {
    const from = inputOf.get(a);
    const to = inputOf.get(b);
    if (from === undefined || to === undefined) return false;
    if (from.tree !== to.tree || from.treeVersion !== to.treeVersion || from.mode !== to.mode) return false;
    if (a.rows.length !== b.rows.length) return false;
    for (const leaf of [from.leafId, to.leafId])
      if (leaf !== null && a.indexById.has(leaf) !== b.indexById.has(leaf)) return false;
    return true;
  };
  let lastLayout: (LaidOutRows & { expanded: ReadonlySet<string> }) | null = null;
  /**
   * What `rows` were computed from, with the tree's size then: known only while the tree has not
   * changed since (the graph may be handed rows of an older version; -1 then, and no append is
   * assumed from or to them).
   */
  const laidOutInput = (tree: ViewTree, rows: VisibleRows) => {
    const input = inputOf.get(rows);
    const current = input !== undefined && input.tree === tree && input.treeVersion === tree.version;
    return {
      tree,
      treeVersion: input?.treeVersion ?? -1,
      treeSize: current ? tree.size : -1,
      leafId: input?.leafId ?? null,
      mode: input?.mode ?? 'default',
      rows,
    };
  };

  return {
    graphRows(selector) {
      if (!selector) return EMPTY_ROWS;
      const input: RowsInput = {
        tree: selector.tree,
        treeVersion: selector.treeVersion,
        leafId: selector.leafId,
        mode: selector.mode,
      };
      if (selector.query === '') {
        if (lastUnsearched && lastUnsearched.rows === selector.rows && sameInputs(lastUnsearched, input))
          return lastUnsearched.result;
        // Not a fresh object literal around the rows: the indexById getter must stay lazy.
        const result: VisibleRows = selector;
        lastUnsearched = { ...input, rows: selector.rows, result };
        return remember(result, input);
      }
      if (lastUnsearched && sameInputs(lastUnsearched, input)) return lastUnsearched.result;
      if (lastComputed && sameInputs(lastComputed, input)) return lastComputed.result;
      const result: VisibleRows = computeRows(input.tree, {
        leafId: input.leafId,
        mode: input.mode,
        query: '',
      });
      lastComputed = { ...input, result };
      return remember(result, input);
    },

    graphLayoutFor(tree, rows, expanded) {
      if (!tree) return null;
      if (
        lastLayout &&
        lastLayout.expanded === expanded &&
        lastLayout.tree === tree &&
        (lastLayout.rows === rows || sameVisibleTree(lastLayout.rows, rows))
      )
        // lastLayout.rows stays the rows the layout is numbered by: its id lookups read them.
        return lastLayout.layout;
      const input = laidOutInput(tree, rows);
      if (lastLayout && lastLayout.expanded === expanded) {
        const appended = appendToLayout(lastLayout, input);
        if (appended) {
          lastLayout = { ...lastLayout, ...input, ...appended };
          return appended.layout;
        }
      }
      const layout = layoutGraph(graphSourceFromRows(tree, rows), { expandedRuns: expanded });
      lastLayout = { ...input, layout, expanded, overrides: new Map(), base: layout.indexOfEntry };
      return layout;
    },
  };
}

/**
 * The graph's source: the visible rows numbered by their row index, children in file order (not
 * active-first) so that the graph does not reshuffle on every jump. O(rows) with typed arrays: the
 * rows are a depth-first listing, so each row's parent is found on the path above it without a
 * lookup, and only the siblings at branch points are looked up to sort them into file order.
 */
export function graphSourceFromRows(tree: ViewTree, rows: VisibleRows): IndexedGraphSource {
  const list = rows.rows;
  const n = list.length;
  const ids: string[] = new Array<string>(n);
  const pinned = new Uint8Array(n);
  const parentRow = new Int32Array(n);
  const childStart = new Int32Array(n + 1);
  const path: number[] = [];
  let rootCount = 0;
  for (let r = 0; r < n; r++) {
    const row = list[r]!;
    ids[r] = row.id;
    if (row.entry.label !== undefined) pinned[r] = 1;
    const parentId = row.visibleParentId;
    let parent = -1;
    if (parentId === null) path.length = 0;
    else {
      while (path.length > 0 && ids[path[path.length - 1]!] !== parentId) path.pop();
      // Not on the path would mean rows that are not a depth-first listing: fall back to the index.
      parent = path.length > 0 ? path[path.length - 1]! : (rows.indexById.get(parentId) ?? -1);
    }
    parentRow[r] = parent;
    if (parent < 0) rootCount++;
    else childStart[parent + 1]!++;
    path.push(r);
  }
  for (let r = 0; r < n; r++) childStart[r + 1]! += childStart[r]!;
  const childList = new Int32Array(n - rootCount);
  const roots = new Int32Array(rootCount);
  const fill = childStart.slice(0, n);
  let rootFill = 0;
  for (let r = 0; r < n; r++) {
    const p = parentRow[r]!;
    if (p < 0) roots[rootFill++] = r;
    else childList[fill[p]!++] = r;
  }
  const byFileOrder = (slice: Int32Array) => {
    if (slice.length < 2) return;
    const keyed = Array.from(slice, (r) => [tree.indexOf(ids[r]!), r] as const);
    keyed.sort((a, b) => a[0] - b[0]);
    for (let i = 0; i < keyed.length; i++) slice[i] = keyed[i]![1];
  };
  byFileOrder(roots);
  for (let r = 0; r < n; r++)
    if (childStart[r + 1]! - childStart[r]! > 1)
      byFileOrder(childList.subarray(childStart[r]!, childStart[r + 1]!));
  return { ids, roots, childStart, childList, pinned, indexOf: (id) => rows.indexById.get(id) ?? -1 };
}
