// Graph layout: a pure function from the visible tree to positioned graph nodes, plus a spatial index
// so that the renderer only touches what lies inside the viewport. One file because the layout, its
// reuse and the spatial queries share the GraphLayout arrays and their private helpers.
//
// Long linear runs (chains of single-child entries between two "key" nodes) are compressed into one
// run node, so that a 50,000-entry session with a few forks still shows its branch structure. A run is
// keyed by the id of its first member, which stays stable when entries are appended at the tip.
//
// The layout of the same visible tree is reused: a jump reorders the rows (the active branch first)
// and so renumbers the source, but the graph draws children in file order, so its drawing is the
// same; laying out 200,000 entries again cost ~60-150 ms per jump, comparing the structure a few.
//
// A layout from scratch is also a resumable step function (`startGraphLayout`): at 500,000 entries
// it is far over one frame, so the graph runs it in slices between which the page stays responsive.

import { endsSlice, TIDY_SLICE, tidyTreeSteps } from './tidyTree';

/** The tree to lay out: visible roots and children, in display order. */
export interface GraphSource {
  readonly roots: readonly string[];
  children(id: string): readonly string[];
  /** Pinned entries are never hidden inside a run (labelled entries, for instance). */
  isPinned?(id: string): boolean;
}

/**
 * The same tree with entries numbered 0…n-1 and the children in flat arrays (CSR). Laying out
 * 50,000 visible entries through string-keyed maps cost ~30 ms; through typed arrays it is a few.
 */
export interface IndexedGraphSource {
  readonly ids: readonly string[];
  /** Root entries, in display order. */
  readonly roots: Int32Array;
  /** Children of entry i are childList[childStart[i] … childStart[i + 1]). Length n + 1. */
  readonly childStart: Int32Array;
  readonly childList: Int32Array;
  /** 1 for entries never hidden inside a run. */
  readonly pinned: Uint8Array;
  /** The number of an entry id, or -1 (for lookups by id after the layout). */
  indexOf(id: string): number;
}

/** Numbers a string-keyed source (iteratively; used for small trees and tests). */
export function indexGraphSource(source: GraphSource): IndexedGraphSource {
  const ids: string[] = [];
  const number = new Map<string, number>();
  const kids: number[][] = [];
  const pinnedList: number[] = [];
  const visit = (id: string): number => {
    const index = ids.length;
    ids.push(id);
    number.set(id, index);
    kids.push([]);
    pinnedList.push(source.isPinned?.(id) ? 1 : 0);
    return index;
  };
  const roots = source.roots.map(visit);
  for (let i = 0; i < ids.length; i++)
    for (const child of source.children(ids[i]!)) kids[i]!.push(visit(child));
  const childStart = new Int32Array(ids.length + 1);
  for (let i = 0; i < ids.length; i++) childStart[i + 1] = childStart[i]! + kids[i]!.length;
  const childList = new Int32Array(childStart[ids.length]!);
  for (let i = 0; i < ids.length; i++) childList.set(kids[i]!, childStart[i]!);
  return {
    ids,
    roots: Int32Array.from(roots),
    childStart,
    childList,
    pinned: Uint8Array.from(pinnedList),
    indexOf: (id) => number.get(id) ?? -1,
  };
}

/** Id → drawn node lookups (the node of a run for entries hidden in it). */
export interface EntryNodeLookup {
  get(id: string): number | undefined;
}

export interface LayoutOptions {
  /** Fewest hidden entries worth a run node; shorter chains are drawn in full. */
  minRun?: number;
  /** Runs the user expanded, by the id of their first member. */
  expandedRuns?: ReadonlySet<string>;
  nodeWidth?: number;
  nodeHeight?: number;
  /** Horizontal distance between sibling centres. */
  dx?: number;
  /** Vertical distance between depths. */
  dy?: number;
}

