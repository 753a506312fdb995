// The rows after a few appended entries (a live append, usually with the leaf moved onto it), from
// the rows before: every change sits in the subtree of one visible entry (the lowest visible
// entry above every appended entry and both leaves), so only that subtree's rows are computed
// again, with pi's rules as in flatten.ts (docs/tree-and-context.md#rows), from the entry's own row;
// the rows before and after it are copied. Exactly the rows of a full `computeRows`, which the
// property tests check (jump.test.ts); anything else (an entry changed in place, a new root, an
// earlier orphan adopted, a leaf mark outside the subtree) returns null and the caller computes
// in full.

import { passesFilter } from './filter';
import { subtreeEnd, type ReuseCache, type RowsState } from './jump';
import {
  childChainOf,
  NODE_JUST_BRANCHED,
  Row,
  RowIndex,
  ROW_ACTIVE,
  ROW_LAST,
  ROW_LEAF,
  ROW_LEAF_POSITION,
  ROW_MULTIPLE_ROOTS,
  ROW_SHOW_CONNECTOR,
  type GutterLink,
} from './row';
import {
  SCRATCH_CHILD_COUNT,
  SCRATCH_INDENT,
  SCRATCH_NEAREST,
  SCRATCH_SIBLING_POSITION,
  SCRATCH_VISIBLE_PARENT,
  withHeadroom,
  type TreeWork,
} from './work';
import { matchesQuery } from './search';
import type { ViewTree } from './view-tree';

/** More appended entries than this (a snapshot's part) are computed in full. */
const MAX_APPENDED = 64;

// Per-node working arrays, written for a node before they are read: the tree's working arrays
// (work.ts), which the full passes of the open have already made. The marks keep call stamps from
// one call to the next.
function arraysFor(work: TreeWork, count: number) {
  if (work.appendMarks.length < count) {
    work.appendMarks = new Int32Array(withHeadroom(count));
    work.appendStamp = 0;
  }
  return {
    nearest: work.ints(SCRATCH_NEAREST, count),
    visibleParent: work.ints(SCRATCH_VISIBLE_PARENT, count),
    siblingPosition: work.ints(SCRATCH_SIBLING_POSITION, count),
    childCount: work.ints(SCRATCH_CHILD_COUNT, count),
    indent: work.ints(SCRATCH_INDENT, count),
    layoutBits: work.bytes(count),
    marks: work.appendMarks,
  };
}

function nextStamp(work: TreeWork): number {
  if (work.appendStamp > 0x3ffffff0) {
    work.appendMarks.fill(0);
    work.appendStamp = 0;
  }
  return ++work.appendStamp;
}

/** Whether `node` is `ancestor` or below it. */
function isWithin(tree: ViewTree, node: number, ancestor: number): boolean {
  for (let at = node; at >= 0; at = tree.parentIndexAt(at)) if (at === ancestor) return true;
  return false;
}

/**
 * The rows of `previous` on the tree grown since (and the leaf at `leaf`), or null when the
 * change is not one this function derives exactly (see the top of the file).
 */
