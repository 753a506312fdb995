// Which entries pass a filter mode and a search, cached per tree version, so that the actions that
// keep both (a jump, a re-selection) test no entry again, and a search keystroke that narrows the
// query (the usual case while typing) tests only the entries the shorter query matched. Each entry
// is read once for all five filter modes (its filter class, filter.ts); a mode's bits are then one
// table lookup per entry.

import { classPasses, filterClass, FILTER_CLASS_COUNT, FILTER_MODES, type FilterMode } from './filter';
import { matchesQuery } from './search';
import { searchMasksOf, tokenMask } from './search-masks';
import type { ViewTree } from './view-tree';

interface QueryBits {
  tokens: readonly string[];
  /** 1 for entries whose label or search text holds every token. */
  bits: Uint8Array;
}

export interface VisibilityCache {
  version: number;
  size: number;
  /** The filter class of each entry before `classesDone` (all of them once a mode's bits are kept). */
  classes: Uint8Array;
  classesDone: number;
  /** Per mode: 1 for entries that pass it as a non-leaf entry (the leaf is the caller's one exception). */
  filters: Map<FilterMode, Uint8Array>;
  /** The latest queries, newest last: backspacing returns to one of them. */
  queries: QueryBits[];
  last: { mode: FilterMode; query: QueryBits | null; bits: Uint8Array } | null;
}

/** Per mode, 1 at each filter class that passes it as a non-leaf entry. */
const PASS_TABLES = new Map<FilterMode, Uint8Array>(
  FILTER_MODES.map((mode) => {
    const table = new Uint8Array(FILTER_CLASS_COUNT);
    for (let bits = 0; bits < FILTER_CLASS_COUNT; bits++)
      table[bits] = classPasses(bits, mode, false) ? 1 : 0;
    return [mode, table];
  }),
);

/** Enough for backspacing over a typed word without scanning again; each costs one byte per entry. */
const QUERY_HISTORY = 8;

/** Internal, for tests: how many kept filter bits a change to the tree brought up to date. */
export const visibilityWork = { filterCatchUps: 0 };

