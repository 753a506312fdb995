// Which characters each entry's searchable text holds, one 64-bit mask per entry, so that the first
// search keystroke (which tests every entry: docs/tree-and-context.md#search) decides most entries
// from two integers instead of reading their text. A token can occur in an entry only if all its
// characters do; a one-letter or one-digit token (the first keystroke) occurs exactly when its bit
// is set, since letters and digits each have a bit of their own. Other characters share the
// remaining bits, so for them a set bit only says "maybe" and the text is read as before.
// Made when the page is idle (prepareSearchMasks, a slice at a time), brought up to date after an
// append or a label change by masking only what changed; never used half made.

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

/** Adds the characters of `text` to the mask of `node`. */
function addText(masks: SearchMasks, node: number, text: string): void {
  let low = masks.low[node]!;
  let high = masks.high[node]!;
  for (let i = 0; i < text.length; i++) {
    const bit = bitOf(text.charCodeAt(i));
    if (bit < 32) low |= 1 << bit;
    else high |= 1 << (bit - 32);
  }
  masks.low[node] = low;
  masks.high[node] = high;
}

/** What matchesQuery reads of an entry: its search text and its label, lower-cased. */
function maskEntry(masks: SearchMasks, node: number, entry: ViewEntry): void {
  masks.low[node] = 0;
  masks.high[node] = 0;
  addText(masks, node, entry.search);
  if (entry.label) addText(masks, node, entry.label.toLowerCase());
}

interface SearchMasks {
  version: number;
  /** Entries masked so far, from node 0. */
  done: number;
  low: Int32Array;
  high: Int32Array;
}

const cache = new WeakMap<ViewTree, SearchMasks>();

function grown(array: Int32Array, size: number): Int32Array {
  if (array.length >= size) return array;
  const next = new Int32Array(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}

/** Internal, for tests: how many entries were masked. */
export const maskWork = { entries: 0 };

/**
 * Masks of `tree` as it is now, or null while they are not made yet. Entries appended or changed
 * since they were made are masked here (a live append: a handful).
 */
export function searchMasksOf(tree: ViewTree): { low: Int32Array; high: Int32Array } | null {
  const masks = cache.get(tree);
  if (masks === undefined) return null;
  if (masks.version !== tree.version) {
    const changed = tree.entriesChangedSince(masks.version);
    if (changed === null) {
      cache.delete(tree);
      return null;
    }
    for (const node of changed) if (node < masks.done) maskEntry(masks, node, tree.entryAt(node));
    masks.version = tree.version;
  }
  if (masks.done < tree.size) {
    // Appended since: mask them now if few, else leave it to the next idle preparation.
    if (tree.size - masks.done > 1024) return null;
    prepareSearchMasks(tree, () => false);
  }
  return masks.done === tree.size ? masks : null;
}

/**
 * Makes the masks of `tree`, working until `timeUp()` answers true (asked every 1,024 entries);
 * true once they are complete for the tree as it is now.
 */
export function prepareSearchMasks(tree: ViewTree, timeUp: () => boolean): boolean {
  let masks = cache.get(tree);
  if (masks !== undefined && masks.version !== tree.version) {
    const changed = tree.entriesChangedSince(masks.version);
    if (changed === null) masks = undefined;
    else {
      for (const node of changed) if (node < masks.done) maskEntry(masks, node, tree.entryAt(node));
      masks.version = tree.version;
    }
  }
  const size = tree.size;
  if (masks === undefined) {
    masks = { version: tree.version, done: 0, low: new Int32Array(size), high: new Int32Array(size) };
    cache.set(tree, masks);
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
