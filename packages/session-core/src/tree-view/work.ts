// What the rows computations keep between calls for one tree, in one object the tree owns
// (`ViewTree.work`), so nothing of it lives at module level: two trees on one page never share or
// overwrite each other's, and a call site sees where it is (`tree.work`). Two views of one tree
// share it; every cache in it is checked against its inputs (the tree's version, the leaf, the
// filter and query), so a second view costs recomputation, never wrong rows.
//
// - Caches of results: the last traversal (flatten.ts), the rows and gutter links kept for reuse,
//   the last rows and the default view's last rows, the filter classes and query bits
//   (visibility.ts) and the search masks (search-masks.ts).
// - Working arrays of the full pass (flatten.ts), the pass over an appended subtree (append.ts) and
//   a jump (jump.ts), kept because allocating arrays of the tree's size on every filter change,
//   keystroke and jump made the garbage collector a large share of each at 200,000 entries, and
//   memory touched for the first time is itself slow (~5 ms per MB on the machine of
//   bench/README.md). One computation runs at a time per tree: computeRows never re-enters itself,
//   a live append's pass runs inside it, and a pass made in steps (prepareRows) gives up when
//   computeRows runs on the same tree between two of its steps (`calls`).

import type { ReuseCache, RowsState } from './jump';
import { rowsWork, type GutterLink } from './row';
import type { SearchMasks } from './search-masks';
import type { VisibilityCache } from './visibility';

/**
 * The size to allocate for `count` elements, with room for the entries a live session appends a
 * few at a time: sized exactly, the first pass after every append allocated every array again
 * (seven of them, ~5.6 MB at 200,000 entries: 28 ms of the first live append in node).
 */
export function withHeadroom(count: number): number {
  return count + Math.max(1024, count >> 3);
}

export const SCRATCH_STACK = 0;
export const SCRATCH_NEAREST = 1;
export const SCRATCH_VISIBLE_PARENT = 2;
export const SCRATCH_SIBLING_POSITION = 3;
export const SCRATCH_CHILD_COUNT = 4;
export const SCRATCH_VISIBLE = 5;
export const SCRATCH_INDENT = 6;

/** The last depth-first traversal (flatten.ts). */
export interface TraversalCache {
  version: number;
  leaf: number;
  /** Node indices in depth-first order, the active child first at every fork. */
  order: Int32Array;
  /** 1 for nodes on the path from the leaf to its root. */
  onActive: Uint8Array;
}

/** A jump's working arrays (jump.ts), kept between calls (a jump never re-enters itself). */
export interface JumpWork {
  /** Subtree sizes of a few rows' nodes (sizesWithin). */
  sizes: Int32Array;
  /** Marks of the nodes on the old and the new active path, by call stamp, so they need no clearing. */
  pathMarks: Int32Array;
  stamp: number;
  stackRow: number[];
  stackLast: boolean[];
  stackChain: (GutterLink | null)[];
  walk: number[];
  /** The gutter lines whose `show` the jump turns over, once it is sure to answer. */
  flips: GutterLink[];
  order: number[];
}

export class TreeWork {
  traversal: TraversalCache | undefined = undefined;
  /** Rows and gutter links reused from the previous call (flatten.ts). */
  reuse: ReuseCache | undefined = undefined;
  /** The last rows computed: a leaf-only change derives from them (jump.ts), a selection-only one reuses them. */
  lastRows: RowsState | undefined = undefined;
  /** The default view's last rows, kept while another view is shown (flatten.ts). */
  lastDefaultRows: { state: RowsState; flips: number } | undefined = undefined;
  visibility: VisibilityCache | undefined = undefined;
  searchMasks: SearchMasks | undefined = undefined;
  /** computeRows calls on this tree: a stepped pass gives up when one runs between its steps. */
  calls = 0;
  /** The marks of an appended subtree's pass (append.ts), by call stamp. */
  appendMarks = new Int32Array(0);
  appendStamp = 0;
  readonly jump: JumpWork = {
    sizes: new Int32Array(0),
    pathMarks: new Int32Array(0),
    stamp: 0,
    stackRow: [],
    stackLast: [],
    stackChain: [],
    walk: [],
    flips: [],
    order: [],
  };
  private readonly intArrays: Int32Array[] = [];
  private byteArray = new Uint8Array(0);

  /** Working array `slot` with room for `count` elements; its contents are left over from earlier calls. */
  ints(slot: number, count: number): Int32Array {
    let array = this.intArrays[slot];
    if (array === undefined || array.length < count) {
      rowsWork.scratchGrowths++;
      array = new Int32Array(withHeadroom(count));
      this.intArrays[slot] = array;
    }
    return array;
  }

  /** The working byte array, with room for `count` elements; its contents are left over too. */
  bytes(count: number): Uint8Array {
    if (this.byteArray.length < count) {
      rowsWork.scratchGrowths++;
      this.byteArray = new Uint8Array(withHeadroom(count));
    }
    return this.byteArray;
  }
}