export type GraphNode =
  | { kind: 'entry'; id: string; depth: number }
  | { kind: 'run'; id: string; members: readonly string[]; depth: number };

export interface GraphLayout {
  nodes: readonly GraphNode[];
  x: Float64Array;
  y: Float64Array;
  /** Index of the drawn parent, -1 for roots. */
  parent: Int32Array;
  /** Every entry id → the index of the node that shows it (its run when it is hidden in one). */
  indexOfEntry: EntryNodeLookup;
  /**
   * Per node: the source number of its entry (the first member of a run), in the source it was
   * computed from; a layout kept or brought up to date by store/derived.ts is not renumbered.
   */
  sourceIndex: Int32Array;
  bounds: Rect;
  nodeWidth: number;
  nodeHeight: number;
  dy: number;
  /** Per depth: node indices sorted by x. */
  byDepth: readonly Int32Array[];
  /** Per depth: parents at that depth that have children, with their children's x span, sorted by x. */
  busesByDepth: readonly Bus[][];
}

export interface Bus {
  parent: number;
  minX: number;
  maxX: number;
}

export interface Rect {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

export const DEFAULT_LAYOUT = { minRun: 3, nodeWidth: 168, nodeHeight: 30, dx: 184, dy: 62 } as const;

type Settings = Required<Omit<LayoutOptions, 'expandedRuns'>> & { expanded: ReadonlySet<string> };

function settingsOf(options: LayoutOptions): Settings {
  return {
    minRun: options.minRun ?? DEFAULT_LAYOUT.minRun,
    expanded: options.expandedRuns ?? new Set<string>(),
    nodeWidth: options.nodeWidth ?? DEFAULT_LAYOUT.nodeWidth,
    nodeHeight: options.nodeHeight ?? DEFAULT_LAYOUT.nodeHeight,
    dx: options.dx ?? DEFAULT_LAYOUT.dx,
    dy: options.dy ?? DEFAULT_LAYOUT.dy,
  };
}

function sameSettings(a: Settings, b: Settings): boolean {
  if (a.minRun !== b.minRun || a.nodeWidth !== b.nodeWidth || a.nodeHeight !== b.nodeHeight) return false;
  if (a.dx !== b.dx || a.dy !== b.dy || a.expanded.size !== b.expanded.size) return false;
  for (const id of a.expanded) if (!b.expanded.has(id)) return false;
  return true;
}

/**
 * What the layout depends on, independent of how the source numbers its entries: the entries in
 * the order the layout walks them (roots, then each entry's children, depth first) with their
 * child count and pin. A preorder listing with child counts determines the tree.
 */
interface Structure {
  /** Source numbers in walk order. */
  order: Int32Array;
  /** Walk position of each source number. */
  position: Int32Array;
  ids: string[];
  childCounts: Int32Array;
  pinned: Uint8Array;
}

function structureOf(source: IndexedGraphSource): Structure {
  const { childStart, childList } = source;
  const n = source.ids.length;
  const order = new Int32Array(n);
  const position = new Int32Array(n).fill(-1);
  const stack: number[] = [];
  for (let r = source.roots.length - 1; r >= 0; r--) stack.push(source.roots[r]!);
  let written = 0;
  while (stack.length > 0 && written < n) {
    const entry = stack.pop()!;
    if (position[entry] !== -1) continue;
    position[entry] = written;
    order[written++] = entry;
    for (let k = childStart[entry + 1]! - 1; k >= childStart[entry]!; k--) stack.push(childList[k]!);
  }
  const walked = order.subarray(0, written);
  const ids = new Array<string>(written);
  const childCounts = new Int32Array(written);
  const pinned = new Uint8Array(written);
  for (let p = 0; p < written; p++) {
    const entry = walked[p]!;
    ids[p] = source.ids[entry]!;
    childCounts[p] = childStart[entry + 1]! - childStart[entry]!;
    pinned[p] = source.pinned[entry]!;
  }
  return { order: walked, position, ids, childCounts, pinned };
}

function sameStructure(a: Structure, b: Structure): boolean {
  const n = a.ids.length;
  if (n !== b.ids.length || a.position.length !== b.position.length) return false;
  for (let p = 0; p < n; p++) {
    if (a.childCounts[p] !== b.childCounts[p] || a.pinned[p] !== b.pinned[p] || a.ids[p] !== b.ids[p])
      return false;
  }
  return true;
}

function entryLookup(source: IndexedGraphSource, nodeOfEntry: Int32Array): EntryNodeLookup {
  return {
    get(id) {
      const entry = source.indexOf(id);
      if (entry < 0 || entry >= nodeOfEntry.length) return undefined;
      const node = nodeOfEntry[entry]!;
      return node < 0 ? undefined : node;
    },
  };
}

interface Computed {
  layout: GraphLayout;
  /** Per source number: the node that shows the entry, -1 if none. */
  nodeOfEntry: Int32Array;
}

/**
 * Lays out one graph view's graphs, one after another: it keeps the last layout to answer the same
 * structure again (a jump reorders the rows, not the graph). One per view (store/derived.ts makes
 * one per store), so two graphs on one page, a compare view say, never answer each other's.
 */
export class GraphLayouter {
  private previous: { settings: Settings; structure: Structure; computed: Computed } | null = null;

