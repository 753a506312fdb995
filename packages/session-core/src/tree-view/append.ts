// The rows after a few appended entries (a live append, usually with the leaf moved onto it) and a
// few entries changed in place (a label, an archive record's target and the branch under it), from
// the rows before: every change sits in the subtree of a visible entry whose own visibility stays
// (for the appends and the leaf move, the lowest one above them all; for an entry changed in place,
// the entry itself when it stays shown, else the one above it), so only those subtrees' rows are
// computed again, with pi's rules as in flatten.ts (docs/tree-and-context.md#rows), each from its
// entry's own row; the rows around them are copied. A folded archived branch is skipped whole
// (every entry of it below its stub is hidden), so archiving a branch of 79,000 entries walks none
// of them. Exactly the rows of a full `computeRows`, which the property tests check (jump.test.ts,
// append.test.ts); anything else (a new root, an earlier orphan adopted, a leaf mark outside the
// subtrees, too many changes) returns null and the caller computes in full.

import { ARCHIVE_INSIDE, ARCHIVE_ROOT } from './archive-state';
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
/** More entries changed in place than this are computed in full. */
const MAX_CHANGED = 16;
/**
 * Subtrees walking more nodes than this together are computed in full: a full pass builds its
 * rows over typed arrays and reuses every row object it can, faster per node than this walk (a
 * restored branch of 79,000 entries took 3 to 10 times a full pass of the 200,000-entry tree here).
 */
const MAX_WALKED = 4096;

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

/** What every subtree computed again shares: the new leaf, its marks, and which entries show. */
interface Change {
  tree: ViewTree;
  leaf: number;
  leafPosition: number;
  passes: Uint8Array;
  reuse: ReuseCache | undefined;
  shown: (node: number) => boolean;
  /** The stamp of the new active path in the marks. */
  active: number;
  /** Nodes below this were in the tree before (the first state's size). */
  oldSize: number;
}

/**
 * The rows of `previous` on the tree grown and changed since (and the leaf at `leaf`), or null
 * when the change is not one this function derives exactly (see the top of the file).
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
  if (count < oldSize || count - oldSize > MAX_APPENDED) return null;
  const changes = tree.changesSince(previous.version);
  if (changes === null) return null;
  const changedRoots = [...new Set([...changes.entries, ...changes.subtrees])].filter(
    (node) => node < oldSize,
  );
  if (changedRoots.length > MAX_CHANGED) return null;
  if (count === oldSize && changedRoots.length === 0) return null;
  const { mode, tokens } = previous;
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
  const wasShown = (node: number) => node < oldSize && before[node]! >= 0;
  /** Shown before and after, and not moved: its row keeps its place, its subtree may be computed again. */
  const stays = (node: number) => wasShown(node) && shown(node);
  /** The first entry at or above `node` that stays shown, or -1. */
  const stayingFrom = (node: number) => {
    let at = node;
    while (at >= 0 && !stays(at)) at = tree.parentIndexAt(at);
    return at;
  };
  const { marks } = arraysFor(tree.work, count);

  // The subtrees to compute again. The appends and the leaf move make one: the lowest entry above
  // every appended entry and both leaves (strictly above those whose visibility may change), then
  // up to the first entry that stays shown.
  const anchors: number[] = [];
  {
    const starts: number[] = [];
    for (let node = oldSize; node < count; node++) starts.push(tree.parentIndexAt(node));
    if (oldLeaf !== leaf)
      for (const node of [oldLeaf, leaf])
        starts.push(node >= oldSize || wasShown(node) !== shown(node) ? tree.parentIndexAt(node) : node);
    if (starts.length > 0) {
      // Ancestors of the first, each marked with the stamp; the anchor is the highest meeting point.
      const first = nextStamp(tree.work);
      for (let at = starts[0]!; at >= 0; at = tree.parentIndexAt(at)) marks[at] = first;
      let anchor = starts[0]!;
      for (let i = 1; i < starts.length; i++) {
        let at = starts[i]!;
        while (at >= 0 && marks[at] !== first) at = tree.parentIndexAt(at);
        if (at < 0) return null;
        // The meeting point is an ancestor of the first start; keep the higher of the two.
        if (isWithin(tree, anchor, at)) anchor = at;
      }
      anchor = stayingFrom(anchor);
      if (anchor < 0) return null;
      anchors.push(anchor);
    }
  }
  // An entry changed in place: itself if it stays shown (its subtree holds every change of an
  // archive record), else the first entry above it that does.
  for (const node of changedRoots) {
    const anchor = stayingFrom(node);
    if (anchor < 0) return null;
    anchors.push(anchor);
  }
  // One subtree inside another is computed with it.
  const outer = [...new Set(anchors)].filter(
    (anchor) => !anchors.some((other) => other !== anchor && isWithin(tree, anchor, other)),
  );

  let leafPosition = leaf;
  while (leafPosition >= 0 && !shown(leafPosition)) leafPosition = tree.parentIndexAt(leafPosition);
  const oldLeafPosition = previous.leafPosition;
  const inside = (node: number) => outer.some((anchor) => isWithin(tree, node, anchor));
  if (
    oldLeafPosition !== leafPosition &&
    ((oldLeafPosition >= 0 && !inside(oldLeafPosition)) || (leafPosition >= 0 && !inside(leafPosition)))
  )
    return null;

  // Active path marks of the new leaf.
  const active = nextStamp(tree.work);
  for (let node = leaf; node >= 0; node = tree.parentIndexAt(node)) marks[node] = active;

  const change: Change = { tree, leaf, leafPosition, passes, reuse, shown, active, oldSize };
  const segments: Segment[] = [];
  let walked = 0;
  for (const anchor of outer) {
    const segment = subtreeAgain(change, previous, anchor, MAX_WALKED - walked);
    if (segment === null) return null;
    walked += segment.walked;
    segments.push(segment);
  }
  return splice(tree, previous, segments, { leaf, leafPosition, passes });
}