function sameTokens(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Whatever `narrower` matches, `broader` matches too when each token of `broader` is a substring of
 * some token of `narrower`: the text holding that token holds its substrings.
 */
function refines(narrower: readonly string[], broader: readonly string[]): boolean {
  for (const token of broader) if (!narrower.some((other) => other.includes(token))) return false;
  return true;
}

function cacheOf(tree: ViewTree): VisibilityCache {
  let cache = tree.work.visibility;
  if (cache !== undefined && (cache.version !== tree.version || cache.size !== tree.size)) {
    const changes = tree.changesSince(cache.version);
    if (changes !== null && tree.size >= cache.size)
      catchUp(tree, cache, changes.entries, subtreeNodes(tree, changes.subtrees, cache.size));
    else cache = undefined;
  }
  if (cache === undefined) {
    cache = {
      version: tree.version,
      size: tree.size,
      classes: new Uint8Array(tree.size),
      classesDone: 0,
      filters: new Map(),
      queries: [],
      last: null,
    };
    tree.work.visibility = cache;
  }
  return cache;
}

/**
 * The nodes (below `size`) of the subtrees whose archive states changed: their filter classes may
 * differ, their text does not. An archived branch of 79,000 entries is 79,000 nodes here, still
 * cheaper than the 200,000 of the whole tree, and cheaper still than every cache starting over.
 */
function subtreeNodes(tree: ViewTree, roots: readonly number[], size: number): number[] {
  const nodes: number[] = [];
  for (const root of roots)
    tree.walkSubtree(root, (node) => {
      if (node >= size) return false;
      nodes.push(node);
      return true;
    });
  return nodes;
}

/**
 * Brings a cache up to date with a tree that grew and changed some entries in place (a live
 * append, a label, an archive record's branch): only the appended and changed entries are tested
 * again, for the filter in use and every query the cache holds (only the filter for the entries of
 * a branch whose archive state changed: `reclassed`), instead of the whole tree. The bits of the other filter modes
 * are dropped: made again from the filter classes when asked for (one table lookup per entry),
 * while keeping them was a new array of the tree's size per mode on every append (five of them
 * once the page has prepared every mode: ~1 MB of memory written for the first time per live
 * append at 200,000 entries).
 */
function catchUp(
  tree: ViewTree,
  cache: VisibilityCache,
  changed: readonly number[],
  reclassed: readonly number[],
): void {
  const from = cache.size;
  const count = tree.size;
  const update = (
    old: Uint8Array,
    passes: (node: number) => boolean,
    nodes: readonly number[] = changed,
  ): Uint8Array => {
    // A new array even when the size is the same: readers may hold the old one (and compare it).
    const bits = new Uint8Array(count);
    bits.set(old);
    for (let node = from; node < count; node++) bits[node] = passes(node) ? 1 : 0;
    for (const node of changed) bits[node] = passes(node) ? 1 : 0;
    if (nodes !== changed) for (const node of nodes) bits[node] = passes(node) ? 1 : 0;
    return bits;
  };
  if (count > cache.classes.length) {
    const classes = new Uint8Array(Math.max(count, cache.classes.length * 2));
    classes.set(cache.classes);
    cache.classes = classes;
  }
  const { classes } = cache;
  for (const list of [changed, reclassed])
    for (const node of list)
      if (node < cache.classesDone)
        classes[node] = filterClass(tree.entryAt(node), tree.foldedArchiveAt(node));
  // Complete before, complete after (kept filter bits are read from them); else the scan goes on later.
  if (cache.classesDone === from) {
    for (let node = from; node < count; node++)
      classes[node] = filterClass(tree.entryAt(node), tree.foldedArchiveAt(node));
    cache.classesDone = count;
  }
  const inUse = cache.last?.mode ?? 'default';
  for (const [mode, bits] of cache.filters) {
    if (mode !== inUse) {
      cache.filters.delete(mode);
      continue;
    }
    visibilityWork.filterCatchUps++;
    const table = PASS_TABLES.get(mode)!;
    cache.filters.set(
      mode,
      update(bits, (node) => table[classes[node]!] === 1, reclassed),
    );
  }
  for (const query of cache.queries)
    query.bits = update(query.bits, (node) => matchesQuery(tree.entryAt(node), query.tokens));
  // The combined bits are one AND away from the two above: computed again on the next read.
  cache.last = null;
  cache.version = tree.version;
  cache.size = count;
}

/** Internal, for tests: how many times the filter class of every entry was read from scratch. */
export const filterScans = { count: 0 };

/** Entries a scan in steps reads between two looks at its caller's clock. */
const ENTRIES_PER_CHECK = 4096;

/**
 * Reads the filter class of the entries not read yet, until done or until `timeUp` says to stop
 * (asked every few thousand entries); true once every entry's class is known.
 */
function readClasses(tree: ViewTree, cache: VisibilityCache, timeUp: (() => boolean) | null): boolean {
  const count = tree.size;
  const from = cache.classesDone;
  if (from === 0 && count > 0) filterScans.count++;
  const { classes } = cache;
  for (let node = from; node < count; node++) {
    if (timeUp !== null && node % ENTRIES_PER_CHECK === 0 && node > from && timeUp()) {
      cache.classesDone = node;
      return false;
    }
    classes[node] = filterClass(tree.entryAt(node), tree.foldedArchiveAt(node));
  }
  cache.classesDone = count;
  return true;
}

/**
 * The bits of `mode`, made now from the entries' classes if they are not kept yet (reading the
 * classes still unknown first); null when `timeUp` said to stop before the classes were all read.
 */
function filterBits(
  tree: ViewTree,
  cache: VisibilityCache,
  mode: FilterMode,
  timeUp: (() => boolean) | null = null,
): Uint8Array | null {
  const kept = cache.filters.get(mode);
  if (kept !== undefined) return kept;
  if (!readClasses(tree, cache, timeUp)) return null;
  const count = tree.size;
  const { classes } = cache;
  const table = PASS_TABLES.get(mode)!;
  const bits = new Uint8Array(count);
  for (let node = 0; node < count; node++) bits[node] = table[classes[node]!]!;
  cache.filters.set(mode, bits);
  return bits;
}

function queryBits(tree: ViewTree, cache: VisibilityCache, tokens: readonly string[]): QueryBits {
  const history = cache.queries;
  let base: QueryBits | null = null;
  for (let i = history.length - 1; i >= 0; i--) {
    const candidate = history[i]!;
    if (sameTokens(candidate.tokens, tokens)) {
      history.splice(i, 1);
      history.push(candidate);
      return candidate;
    }
    if (base === null && refines(tokens, candidate.tokens)) base = candidate;
  }
  const count = tree.size;
  const bits = new Uint8Array(count);
  const previous = base === null ? null : base.bits;
  const masks = searchMasksOf(tree);
  // Entries without a mask yet (none made, or appended since) are read.
  for (let node = masks === null ? 0 : masks.done; node < count; node++)
    if ((previous === null || previous[node] === 1) && matchesQuery(tree.entryAt(node), tokens))
      bits[node] = 1;
  if (masks !== null) {
    // Most entries are decided by their character masks alone (search-masks.ts): an entry that
    // matches holds every character of every token, and when each token is one letter or digit,
    // one that holds them all matches.
    const needed = tokens.map(tokenMask);
    const exact = needed.every((mask) => mask.exact);
    let neededLow = 0;
    let neededHigh = 0;
    for (const mask of needed) {
      neededLow |= mask.low;
      neededHigh |= mask.high;
    }
    const { low, high, done } = masks;
    for (let node = 0; node < done; node++) {
      if (previous !== null && previous[node] !== 1) continue;
      if ((low[node]! & neededLow) !== neededLow || (high[node]! & neededHigh) !== neededHigh) continue;
      if (exact || matchesQuery(tree.entryAt(node), tokens)) bits[node] = 1;
    }
  }
  const result: QueryBits = { tokens: [...tokens], bits };
  history.push(result);
  if (history.length > QUERY_HISTORY) history.shift();
  return result;
}

/**
 * Tests every entry against `mode`, so that the next visibleBits for it finds the answer kept
 * (see prepareRowsAhead in flatten.ts), working until `timeUp()` answers true (asked every few
 * thousand entries); true once the answer is kept. Leaves the cached combination with the query
 * as it is.
 */
export function prepareFilterBits(tree: ViewTree, mode: FilterMode, timeUp: () => boolean): boolean {
  return filterBits(tree, cacheOf(tree), mode, timeUp) !== null;
}

/**
 * 1 for each entry (by node index) that passes `mode` as a non-leaf entry and matches every token;
 * the leaf's own answer (`passesFilter(entry, mode, true)`) is the caller's to take. The array
 * belongs to the cache: read it, never write it.
 */
export function visibleBits(tree: ViewTree, mode: FilterMode, tokens: readonly string[]): Uint8Array {
  const cache = cacheOf(tree);
  const last = cache.last;
  if (
    last !== null &&
    last.mode === mode &&
    (last.query === null ? tokens.length === 0 : sameTokens(last.query.tokens, tokens))
  )
    return last.bits;
  const filter = filterBits(tree, cache, mode)!;
  let bits = filter;
  let query: QueryBits | null = null;
  if (tokens.length > 0) {
    query = queryBits(tree, cache, tokens);
    const matched = query.bits;
    bits = new Uint8Array(filter.length);
    for (let node = 0; node < bits.length; node++) bits[node] = filter[node]! & matched[node]!;
  }
  cache.last = { mode, query, bits };
  return bits;
}
