// Working arrays of the rows computations (the full pass in flatten.ts, the pass over an appended
// subtree in append.ts, a jump in jump.ts), kept between calls and shared by them: allocating
// arrays of the tree's size on every filter change, keystroke and jump made the garbage collector
// a large share of each at 200,000 entries, and memory touched for the first time is itself slow
// (~5 ms per MB on the machine of bench/README.md). One computation runs at a time: computeRows
// never re-enters itself, a live append's pass runs inside it, and a pass made in steps
// (prepareRows) gives up when computeRows runs between two of its steps.

/**
 * The size to allocate for `count` elements, with room for the entries a live session appends a
 * few at a time: sized exactly, the first pass after every append allocated every array again
 * (seven of them, ~5.6 MB at 200,000 entries: 28 ms of the first live append in node).
 */
export function withHeadroom(count: number): number {
  return count + Math.max(1024, count >> 3);
}

import { rowsWork } from './row';

export const SCRATCH_STACK = 0;
export const SCRATCH_NEAREST = 1;
export const SCRATCH_VISIBLE_PARENT = 2;
export const SCRATCH_SIBLING_POSITION = 3;
export const SCRATCH_CHILD_COUNT = 4;
export const SCRATCH_VISIBLE = 5;
export const SCRATCH_INDENT = 6;

const scratchIntArrays: Int32Array[] = [];
let scratchByteArray = new Uint8Array(0);

/** Scratch array `slot` with room for `count` elements; its contents are left over from earlier calls. */
export function scratchInts(slot: number, count: number): Int32Array {
  let array = scratchIntArrays[slot];
  if (array === undefined || array.length < count) {
    rowsWork.scratchGrowths++;
    array = new Int32Array(withHeadroom(count));
    scratchIntArrays[slot] = array;
  }
  return array;
}

/** The scratch byte array, with room for `count` elements; its contents are left over too. */
export function scratchBytes(count: number): Uint8Array {
  if (scratchByteArray.length < count) {
    rowsWork.scratchGrowths++;
    scratchByteArray = new Uint8Array(withHeadroom(count));
  }
  return scratchByteArray;
}
