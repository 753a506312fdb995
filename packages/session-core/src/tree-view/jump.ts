// The rows after a jump, from the rows before it: only the forks on the old and the new active
// path reorder (the active child first, docs/tree-and-context.md#rows), and only below the deepest
// entry the two paths share, so every other visible subtree keeps its rows, copied as one block
// (the rows outside that entry's subtree as two), and only the rows whose own marks changed (on both
// paths, and the fork children whose "last sibling" mark flipped) are built again. A flipped mark
// also turns the gutter line that child passes on (row.ts `flipLines`): the rows below hold that
// line, so they keep their objects; at a fork near the root that was every row of the tree.
// Exactly the rows of a full `computeRows` (flatten.ts), which the property test in jump.test.ts
// checks; when the jump changes which entries are visible (the leaf is the one entry whose
// visibility depends on it), the caller computes in full instead.

import { passesFilter, type FilterMode } from './filter';
import {
  drawsConnector,
  flipLines,
  Row,
  RowIndex,
  ROW_ACTIVE,
  ROW_LAST,
  ROW_LEAF,
  ROW_LEAF_POSITION,
  rowsWork,
  type GutterLink,
} from './row';
import { matchesQuery } from './search';
import { withHeadroom, type JumpWork } from './work';
import type { ViewTree } from './view-tree';

/** One rows result with what a later call needs to derive the next one from it. */
export interface RowsState {
  version: number;
  size: number;
  leaf: number;
  /** The row carrying the leaf mark: the leaf or its nearest visible ancestor; -1 for none. */
  leafPosition: number;
  mode: FilterMode;
  tokens: readonly string[];
  /** The visibility bits the rows were computed with (visibility.ts; never written). */
  passes: Uint8Array;
  rows: Row[];
  /** Row index per node, -1 for hidden ones; never written once the state exists. */
  rowOfNode: Int32Array;
  multipleRoots: boolean;
  index: RowIndex;
  /**
   * Per node, how many rows its visible subtree has (its own included; 0 for hidden nodes); computed
   * on first use. A jump shows the same visible tree in another order, so it hands them on as they are.
   */
  sizes: Int32Array | null;
}

/** Per-node row and gutter caches of flatten.ts, updated for the rows built here. */
export interface ReuseCache {
  rows: (Row | undefined)[];
  chains: (GutterLink | null | undefined)[];
}

const CHANGING = ROW_LAST | ROW_ACTIVE | ROW_LEAF | ROW_LEAF_POSITION;

/** The rows in each node's visible subtree (see RowsState.sizes). */
function sizesOf(state: RowsState): Int32Array {
  if (state.sizes !== null) return state.sizes;
  rowsWork.subtreeSizes++;
  const sizes = new Int32Array(state.rowOfNode.length);
  addSizes(state.rows, 0, state.rows.length, sizes);
  state.sizes = sizes;
  return sizes;
}

/**
 * Counts the subtree sizes of the nodes of rows [from, to), whole subtrees, into `sizes` (0 for them
 * on entry): children come after their parent, so sizes add up from the last row back. The first
 * row's parent, if any, is outside and left alone.
 */
function addSizes(rows: readonly Row[], from: number, to: number, sizes: Int32Array): void {
  for (let r = to - 1; r >= from; r--) {
    const row = rows[r]!;
    sizes[row.node]! += 1;
    if (r > from && row.parentNode >= 0) sizes[row.parentNode]! += sizes[row.node]!;
  }
}

/** The end (exclusive) of the rows of the subtree at row `at` of `state`. */
export function subtreeEnd(state: RowsState, at: number): number {
  if (state.sizes !== null) return at + state.sizes[state.rows[at]!.node]!;
  // Without the subtree sizes: the subtree ends at the first later row outside it.
  const rows = state.rows;
  const rowOfNode = state.rowOfNode;
  let end = at + 1;
  // A row is inside when its visible parent's row is (parents come first).
  while (end < rows.length) {
    const parent = rows[end]!.parentNode;
    if (parent < 0 || rowOfNode[parent]! < at) break;
    end++;
  }
  return end;
}

/**
 * The subtree sizes of the nodes of rows [from, to) of `state`, one subtree, in a scratch array
 * (valid for those nodes only, until the next call): a jump between neighbours needs no more.
 */