  /**
   * Builds the compressed graph and lays it out with d3-hierarchy's tidy tree (fixed node size; run
   * over typed arrays and resumable by tidyTree.ts, with d3's exact coordinates).
   * When the source has the structure of the previous call's (same entries, children and pins, in
   * any numbering) and the same options, the previous drawing is returned with the lookups of the
   * new numbering: the same result as laying it out again (`computeGraphLayout`).
   */
  layout(input: GraphSource | IndexedGraphSource, options: LayoutOptions = {}): GraphLayout {
    const source = 'childStart' in input ? input : indexGraphSource(input);
    const settings = settingsOf(options);
    const structure = structureOf(source);
    const previous = this.previous;
    if (
      previous !== null &&
      sameSettings(previous.settings, settings) &&
      sameStructure(previous.structure, structure)
    ) {
      const before = previous.structure;
      const old = previous.computed;
      // Source number in the old numbering → walk position → source number in the new one.
      const renumber = (entry: number) => structure.order[before.position[entry]!]!;
      const sourceIndex = old.layout.sourceIndex.map(renumber);
      const nodeOfEntry = new Int32Array(source.ids.length).fill(-1);
      for (let p = 0; p < before.order.length; p++) {
        nodeOfEntry[structure.order[p]!] = old.nodeOfEntry[before.order[p]!]!;
      }
      const layout: GraphLayout = {
        ...old.layout,
        sourceIndex,
        indexOfEntry: entryLookup(source, nodeOfEntry),
      };
      this.previous = { settings, structure, computed: { layout, nodeOfEntry } };
      return layout;
    }
    const computed = computeLayout(source, settings);
    this.previous = { settings, structure, computed };
    return computed.layout;
  }
}

/** One layout, with nothing kept between calls (a view that lays out again uses a GraphLayouter). */
export function layoutGraph(
  input: GraphSource | IndexedGraphSource,
  options: LayoutOptions = {},
): GraphLayout {
  return new GraphLayouter().layout(input, options);
}

/** The layout computed from scratch, never reused (what `layoutGraph` must equal). */
export function computeGraphLayout(
  input: GraphSource | IndexedGraphSource,
  options: LayoutOptions = {},
): GraphLayout {
  const source = 'childStart' in input ? input : indexGraphSource(input);
  return computeLayout(source, settingsOf(options)).layout;
}

function computeLayout(source: IndexedGraphSource, settings: Settings): Computed {
  return drain(layoutSteps(source, settings));
}

/** Runs a resumable step function to its end. */
export function drain<T>(steps: Generator<void, T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
  }
}