/** The rows of one anchor's subtree computed again: they replace rows [at, end) of the state before. */
interface Segment {
  at: number;
  end: number;
  rows: Row[];
  /** Nodes the walk visited. */
  walked: number;
}

/** The rows before with each segment's rows in place of the old ones: one copy of the rest. */
function splice(
  tree: ViewTree,
  previous: RowsState,
  segments: Segment[],
  next: Pick<RowsState, 'leaf' | 'leafPosition' | 'passes'>,
): RowsState {
  segments.sort((a, b) => a.at - b.at);
  const count = tree.size;
  const oldRows = previous.rows;
  const before = previous.rowOfNode;
  const after = new Int32Array(count);
  after.set(before.subarray(0, Math.min(before.length, count)));
  after.fill(-1, before.length);
  let total = oldRows.length;
  for (const segment of segments) total += segment.rows.length - (segment.end - segment.at);
  const rows = new Array<Row>(total);
  let to = 0;
  let from = 0;
  const copyUpTo = (end: number) => {
    const shift = to - from;
    for (; from < end; from++, to++) {
      const row = oldRows[from]!;
      rows[to] = row;
      if (shift !== 0) after[row.node] = to;
    }
  };
  for (const segment of segments) {
    copyUpTo(segment.at);
    for (let r = segment.at; r < segment.end; r++) after[oldRows[r]!.node] = -1;
    for (const row of segment.rows) {
      rows[to] = row;
      after[row.node] = to++;
    }
    from = segment.end;
  }
  copyUpTo(oldRows.length);
  return {
    ...previous,
    ...next,
    version: tree.version,
    size: count,
    rows,
    rowOfNode: after,
    index: new RowIndex(tree, rows, after),
    sizes: null,
  };
}

/**
 * The rows of `anchor`'s subtree computed again (its own row keeps its place), or null when the
 * walk would visit more than `budget` nodes.
 */
function subtreeAgain(change: Change, previous: RowsState, anchor: number, budget: number): Segment | null {
  const { tree, leaf, leafPosition, reuse, shown, active, oldSize } = change;
  const count = tree.size;
  const { multipleRoots } = previous;
  const before = previous.rowOfNode;
  const { nearest, visibleParent, siblingPosition, childCount, indent, layoutBits, marks } = arraysFor(
    tree.work,
    count,
  );

  // The anchor's subtree in depth-first order, the active child first at every fork. Below a folded
  // archived branch's stub every entry is hidden (but the leaf, if a program moved it there, and
  // the path to it): such a subtree is not walked.
  const order: number[] = [];
  const stack: number[] = [anchor];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const archived = tree.foldedArchiveAt(node);
    if (
      (archived & ARCHIVE_INSIDE) !== 0 &&
      (archived & ARCHIVE_ROOT) === 0 &&
      marks[node] !== active &&
      node !== anchor
    )
      continue;
    if (order.length >= budget) return null;
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
    // A row shown before, else the one this node had before it was hidden (a restored branch).
    const oldRow = node < before.length && before[node]! >= 0 ? oldRows[before[node]!] : undefined;
    let row = r === 0 ? anchorRow : (oldRow ?? (node < oldSize ? reuse?.rows[node] : undefined));
    if (row === undefined || !row.sameAs(entry, level, flags, chain, parentNode, children)) {
      const parentId = r === 0 ? anchorRow.visibleParentId : tree.entryAt(parentNode).id;
      row = new Row(entry, level, flags, chain, parentId, children, node, parentNode);
      if (reuse !== undefined && reuse.rows.length > node) reuse.rows[node] = row;
    }
    subtree.push(row);
  }

  return { at, end: ends, rows: subtree, walked: order.length };
}