function sizesWithin(work: JumpWork, state: RowsState, from: number, to: number): Int32Array {
  if (work.sizes.length < state.rowOfNode.length)
    work.sizes = new Int32Array(withHeadroom(state.rowOfNode.length));
  const sizes = work.sizes;
  const rows = state.rows;
  for (let r = from; r < to; r++) sizes[rows[r]!.node] = 0;
  addSizes(rows, from, to, sizes);
  return sizes;
}

const OLD_PATH = 1;
const NEW_PATH = 2;

/**
 * The visible children of `parent` (-1: the visible roots) in the new depth-first order, as old
 * row indices, into `order`: a walk down through hidden entries, the new active child first.
 */
function visibleChildrenInOrder(
  tree: ViewTree,
  parent: number,
  rowOfNode: Int32Array,
  newPathMark: number,
): void {
  const { order, walk, pathMarks } = tree.work.jump;
  order.length = 0;
  walk.length = 0;
  const roots = tree.rootIndices();
  /** The children of `node` (-1: the roots) onto the walk, the new active child on top. */
  const pushChildren = (node: number) => {
    let active = -1;
    for (let i = (node < 0 ? roots.length : tree.childCountAt(node)) - 1; i >= 0; i--) {
      const child = node < 0 ? roots[i]! : tree.childAt(node, i);
      if ((pathMarks[child]! & ~OLD_PATH) === newPathMark) active = child;
      else walk.push(child);
    }
    if (active >= 0) walk.push(active);
  };
  pushChildren(parent);
  while (walk.length > 0) {
    const node = walk.pop()!;
    const row = rowOfNode[node]!;
    if (row >= 0) order.push(row);
    else pushChildren(node);
  }
}

/**
 * The rows of `previous` with the leaf moved to `leaf`, or null when the move changes which entries
 * are visible (then only a full computation is exact).
 */
