// The row objects of `computeRows` and the id → row map of one result, shared by the full
// computation (flatten.ts) and the incremental one after a jump (jump.ts).

import type { FlatRow, Gutter } from './flatten';
import type { ViewEntry } from './view-entry';
import type { ViewTree } from './view-tree';

/**
 * Internal, for tests: how many depth-first traversals and subtree size passes were computed, how
 * many rows jumps looked at one by one (the rest they copied as blocks), how many jumps copied the
 * node → row map (the others moved no row and share it), and how many times the rows kept for
 * reuse between calls (flatten.ts) and the working arrays (work.ts) were sized again. Counters for tests only: they decide nothing.
 */
export const rowsWork = {
  traversals: 0,
  subtreeSizes: 0,
  jumpRowsVisited: 0,
  jumpMapCopies: 0,
  reuseGrowths: 0,
  scratchGrowths: 0,
};

export interface GutterLink {
  position: number;
  show: boolean;
  outer: GutterLink | null;
  depth: number;
}

export const ROW_SHOW_CONNECTOR = 1;
export const ROW_LAST = 2;
export const ROW_VIRTUAL_ROOT_CHILD = 4;
export const ROW_ACTIVE = 8;
export const ROW_LEAF = 16;
export const ROW_MULTIPLE_ROOTS = 32;
/** A layout bit of pass 2 that rows keep: a fork child, or one of several roots. */
export const NODE_JUST_BRANCHED = 64;
export const ROW_LEAF_POSITION = 128;

// A row keeps only what it cannot derive and answers the rest through getters: a filter change
// or a search keystroke builds one row per visible entry, so the row's size is what the garbage
// collector pays for. Gutters are shared linked lists turned into arrays only when a row's
// `gutters` is read: deeply nested forks would otherwise cost O(depth) memory for every row, and
// a UI only reads the rows it draws. A jump turns lines of those lists over in place (flipLines),
// so a row's gutters are those of the latest rows computed for its tree: a UI that keeps what it
// drew for a row object must compare the gutters (or the prefix drawn), not the row alone.
export class Row implements FlatRow {
  private materialized: readonly Gutter[] | undefined = undefined;
  /** The `lineFlips` count the materialized gutters were read at. */
  private materializedAt = 0;

  constructor(
    readonly entry: ViewEntry,
    readonly indent: number,
    /** Internal: the layout bits, compared when a later call reuses the row. */
    readonly bits: number,
    /** Internal: the shared gutter list, compared by identity when a later call reuses the row. */
    readonly gutterChain: GutterLink | null,
    readonly visibleParentId: string | null,
    readonly visibleChildCount: number,
    /** Internal: the entry's node index in the tree. */
    readonly node: number,
    /** Internal: the visible parent's node index, or -1. */
    readonly parentNode: number,
  ) {}

  /**
   * Is this row what a new one with these facts would be (so a later pass may keep it)? The visible
   * parent is compared by node index (node indices never change while a tree lives), which spares
   * the caller reading the parent's id for every row it keeps.
   */
  sameAs(
    entry: ViewEntry,
    indent: number,
    bits: number,
    gutterChain: GutterLink | null,
    parentNode: number,
    visibleChildCount: number,
  ): boolean {
    return (
      this.entry === entry &&
      this.indent === indent &&
      this.bits === bits &&
      this.gutterChain === gutterChain &&
      this.parentNode === parentNode &&
      this.visibleChildCount === visibleChildCount
    );
  }

  get id(): string {
    return this.entry.id;
  }

  get displayIndent(): number {
    return (this.bits & ROW_MULTIPLE_ROOTS) !== 0 ? Math.max(0, this.indent - 1) : this.indent;
  }

  get showConnector(): boolean {
    return (this.bits & ROW_SHOW_CONNECTOR) !== 0;
  }

  get isLast(): boolean {
    return (this.bits & ROW_LAST) !== 0;
  }

  get isVirtualRootChild(): boolean {
    return (this.bits & ROW_VIRTUAL_ROOT_CHILD) !== 0;
  }

  get onActivePath(): boolean {
    return (this.bits & ROW_ACTIVE) !== 0;
  }

  get isLeaf(): boolean {
    return (this.bits & ROW_LEAF) !== 0;
  }

  get isLeafPosition(): boolean {
    return (this.bits & ROW_LEAF_POSITION) !== 0;
  }

