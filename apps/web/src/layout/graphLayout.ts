// Graph layout: a pure function from the visible tree to positioned graph nodes, plus a spatial index
// so that the renderer only touches what lies inside the viewport.
//
// Long linear runs (chains of single-child entries between two "key" nodes) are compressed into one
// run node, so that a 50,000-entry session with a few forks still shows its branch structure. A run is
// keyed by the id of its first member, which stays stable when entries are appended at the tip.

import { hierarchy, tree, type HierarchyPointNode } from 'd3-hierarchy';

/** The tree to lay out: visible roots and children, in display order. */
export interface GraphSource {
  readonly roots: readonly string[];
  children(id: string): readonly string[];
  /** Pinned entries are never hidden inside a run (labelled entries, for instance). */
  isPinned?(id: string): boolean;
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
  indexOfEntry: ReadonlyMap<string, number>;
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

interface Datum {
  index: number;
  children: Datum[];
}

/** Builds the compressed graph and lays it out with d3-hierarchy's tidy tree (fixed node size). */
export function layoutGraph(source: GraphSource, options: LayoutOptions = {}): GraphLayout {
  const minRun = options.minRun ?? DEFAULT_LAYOUT.minRun;
  const expanded = options.expandedRuns ?? new Set<string>();
  const nodeWidth = options.nodeWidth ?? DEFAULT_LAYOUT.nodeWidth;
  const nodeHeight = options.nodeHeight ?? DEFAULT_LAYOUT.nodeHeight;
  const dx = options.dx ?? DEFAULT_LAYOUT.dx;
  const dy = options.dy ?? DEFAULT_LAYOUT.dy;

  const nodes: GraphNode[] = [];
  const datums: Datum[] = [];
  const parentOf: number[] = [];
  const indexOfEntry = new Map<string, number>();
  const virtualRoot: Datum = { index: -1, children: [] };

  const isKey = (id: string, isRoot: boolean, parentChildCount: number): boolean =>
    isRoot || parentChildCount !== 1 || source.children(id).length !== 1 || (source.isPinned?.(id) ?? false);

  const addNode = (node: GraphNode, parent: number): number => {
    const index = nodes.length;
    nodes.push(node);
    parentOf.push(parent);
    const datum: Datum = { index, children: [] };
    datums.push(datum);
    if (parent < 0) virtualRoot.children.push(datum);
    else datums[parent]!.children.push(datum);
    return index;
  };

  // Iterative DFS: a 200,000-entry chain or fan-out must not overflow the stack.
  // Each stack item is a key entry and the drawn index of its parent.
  const stack: { id: string; parent: number; depth: number }[] = [];
  for (let r = source.roots.length - 1; r >= 0; r--)
    stack.push({ id: source.roots[r]!, parent: -1, depth: 0 });
  while (stack.length > 0) {
    const { id, parent, depth } = stack.pop()!;
    const self = addNode({ kind: 'entry', id, depth }, parent);
    indexOfEntry.set(id, self);
    const kids = source.children(id);
    const pending: { id: string; parent: number; depth: number }[] = [];
    for (const kid of kids) {
      // Walk the chain below this child until the next key node.
      const members: string[] = [];
      let current = kid;
      while (!isKey(current, false, members.length === 0 ? kids.length : 1)) {
        members.push(current);
        current = source.children(current)[0]!;
      }
      let attach = self;
      let nextDepth = depth + 1;
      if (members.length >= minRun && !expanded.has(members[0]!)) {
        attach = addNode({ kind: 'run', id: members[0]!, members, depth: nextDepth }, self);
        for (const member of members) indexOfEntry.set(member, attach);
        nextDepth += 1;
      } else {
        for (const member of members) {
          attach = addNode({ kind: 'entry', id: member, depth: nextDepth }, attach);
          indexOfEntry.set(member, attach);
          nextDepth += 1;
        }
      }
      pending.push({ id: current, parent: attach, depth: nextDepth });
    }
    for (let p = pending.length - 1; p >= 0; p--) stack.push(pending[p]!);
  }

  const count = nodes.length;
  const x = new Float64Array(count);
  const y = new Float64Array(count);
  const parent = Int32Array.from(parentOf);
  const bounds: Rect = { minX: 0, minY: 0, maxX: 0, maxY: 0 };

  if (count > 0) {
    const root = hierarchy<Datum>(virtualRoot, (d) => d.children);
    const laidOut = tree<Datum>()
      .nodeSize([dx, dy])
      .separation((a, b) => (a.parent === b.parent ? 1 : 1.2))(root);
    bounds.minX = Infinity;
    bounds.maxX = -Infinity;
    bounds.minY = Infinity;
    bounds.maxY = -Infinity;
    laidOut.each((n: HierarchyPointNode<Datum>) => {
      const i = n.data.index;
      if (i < 0) return;
      // The virtual root sits at depth 0, so drawn depths start at 1: shift them back up.
      x[i] = n.x;
      y[i] = (n.depth - 1) * dy;
      if (n.x < bounds.minX) bounds.minX = n.x;
      if (n.x > bounds.maxX) bounds.maxX = n.x;
      if (y[i]! < bounds.minY) bounds.minY = y[i]!;
      if (y[i]! > bounds.maxY) bounds.maxY = y[i]!;
    });
    bounds.minX -= nodeWidth / 2;
    bounds.maxX += nodeWidth / 2;
    bounds.minY -= nodeHeight / 2;
    bounds.maxY += nodeHeight / 2;
  }

  const byDepth = buildDepthIndex(y, dy);
  const busesByDepth = buildBuses(parent, x, y, dy, byDepth.length);
  return { nodes, x, y, parent, indexOfEntry, bounds, nodeWidth, nodeHeight, dy, byDepth, busesByDepth };
}

function depthOf(yValue: number, dy: number): number {
  return Math.round(yValue / dy);
}

function buildDepthIndex(y: Float64Array, dy: number): Int32Array[] {
  const buckets: number[][] = [];
  for (let i = 0; i < y.length; i++) {
    const d = depthOf(y[i]!, dy);
    (buckets[d] ??= []).push(i);
  }
  const result: Int32Array[] = [];
  for (let d = 0; d < buckets.length; d++) result.push(Int32Array.from(buckets[d] ?? []));
  return result;
}

function buildBuses(
  parent: Int32Array,
  x: Float64Array,
  y: Float64Array,
  dy: number,
  depths: number,
): Bus[][] {
  const byParent = new Map<number, Bus>();
  for (let i = 0; i < parent.length; i++) {
    const p = parent[i]!;
    if (p < 0) continue;
    const bus = byParent.get(p);
    if (bus === undefined)
      byParent.set(p, { parent: p, minX: Math.min(x[i]!, x[p]!), maxX: Math.max(x[i]!, x[p]!) });
    else {
      if (x[i]! < bus.minX) bus.minX = x[i]!;
      if (x[i]! > bus.maxX) bus.maxX = x[i]!;
    }
  }
  const result: Bus[][] = Array.from({ length: depths }, () => []);
  for (const bus of byParent.values()) result[depthOf(y[bus.parent]!, dy)]?.push(bus);
  for (const list of result) list.sort((a, b) => a.minX - b.minX);
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