export function rowsAfterJump(
  tree: ViewTree,
  previous: RowsState,
  leaf: number,
  reuse: ReuseCache | undefined,
): RowsState | null {
  const { mode, tokens, passes, multipleRoots } = previous;
  const before = previous.rowOfNode;
  const oldLeaf = previous.leaf;
  // The leaf is shown whenever it passes as the leaf; any other entry by its bit.
  if (oldLeaf >= 0 && before[oldLeaf]! >= 0 !== (passes[oldLeaf] === 1)) return null;
  if (leaf >= 0) {
    const entry = tree.entryAt(leaf);
    if (
      before[leaf]! >= 0 !==
      (passesFilter(entry, mode, true, tree.foldedArchiveAt(leaf)) && matchesQuery(entry, tokens))
    )
      return null;
  }

  const count = tree.size;
  const work = tree.work.jump;
  if (work.pathMarks.length < count) {
    work.pathMarks = new Int32Array(withHeadroom(count));
    work.stamp = 0;
  }
  if (work.stamp > 0x3ffffff0) {
    work.pathMarks.fill(0);
    work.stamp = 0;
  }
  work.stamp += 4;
  const { pathMarks, stamp, stackRow, stackLast, stackChain, flips, order } = work;
  const oldMark = stamp | OLD_PATH;
  const newMark = stamp | NEW_PATH;
  const bothMark = stamp | OLD_PATH | NEW_PATH;
  for (let node = oldLeaf; node >= 0; node = tree.parentIndexAt(node)) pathMarks[node] = oldMark;
  for (let node = leaf; node >= 0; node = tree.parentIndexAt(node))
    pathMarks[node] = pathMarks[node] === oldMark ? bothMark : newMark;
  let leafPosition = leaf;
  while (leafPosition >= 0 && before[leafPosition]! < 0) leafPosition = tree.parentIndexAt(leafPosition);

  const oldRows = previous.rows;
  const total = oldRows.length;
  flips.length = 0;
  // Above the deepest entry on both paths every fork keeps its active child, so only the rows of
  // that entry's subtree (of its nearest visible ancestor's, if it is hidden) can change: the rows
  // before and after it stay where and what they are. A jump to a neighbouring entry is then
  // O(its subtree) instead of O(the path).
  let common = leaf;
  while (common >= 0 && pathMarks[common] !== bothMark) common = tree.parentIndexAt(common);
  while (common >= 0 && before[common]! < 0) common = tree.parentIndexAt(common);
  const commonRow = common < 0 ? -1 : before[common]!;
  // The subtree sizes of every row are counted once per visible tree and handed on; without them,
  // a small common subtree counts its own (after a live append or a filter change, the next jump
  // was an O(rows) pass first).
  const commonEnd = commonRow < 0 ? total : subtreeEnd(previous, commonRow);
  const sizes =
    previous.sizes ??
    (commonEnd - commonRow > total / 2
      ? sizesOf(previous)
      : sizesWithin(work, previous, commonRow, commonEnd));
  // Rows outside the common subtree keep their places: the old rows copied at once (one block
  // copy, where a loop over a new array was ~2 ms at 200,000 rows), and those inside are written
  // over. The node → row map stays the previous one, shared, until a row changes place: a jump
  // along one branch moves none, and copying the map (~800 KB at 200,000 entries) cost 4–9 ms on a
  // machine where memory touched for the first time is slow (bench/README.md). Neither array is
  // ever written once its result is made, so sharing it is safe.
  const rows = oldRows.slice() as Row[];
  let after = before;
  const place = (node: number, row: number) => {
    if (after === before) {
      rowsWork.jumpMapCopies++;
      after = before.slice();
    }
    after[node] = row;
  };
  let written = 0;
  const copy = (from: number, to: number) => {
    const shift = written - from;
    if (shift !== 0) {
      for (let r = from; r < to; r++) {
        const row = oldRows[r]!;
        rows[r + shift] = row;
        place(row.node, r + shift);
      }
    }
    written += to - from;
  };
  const onPath = (node: number) => pathMarks[node]! > stamp;
  const isNewPath = (node: number) => (pathMarks[node]! & ~OLD_PATH) === newMark;

  // Pushes the visible children of `parent` in their new order, last on top.
  const pushChildren = (parent: number, chain: GutterLink | null, expected: number): boolean => {
    visibleChildrenInOrder(tree, parent, before, newMark);
    const children = order.length;
    if (children !== expected) return false;
    for (let i = children - 1; i >= 0; i--) {
      stackRow.push(order[i]!);
      stackLast.push(i === children - 1);
      stackChain.push(chain);
    }
    return true;
  };

  stackRow.length = 0;
  stackLast.length = 0;
  stackChain.length = 0;
  if (commonRow >= 0) {
    copy(0, commonRow);
    const row = oldRows[commonRow]!;
    stackRow.push(commonRow);
    stackLast.push((row.bits & ROW_LAST) !== 0);
    stackChain.push(row.gutterChain);
  } else {
    let roots = 0;
    for (let r = 0; r < total; r += sizes[oldRows[r]!.node]!) roots++;
    if (!pushChildren(-1, null, roots)) return null;
  }
  while (stackRow.length > 0) {
    rowsWork.jumpRowsVisited++;
    const at = stackRow.pop()!;
    const isLast = stackLast.pop()!;
    const chain = stackChain.pop()!;
    const old = oldRows[at]!;
    const node = old.node;
    const flags =
      (old.bits & ~CHANGING) |
      (isLast ? ROW_LAST : 0) |
      (isNewPath(node) ? ROW_ACTIVE : 0) |
      (node === leaf ? ROW_LEAF : 0) |
      (node === leafPosition ? ROW_LEAF_POSITION : 0);
    let row = old;
    if (flags !== old.bits) {
      row = new Row(
        old.entry,
        old.indent,
        flags,
        chain,
        old.visibleParentId,
        old.visibleChildCount,
        node,
        old.parentNode,
      );
      if (reuse !== undefined) reuse.rows[node] = row;
    }
    rows[written] = row;
    if (written !== at) place(node, written);
    written++;
    const end = at + sizes[node]!;
    if (end === at + 1) continue;
    // The row right after a node with children is its first child, which holds the list it got.
    const childChain = oldRows[at + 1]!.gutterChain;
    // A node that draws a connector passes its own line on; it shows while the node is not last.
    if (drawsConnector(flags) && childChain!.show !== ((flags & ROW_LAST) === 0)) flips.push(childChain!);
    // Off both paths the order and the marks are unchanged, and the lists below are the same
    // objects (a flipped line is seen by every row that holds it): the rows below are copied.
    if (!onPath(node)) copy(at + 1, end);
    else if (!pushChildren(node, childChain, old.visibleChildCount)) return null;
  }
  if (commonRow >= 0) copy(commonEnd, total);
  if (written !== total) return null;
  flipLines(flips);

  const result: RowsState = {
    version: previous.version,
    size: previous.size,
    leaf,
    leafPosition,
    mode,
    tokens,
    passes,
    rows,
    rowOfNode: after,
    multipleRoots,
    index: new RowIndex(tree, rows, after),
    // The same visible tree: every subtree has as many rows as before (when they were all counted).
    sizes: previous.sizes,
  };
  return result;
}