  get gutters(): readonly Gutter[] {
    if (this.materialized === undefined || this.materializedAt !== lineFlips) {
      this.materializedAt = lineFlips;
      const chain = this.gutterChain;
      const list: Gutter[] = new Array<Gutter>(chain === null ? 0 : chain.depth);
      for (let link = chain; link !== null; link = link.outer) {
        list[link.depth - 1] = { position: link.position, show: link.show };
      }
      this.materialized = list;
    }
    return this.materialized;
  }
}

/** Does a row with these layout bits draw a connector (and so pass a gutter line to its children)? */
export function drawsConnector(flags: number): boolean {
  return (flags & ROW_SHOW_CONNECTOR) !== 0 && (flags & ROW_VIRTUAL_ROOT_CHILD) === 0;
}

/**
 * How many times gutter lines were turned over, to know a materialized list is out of date. The
 * one module-level value of the rows computations, on purpose: a counter that only grows, shared
 * by every tree, makes a row of another tree materialize its gutters again at worst (never wrong),
 * and kept per tree it would cost every row a reference to its tree.
 */
let lineFlips = 0;

/** How many times gutter lines were turned over so far: rows kept aside are stale once it moves. */
export function lineFlipCount(): number {
  return lineFlips;
}

/**
 * Turns each line over (shown ↔ blank) in place, for every row that holds it: what a jump does when
 * a fork child stops or starts being the last of its siblings (jump.ts).
 */
export function flipLines(lines: readonly GutterLink[]): void {
  if (lines.length === 0) return;
  for (const line of lines) line.show = !line.show;
  lineFlips++;
}

/**
 * The gutter list a visible node with children passes to them: its own connector's line added to
 * the list it got (`chain`) when it draws a connector, else that list. `previous` (the list it
 * passed before) is returned when equal, so identity comparison of gutter lists stays exact.
 */
export function childChainOf(
  flags: number,
  level: number,
  multipleRoots: boolean,
  chain: GutterLink | null,
  previous: GutterLink | null | undefined,
): GutterLink | null {
  if (!drawsConnector(flags)) return chain;
  const displayIndent = multipleRoots ? Math.max(0, level - 1) : level;
  const position = Math.max(0, displayIndent - 1);
  const show = (flags & ROW_LAST) === 0;
  return previous != null &&
    previous.position === position &&
    previous.show === show &&
    previous.outer === chain
    ? previous
    : { position, show, outer: chain, depth: (chain === null ? 0 : chain.depth) + 1 };
}

/**
 * The id → row map of one rows result, answered through the tree's own id index and the row of
 * each node computed anyway: a `Map` of 200,000 ids cost ~100 ms per filter change, keystroke or
 * jump, and the web app reads it after every one. Node indices never change once assigned (the
 * tree only grows), so a result stays correct after later appends: their entries have no row here.
 */
export class RowIndex implements ReadonlyMap<string, number> {
  constructor(
    private readonly tree: ViewTree,
    private readonly rows: readonly FlatRow[],
    private readonly rowOfNode: Int32Array,
  ) {}

  get size(): number {
    return this.rows.length;
  }

  get(id: string): number | undefined {
    const node = this.tree.indexOf(id);
    if (node < 0 || node >= this.rowOfNode.length) return undefined;
    const row = this.rowOfNode[node]!;
    return row < 0 ? undefined : row;
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  // Iteration (in row order) is rare: it goes through a real map, built on first use.
  private iterable: Map<string, number> | undefined = undefined;

  private get map(): Map<string, number> {
    if (this.iterable === undefined) {
      const map = new Map<string, number>();
      const rows = this.rows;
      for (let r = 0; r < rows.length; r++) map.set(rows[r]!.id, r);
      this.iterable = map;
    }
    return this.iterable;
  }

  forEach(
    callback: (value: number, key: string, map: ReadonlyMap<string, number>) => void,
    thisArg?: unknown,
  ): void {
    const rows = this.rows;
    for (let r = 0; r < rows.length; r++) callback.call(thisArg, r, rows[r]!.id, this);
  }

  entries(): MapIterator<[string, number]> {
    return this.map.entries();
  }

  keys(): MapIterator<string> {
    return this.map.keys();
  }

  values(): MapIterator<number> {
    return this.map.values();
  }

  [Symbol.iterator](): MapIterator<[string, number]> {
    return this.map[Symbol.iterator]();
  }
}