/**
 * A layout computed in slices: `step` runs slices until `shouldYield` answers true (asked after
 * each slice of about `TIDY_SLICE` nodes) and returns the result once it is complete. The result
 * equals `computeGraphLayout` of the same source and options.
 */
export interface GraphLayoutJob {
  step(shouldYield: () => boolean): { layout: GraphLayout; nodeOfEntry: Int32Array } | null;
}

export function startGraphLayout(source: IndexedGraphSource, options: LayoutOptions = {}): GraphLayoutJob {
  return stepsJob(graphLayoutSteps(source, options));
}

/** `computeGraphLayout` as a resumable step function, with the entry → node table of its numbering. */
export function graphLayoutSteps(
  source: IndexedGraphSource,
  options: LayoutOptions = {},
): Generator<void, { layout: GraphLayout; nodeOfEntry: Int32Array }> {
  return layoutSteps(source, settingsOf(options));
}

/** A job over any resumable step function: slices until told to yield, then the result. */
export function stepsJob<T>(steps: Generator<void, T>): { step(shouldYield: () => boolean): T | null } {
  let result: { value: T } | null = null;
  return {
    step(shouldYield) {
      while (result === null) {
        const next = steps.next();
        if (next.done === true) result = { value: next.value };
        else if (shouldYield()) return null;
      }
      return result.value;
    },
  };
}

