// Which characters each entry's searchable text holds, one 64-bit mask per entry, so that the first
// search keystroke (which tests every entry: docs/tree-and-context.md#search) decides most entries
// from two integers instead of reading their text. A token can occur in an entry only if all its
// characters do; a one-letter or one-digit token (the first keystroke) occurs exactly when its bit
// is set, since letters and digits each have a bit of their own. Other characters share the
// remaining bits, so for them a set bit only says "maybe" and the text is read as before.
// Made off the page's thread as a snapshot arrives (searchMaskColumns in the web app's snapshot
// worker, taken by addSearchMasks) or when the page is idle (prepareSearchMasks, a slice at a time);
// brought up to date after an append or a label change by masking only what changed. Half made,
// they decide the entries they cover and the others are read.

import type { ViewEntry } from './view-entry';
import type { ViewTree } from './view-tree';

/** Bits 0-25: a-z; 26-35: 0-9; 36-63: every other UTF-16 code unit, by its value modulo 28. */
function bitOf(code: number): number {
  if (code >= 97 && code <= 122) return code - 97;
  if (code >= 48 && code <= 57) return code - 48 + 26;
  return 36 + (code % 28);
}

/** The characters a token needs, as the two halves of a mask. */
export interface TokenMask {
  low: number;
  high: number;
  /** The mask alone decides the token: one character with a bit of its own (a letter or a digit). */
  exact: boolean;
}

export function tokenMask(token: string): TokenMask {
  let low = 0;
  let high = 0;
  for (let i = 0; i < token.length; i++) {
    const bit = bitOf(token.charCodeAt(i));
    if (bit < 32) low |= 1 << bit;
    else high |= 1 << (bit - 32);
  }
  return { low, high, exact: token.length === 1 && bitOf(token.charCodeAt(0)) < 36 };
}

/** One mask per entry, as the two halves of each; index n is the n-th entry. */
export interface SearchMaskColumns {
  low: Int32Array;
  high: Int32Array;
}

/** The two halves of each ASCII character's bit (the snapshot worker masks every text it brings). */
const ASCII_LOW = new Int32Array(128);
const ASCII_HIGH = new Int32Array(128);
for (let code = 0; code < 128; code++) {
  const bit = bitOf(code);
  if (bit < 32) ASCII_LOW[code] = 1 << bit;
  else ASCII_HIGH[code] = 1 << (bit - 32);
}

/** Adds the characters of `text` to the mask at `index`. */
function addText(masks: SearchMaskColumns, index: number, text: string): void {
  let low = masks.low[index]!;
  let high = masks.high[index]!;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 128) {
      low |= ASCII_LOW[code]!;
      high |= ASCII_HIGH[code]!;
    } else {
      // Past ASCII every bit is one of the shared ones (bitOf: 36 and up).
      high |= 1 << (bitOf(code) - 32);
    }
  }
  masks.low[index] = low;
  masks.high[index] = high;
}

/** What matchesQuery reads of an entry: its search text and its label, lower-cased. */
function maskEntry(masks: SearchMaskColumns, index: number, entry: ViewEntry): void {
  masks.low[index] = 0;
  masks.high[index] = 0;
  addText(masks, index, entry.search);
  if (entry.label) addText(masks, index, entry.label.toLowerCase());
}

/**
 * The masks of `entries`, in their order: what {@link addSearchMasks} takes once they are appended
 * to a tree. The web app's snapshot worker makes them off the page's thread.
 */
export function searchMaskColumns(entries: readonly ViewEntry[]): SearchMaskColumns {
  const columns = { low: new Int32Array(entries.length), high: new Int32Array(entries.length) };
  for (let i = 0; i < entries.length; i++) maskEntry(columns, i, entries[i]!);
  return columns;
}

export interface SearchMasks extends SearchMaskColumns {
  version: number;
  /** Entries masked so far, from node 0. */
  done: number;
}

function grown(array: Int32Array, size: number): Int32Array {
  if (array.length >= size) return array;
  const next = new Int32Array(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}

/** Internal, for tests: how many entries were masked on this thread. */
export const maskWork = { entries: 0 };

/**
 * The masks of `tree` brought up to date with the entries changed in place since they were made
 * (a label: a handful), or undefined when there are none or those changes are not known.
 */
function currentMasks(tree: ViewTree): SearchMasks | undefined {
  const masks = tree.work.searchMasks;
  if (masks === undefined || masks.version === tree.version) return masks;
  // An archive record changes the states of a branch, never its text: only replaced entries count.
  const changed = tree.changesSince(masks.version)?.entries ?? null;
  if (changed === null) {
    tree.work.searchMasks = undefined;
    return undefined;
  }
  for (const node of changed) if (node < masks.done) maskEntry(masks, node, tree.entryAt(node));
  masks.version = tree.version;
  return masks;
}

/**
 * Masks of `tree` as it is now, for its first `done` entries (those made so far), or null while
 * none are made. Entries appended since they were made are masked here if few (a live append).
 */
export function searchMasksOf(tree: ViewTree): { low: Int32Array; high: Int32Array; done: number } | null {
  const masks = currentMasks(tree);
  if (masks === undefined) return null;
  // Appended since: mask them now if few, else leave them to the next idle preparation.
  if (masks.done < tree.size && tree.size - masks.done <= 1024) prepareSearchMasks(tree, () => false);
  return masks.done === 0 ? null : masks;
}

/**
 * Takes the masks of the entries from node `from` on, made elsewhere ({@link searchMaskColumns} of
 * the entries just appended, in the same order): kept when they end at the tree's end and continue
 * the masks made so far, else ignored (prepareSearchMasks makes them). An entry the tree dropped
 * (a repeated or empty id) leaves the tree shorter than `from` plus the columns: they would not
 * line up, and are refused. Answers whether they were kept.
 */
export function addSearchMasks(tree: ViewTree, from: number, columns: SearchMaskColumns): boolean {
  const count = columns.low.length;
  if (count === 0 || from + count !== tree.size) return false;
  let masks = currentMasks(tree);
  if (masks === undefined) {
    if (from !== 0) return false;
    masks = { version: tree.version, done: 0, low: new Int32Array(0), high: new Int32Array(0) };
    tree.work.searchMasks = masks;
  }
  if (masks.done !== from) return false;
  masks.low = grown(masks.low, from + count);
  masks.high = grown(masks.high, from + count);
  masks.low.set(columns.low, from);
  masks.high.set(columns.high, from);
  masks.done = from + count;
  return true;
}

/**
 * Makes the masks of `tree`, working until `timeUp()` answers true (asked every 1,024 entries);
 * true once they are complete for the tree as it is now.
 */
export function prepareSearchMasks(tree: ViewTree, timeUp: () => boolean): boolean {
  let masks = currentMasks(tree);
  const size = tree.size;
  if (masks === undefined) {
    masks = { version: tree.version, done: 0, low: new Int32Array(size), high: new Int32Array(size) };
    tree.work.searchMasks = masks;
  }
  masks.low = grown(masks.low, size);
  masks.high = grown(masks.high, size);
  for (let node = masks.done; node < size; node++) {
    if ((node & 1023) === 0 && node > masks.done && timeUp()) {
      masks.done = node;
      return false;
    }
    maskEntry(masks, node, tree.entryAt(node));
    maskWork.entries++;
  }
  masks.done = size;
  return true;
}
