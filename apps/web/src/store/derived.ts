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
import {
  drain,
  graphLayoutSteps,
  GraphLayouter,
  stepsJob,
  type GraphLayout,
  type IndexedGraphSource,
} from '../layout/graphLayout';
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

/** Rows per slice of the graph source's build (a few ms each). */
const SOURCE_SLICE = 16384;

/** The memoised derivations of one store: each store (each app, each test) has its own caches. */
export interface Derived {
  /**
   * Graph rows: the filter mode only; the search highlights matches in the graph instead of hiding
   * the rest. Without a search they are exactly the tree view's rows, so they are not computed
   * twice; and a search started from there reuses them (same object, so the layout is not redone
   * on the first keystroke nor when the search is cleared).
   */
  graphRows(treeView: TreeSelectorState | null): VisibleRows;
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
  /**
   * The same layout without a long task: what `graphLayoutFor` answers when that is cheap (kept,
   * brought up to date, or a small tree); otherwise a job that lays the rows out in slices, and
   * meanwhile the last layout of the same tree (or null). Once the job is done, this answers its
   * layout. One job at a time: asking for other rows abandons the one in progress.
   */
  graphLayoutSoon(tree: ViewTree | null, rows: VisibleRows, expanded: ReadonlySet<string>): SoonLayout;
}

/** A graph layout that may still be in the making. */
export interface SoonLayout {
  /** The layout of the rows asked for, or, while `job` runs, the last one of the same tree. */
  readonly layout: GraphLayout | null;
  /** Runs slices until `shouldYield` answers true; true once the layout is done (ask again then). */
  readonly job: ((shouldYield: () => boolean) => boolean) | null;
}

/**
 * Up to this many rows the graph is laid out at once (a few ms); above, in slices. At about 3 µs a
 * row in Chromium, 16,384 rows laid out at once was a 50 ms task after a filter change at 50,000
 * entries, holding back the next frame.
 */
export const SLICED_LAYOUT_ROWS = 2048;

export function createDerived(options: { slicedLayoutRows?: number } = {}): Derived {
  const slicedLayoutRows = options.slicedLayoutRows ?? SLICED_LAYOUT_ROWS;
  // This view's layouts: the last one answers the same structure again after a jump.
  const layouter = new GraphLayouter();
  const sameInputs = (a: RowsInput, b: RowsInput) =>
    a.tree === b.tree && a.treeVersion === b.treeVersion && a.leafId === b.leafId && a.mode === b.mode;
  /** The tree view's rows of the last state without a search, with what they were computed from. */
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

  /** The layout in progress, with what it lays out. */
  let pending: {
    tree: ViewTree;
    rows: VisibleRows;
    expanded: ReadonlySet<string>;
    job: (shouldYield: () => boolean) => boolean;
  } | null = null;
  /** The layout of `rows` when no layout from scratch is needed: the last one, kept or brought up to date. */
  const readyLayout = (tree: ViewTree, rows: VisibleRows, expanded: ReadonlySet<string>) => {
    if (!lastLayout || lastLayout.expanded !== expanded || lastLayout.tree !== tree) return null;
    // lastLayout.rows stays the rows the layout is numbered by: its id lookups read them.
    if (lastLayout.rows === rows || sameVisibleTree(lastLayout.rows, rows)) return lastLayout.layout;
    const input = laidOutInput(tree, rows);
    const appended = appendToLayout(lastLayout, input);
    if (!appended) return null;
    lastLayout = { ...lastLayout, ...input, ...appended };
    return appended.layout;
  };

  return {
    graphRows(treeView) {
      if (!treeView) return EMPTY_ROWS;
      const input: RowsInput = {
        tree: treeView.tree,
        treeVersion: treeView.treeVersion,
        leafId: treeView.leafId,
        mode: treeView.mode,
      };
      if (treeView.query === '') {
        if (lastUnsearched && lastUnsearched.rows === treeView.rows && sameInputs(lastUnsearched, input))
          return lastUnsearched.result;
        // Not a fresh object literal around the rows: the indexById getter must stay lazy.
        const result: VisibleRows = treeView;
        lastUnsearched = { ...input, rows: treeView.rows, result };
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
      const ready = readyLayout(tree, rows, expanded);
      if (ready) return ready;
      const input = laidOutInput(tree, rows);
      const layout = layouter.layout(graphSourceFromRows(tree, rows), { expandedRuns: expanded });
      lastLayout = { ...input, layout, expanded, overrides: new Map(), base: layout.indexOfEntry };
      return layout;
    },

    graphLayoutSoon(tree, rows, expanded) {
      if (!tree) return { layout: null, job: null };
      const ready = readyLayout(tree, rows, expanded);
      if (ready) return { layout: ready, job: null };
      if (rows.rows.length <= slicedLayoutRows)
        return { layout: this.graphLayoutFor(tree, rows, expanded), job: null };
      if (!pending || pending.tree !== tree || pending.rows !== rows || pending.expanded !== expanded) {
        const input = laidOutInput(tree, rows);
        const steps = stepsJob(
          (function* () {
            const source = yield* graphSourceSteps(tree, rows);
            return yield* graphLayoutSteps(source, { expandedRuns: expanded });
          })(),
        );
        const job = (shouldYield: () => boolean) => {
          if (pending?.job !== job) return true;
          const done = steps.step(shouldYield);
          if (done === null) return false;
          lastLayout = {
            ...input,
            layout: done.layout,
            expanded,
            overrides: new Map(),
            base: done.layout.indexOfEntry,
          };
          pending = null;
          return true;
        };
        pending = { tree, rows, expanded, job };
      }
      return { layout: lastLayout?.tree === tree ? lastLayout.layout : null, job: pending.job };
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
  return drain(graphSourceSteps(tree, rows));
}

/** `graphSourceFromRows` as a resumable step function: it yields every SOURCE_SLICE rows. */
export function* graphSourceSteps(tree: ViewTree, rows: VisibleRows): Generator<void, IndexedGraphSource> {
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
    if (r % SOURCE_SLICE === SOURCE_SLICE - 1) yield;
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
  yield;
  const byFileOrder = (slice: Int32Array) => {
    if (slice.length < 2) return;
    const keyed = Array.from(slice, (r) => [tree.indexOf(ids[r]!), r] as const);
    keyed.sort((a, b) => a[0] - b[0]);
    for (let i = 0; i < keyed.length; i++) slice[i] = keyed[i]![1];
  };
  byFileOrder(roots);
  let sorted = 0;
  for (let r = 0; r < n; r++) {
    const count = childStart[r + 1]! - childStart[r]!;
    if (count < 2) continue;
    byFileOrder(childList.subarray(childStart[r]!, childStart[r + 1]!));
    sorted += count;
    if (sorted >= SOURCE_SLICE) {
      sorted = 0;
      yield;
    }
  }
  return { ids, roots, childStart, childList, pinned, indexOf: (id) => rows.indexById.get(id) ?? -1 };
}