/** The layout as a resumable step function: it yields after every slice of about TIDY_SLICE nodes. */
function* layoutSteps(source: IndexedGraphSource, settings: Settings): Generator<void, Computed> {
  const { minRun, expanded, nodeWidth, nodeHeight, dx, dy } = settings;
  const { ids, childStart, childList, pinned } = source;
  const nodes: GraphNode[] = [];
  const parentOf: number[] = [];
  const firstOf: number[] = [];
  const nodeOfEntry = new Int32Array(ids.length).fill(-1);

  const childCount = (i: number) => childStart[i + 1]! - childStart[i]!;
  const isKey = (i: number, parentChildCount: number): boolean =>
    parentChildCount !== 1 || childCount(i) !== 1 || pinned[i] === 1;

  // Nodes are numbered as they are made, each after its parent: the tidy tree relies on it.
  const addNode = (node: GraphNode, parent: number, first: number): number => {
    const index = nodes.length;
    nodes.push(node);
    parentOf.push(parent);
    firstOf.push(first);
    return index;
  };

  // Iterative DFS: a 200,000-entry chain or fan-out must not overflow the stack.
  // The stack holds key entries with the drawn index of their parent and their depth.
  const stackEntry: number[] = [];
  const stackParent: number[] = [];
  const stackDepth: number[] = [];
  for (let r = source.roots.length - 1; r >= 0; r--) {
    stackEntry.push(source.roots[r]!);
    stackParent.push(-1);
    stackDepth.push(0);
  }
  const pendingEntry: number[] = [];
  const pendingParent: number[] = [];
  const pendingDepth: number[] = [];
  let work = 0;
  while (stackEntry.length > 0) {
    const entry = stackEntry.pop()!;
    const parent = stackParent.pop()!;
    const depth = stackDepth.pop()!;
    const self = addNode({ kind: 'entry', id: ids[entry]!, depth }, parent, entry);
    nodeOfEntry[entry] = self;
    const start = childStart[entry]!;
    const end = childStart[entry + 1]!;
    const kidCount = end - start;
    pendingEntry.length = 0;
    pendingParent.length = 0;
    pendingDepth.length = 0;
    for (let k = start; k < end; k++) {
      // Walk the chain below this child until the next key entry.
      const firstMember = childList[k]!;
      let current = firstMember;
      let length = 0;
      while (!isKey(current, length === 0 ? kidCount : 1)) {
        length++;
        current = childList[childStart[current]!]!;
      }
      work += length + 1;
      let attach = self;
      let nextDepth = depth + 1;
      if (length >= minRun && !expanded.has(ids[firstMember]!)) {
        const members: string[] = new Array<string>(length);
        attach = nodes.length;
        for (let m = 0, at = firstMember; m < length; m++, at = childList[childStart[at]!]!) {
          members[m] = ids[at]!;
          nodeOfEntry[at] = attach;
        }
        addNode({ kind: 'run', id: ids[firstMember]!, members, depth: nextDepth }, self, firstMember);
        nextDepth += 1;
      } else {
        for (let m = 0, at = firstMember; m < length; m++, at = childList[childStart[at]!]!) {
          attach = addNode({ kind: 'entry', id: ids[at]!, depth: nextDepth }, attach, at);
          nodeOfEntry[at] = attach;
          nextDepth += 1;
        }
      }
      pendingEntry.push(current);
      pendingParent.push(attach);
      pendingDepth.push(nextDepth);
    }
    for (let p = pendingEntry.length - 1; p >= 0; p--) {
      stackEntry.push(pendingEntry[p]!);
      stackParent.push(pendingParent[p]!);
      stackDepth.push(pendingDepth[p]!);
    }
    if (work >= TIDY_SLICE) {
      work = 0;
      yield;
    }
  }
  const indexOfEntry = entryLookup(source, nodeOfEntry);

  const count = nodes.length;
  const x = new Float64Array(count);
  const y = new Float64Array(count);
  const parent = Int32Array.from(parentOf);
  const sourceIndex = Int32Array.from(firstOf);
  const bounds: Rect = { minX: 0, minY: 0, maxX: 0, maxY: 0 };
  // Each node's depth (its y is depth × dy): the depth index and the buses are grouped by it.
  const depth = new Int32Array(count);
  yield;

  if (count > 0) {
    yield* tidyTreeSteps(parent, x, dx, (sameParent) => (sameParent ? 1 : 1.2));
    bounds.minX = Infinity;
    bounds.maxX = -Infinity;
    bounds.minY = Infinity;
    bounds.maxY = -Infinity;
    for (let i = 0; i < count; i++) {
      // Parents are numbered before their children, so a parent's depth is known first.
      const p = parent[i]!;
      depth[i] = p < 0 ? 0 : depth[p]! + 1;
      y[i] = depth[i]! * dy;
      if (x[i]! < bounds.minX) bounds.minX = x[i]!;
      if (x[i]! > bounds.maxX) bounds.maxX = x[i]!;
      if (y[i]! < bounds.minY) bounds.minY = y[i]!;
      if (y[i]! > bounds.maxY) bounds.maxY = y[i]!;
      if (endsSlice(i)) yield;
    }
    bounds.minX -= nodeWidth / 2;
    bounds.maxX += nodeWidth / 2;
    bounds.minY -= nodeHeight / 2;
    bounds.maxY += nodeHeight / 2;
    yield;
  }

  const byDepth = yield* depthIndexSteps(depth);
  yield;
  const busesByDepth = yield* busSteps(parent, x, depth, byDepth.length);
  const layout: GraphLayout = {
    nodes,
    x,
    y,
    parent,
    indexOfEntry,
    sourceIndex,
    bounds,
    nodeWidth,
    nodeHeight,
    dy,
    byDepth,
    busesByDepth,
  };
  return { layout, nodeOfEntry };
}

/**
 * The nodes of each depth, in index order, a slice at a time. Counted first, then written into one
 * array per depth: at 500,000 entries, buckets grown by `push` and copied took one ~10 ms piece.
 */
function* depthIndexSteps(depth: Int32Array): Generator<void, Int32Array[]> {
  const count = depth.length;
  const sizes: number[] = [];
  for (let i = 0; i < count; i++) {
    const d = depth[i]!;
    while (sizes.length <= d) sizes.push(0);
    sizes[d]!++;
    if (endsSlice(i)) yield;
  }
  const result = sizes.map((size) => new Int32Array(size));
  const written = new Int32Array(sizes.length);
  for (let i = 0; i < count; i++) {
    const d = depth[i]!;
    result[d]![written[d]!++] = i;
    if (endsSlice(i)) yield;
  }
  return result;
}