export function rowsAfterAppend(
  tree: ViewTree,
  previous: RowsState,
  leaf: number,
  passes: Uint8Array,
  reuse: ReuseCache | undefined,
): RowsState | null {
  const oldSize = previous.size;
  const count = tree.size;
  if (count <= oldSize || count - oldSize > MAX_APPENDED) return null;
  const changed = tree.entriesChangedSince(previous.version);
  if (changed === null || changed.length > 0) return null;
  const { mode, tokens, multipleRoots } = previous;
  const oldLeaf = previous.leaf;
  if (oldLeaf !== leaf && (oldLeaf < 0 || leaf < 0)) return null;
  for (let node = oldSize; node < count; node++) {
    if (tree.parentIndexAt(node) < 0) return null;
    for (let k = tree.childCountAt(node) - 1; k >= 0; k--) if (tree.childAt(node, k) < oldSize) return null;
  }
  const before = previous.rowOfNode;
  const shown = (node: number) => {
    if (node !== leaf) return passes[node] === 1;
    const entry = tree.entryAt(node);
    return passesFilter(entry, mode, true, tree.foldedArchiveAt(node)) && matchesQuery(entry, tokens);
  };

  // The anchor: the lowest entry above every appended entry and both leaves, strictly above those
  // whose visibility may change (appended entries, a leaf shown or hidden by the move) and at or
  // above the others; then up to the first entry visible before (and so after).
  const { nearest, visibleParent, siblingPosition, childCount, indent, layoutBits, marks } = arraysFor(
    tree.work,
    count,
  );
  let anchor = -1;
  {
    const starts: number[] = [];
    for (let node = oldSize; node < count; node++) starts.push(tree.parentIndexAt(node));
    if (oldLeaf !== leaf)
      for (const node of [oldLeaf, leaf])
        starts.push(node >= oldSize || before[node]! >= 0 !== shown(node) ? tree.parentIndexAt(node) : node);
    // Ancestors of the first, each marked with the stamp; the anchor is the highest meeting point.
    const first = nextStamp(tree.work);
    for (let at = starts[0]!; at >= 0; at = tree.parentIndexAt(at)) marks[at] = first;
    anchor = starts[0]!;
    for (let i = 1; i < starts.length; i++) {
      let at = starts[i]!;
      while (at >= 0 && marks[at] !== first) at = tree.parentIndexAt(at);
      if (at < 0) return null;
      // The meeting point is an ancestor of the first start; keep the higher of the two.
      if (isWithin(tree, anchor, at)) anchor = at;
    }
    while (anchor >= 0 && before[anchor]! < 0) anchor = tree.parentIndexAt(anchor);
    if (anchor < 0) return null;
  }
  let leafPosition = leaf;
  while (leafPosition >= 0 && !shown(leafPosition)) leafPosition = tree.parentIndexAt(leafPosition);
  const oldLeafPosition = previous.leafPosition;
  if (
    oldLeafPosition !== leafPosition &&
    ((oldLeafPosition >= 0 && !isWithin(tree, oldLeafPosition, anchor)) ||
      (leafPosition >= 0 && !isWithin(tree, leafPosition, anchor)))
  )
    return null;

  // Active path marks of the new leaf.
  const active = nextStamp(tree.work);
  for (let node = leaf; node >= 0; node = tree.parentIndexAt(node)) marks[node] = active;

  // The anchor's subtree in depth-first order, the active child first at every fork.
  const order: number[] = [];
  const stack: number[] = [anchor];
  while (stack.length > 0) {
    const node = stack.pop()!;
    order.push(node);
    let activeChild = -1;
    for (let i = tree.childCountAt(node) - 1; i >= 0; i--) {
      const child = tree.childAt(node, i);
      if (marks[child] === active) activeChild = child;
      else stack.push(child);
    }
    if (activeChild >= 0) stack.push(activeChild);
  }

  // Pass 1 over the subtree (flatten.ts): visibility, nearest visible ancestor, sibling positions.
  const visible: number[] = [anchor];
  nearest[anchor] = anchor;
  childCount[anchor] = 0;
  for (let k = 1; k < order.length; k++) {
    const node = order[k]!;
    const ancestor = nearest[tree.parentIndexAt(node)]!;
    if (shown(node)) {
      nearest[node] = node;
      visibleParent[node] = ancestor;
      siblingPosition[node] = childCount[ancestor]!++;
      childCount[node] = 0;
      visible.push(node);
    } else {
      nearest[node] = ancestor;
    }
  }

  // The anchor's own row: its place among its siblings is unchanged, its children may not be.
  const at = before[anchor]!;
  const oldRows = previous.rows;
  const anchorRow = oldRows[at]!;
  const ends = subtreeEnd(previous, at);
  const oldChildChain = ends > at + 1 ? oldRows[at + 1]!.gutterChain : undefined;
  const chainAt = new Map<number, GutterLink | null>();
  const subtree: Row[] = [];
  for (let r = 0; r < visible.length; r++) {
    const node = visible[r]!;
    let level: number;
    let flags: number;
    let chain: GutterLink | null;
    if (r === 0) {
      level = anchorRow.indent;
      flags = anchorRow.bits & ~(ROW_ACTIVE | ROW_LEAF | ROW_LEAF_POSITION);
      chain = anchorRow.gutterChain;
    } else {
      const parent = visibleParent[node]!;
      const siblings = childCount[parent]!;
      const parentLevel = indent[parent]!;
      flags = multipleRoots ? ROW_MULTIPLE_ROOTS : 0;
      if (siblings > 1) {
        level = parentLevel + 1;
        flags |= NODE_JUST_BRANCHED | ROW_SHOW_CONNECTOR;
      } else {
        level =
          (layoutBits[parent]! & NODE_JUST_BRANCHED) !== 0 && parentLevel > 0 ? parentLevel + 1 : parentLevel;
      }
      if (siblingPosition[node] === siblings - 1) flags |= ROW_LAST;
      chain = chainAt.get(parent) ?? null;
    }
    indent[node] = level;
    layoutBits[node] = flags;
    const children = childCount[node]!;
    if (children > 0) {
      const previousChain = r === 0 ? oldChildChain : reuse?.chains[node];
      const passed = childChainOf(flags, level, multipleRoots, chain, previousChain);
      chainAt.set(node, passed);
      if (reuse !== undefined && reuse.chains.length > node) reuse.chains[node] = passed;
    }
    if (marks[node] === active) flags |= ROW_ACTIVE;
    if (node === leaf) flags |= ROW_LEAF;
    if (node === leafPosition) flags |= ROW_LEAF_POSITION;
    const entry = tree.entryAt(node);
    const parentNode = r === 0 ? anchorRow.parentNode : visibleParent[node]!;
    let row = r === 0 ? anchorRow : node < oldSize ? oldRows[before[node]!] : undefined;
    if (row === undefined || !row.sameAs(entry, level, flags, chain, parentNode, children)) {
      const parentId = r === 0 ? anchorRow.visibleParentId : tree.entryAt(parentNode).id;
      row = new Row(entry, level, flags, chain, parentId, children, node, parentNode);
      if (reuse !== undefined && reuse.rows.length > node) reuse.rows[node] = row;
    }
    subtree.push(row);
  }

  // Splice: the rows before the anchor, its subtree, the rows after it.
  const total = oldRows.length - (ends - at) + subtree.length;
  const rows = new Array<Row>(total);
  const after = new Int32Array(count);
  after.set(before.subarray(0, Math.min(before.length, count)));
  after.fill(-1, oldSize);
  for (let r = 0; r < at; r++) rows[r] = oldRows[r]!;
  for (let r = at; r < ends; r++) after[oldRows[r]!.node] = -1;
  for (let i = 0; i < subtree.length; i++) {
    rows[at + i] = subtree[i]!;
    after[subtree[i]!.node] = at + i;
  }
  const shift = at + subtree.length - ends;
  for (let r = ends; r < oldRows.length; r++) {
    const row = oldRows[r]!;
    rows[r + shift] = row;
    if (shift !== 0) after[row.node] = r + shift;
  }
  return {
    version: tree.version,
    size: count,
    leaf,
    leafPosition,
    mode,
    tokens,
    passes,
    rows,
    rowOfNode: after,
    multipleRoots,
    index: new RowIndex(tree, rows, after),
    sizes: null,
  };
}