/**
 * The connector bar under each parent (its children's span), grouped by the parent's depth and
 * sorted by `minX`, a slice at a time. Buses are found through an index by parent, in the order
 * their first child comes; a `Map` keyed by parent was one unsliced ~40 ms piece at 500,000 entries.
 */
function* busSteps(
  parent: Int32Array,
  x: Float64Array,
  depth: Int32Array,
  depths: number,
): Generator<void, Bus[][]> {
  const busOfParent = new Int32Array(parent.length).fill(-1);
  const buses: Bus[] = [];
  for (let i = 0; i < parent.length; i++) {
    const p = parent[i]!;
    if (p >= 0) {
      const at = busOfParent[p]!;
      if (at < 0) {
        busOfParent[p] = buses.length;
        buses.push({ parent: p, minX: Math.min(x[i]!, x[p]!), maxX: Math.max(x[i]!, x[p]!) });
      } else {
        const bus = buses[at]!;
        if (x[i]! < bus.minX) bus.minX = x[i]!;
        if (x[i]! > bus.maxX) bus.maxX = x[i]!;
      }
    }
    if (endsSlice(i)) yield;
  }
  const result: Bus[][] = Array.from({ length: depths }, () => []);
  for (let b = 0; b < buses.length; b++) {
    const bus = buses[b]!;
    result[depth[bus.parent]!]?.push(bus);
    if (endsSlice(b)) yield;
  }
  let sorted = 0;
  for (const list of result) {
    list.sort((a, b) => a.minX - b.minX);
    sorted += list.length;
    if (sorted >= TIDY_SLICE) {
      sorted = 0;
      yield;
    }
  }
  return result;
}

/** First index in a sorted list whose key is >= value. */
function lowerBound(length: number, key: (i: number) => number, value: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(mid) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Indices of the nodes whose box intersects the rectangle (layout coordinates). */
export function nodesInRect(layout: GraphLayout, rect: Rect): number[] {
  const out: number[] = [];
  const halfW = layout.nodeWidth / 2;
  const halfH = layout.nodeHeight / 2;
  const firstDepth = Math.max(0, Math.ceil((rect.minY - halfH) / layout.dy));
  const lastDepth = Math.min(layout.byDepth.length - 1, Math.floor((rect.maxY + halfH) / layout.dy));
  for (let d = firstDepth; d <= lastDepth; d++) {
    const row = layout.byDepth[d]!;
    let i = lowerBound(row.length, (k) => layout.x[row[k]!]!, rect.minX - halfW);
    for (; i < row.length; i++) {
      const index = row[i]!;
      if (layout.x[index]! - halfW > rect.maxX) break;
      out.push(index);
    }
  }
  return out;
}

/** Parents whose horizontal connector bar (at mid-height below them) crosses the rectangle. */
export function busesInRect(layout: GraphLayout, rect: Rect): Bus[] {
  const out: Bus[] = [];
  const firstDepth = Math.max(0, Math.floor(rect.minY / layout.dy) - 1);
  const lastDepth = Math.min(layout.busesByDepth.length - 1, Math.ceil(rect.maxY / layout.dy));
  for (let d = firstDepth; d <= lastDepth; d++) {
    const buses = layout.busesByDepth[d]!;
    // In a tidy tree the children spans of one depth do not overlap, so maxX is sorted as well.
    let i = lowerBound(buses.length, (k) => buses[k]!.maxX, rect.minX);
    for (; i < buses.length; i++) {
      const bus = buses[i]!;
      if (bus.minX > rect.maxX) break;
      out.push(bus);
    }
  }
  return out;
}
