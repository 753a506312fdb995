import { describe, expect, it } from 'vitest';
import {
  busesInRect,
  computeGraphLayout,
  GraphLayouter,
  graphLayoutSteps,
  indexGraphSource,
  layoutGraph,
  nodesInRect,
  type GraphLayout,
  type GraphSource,
} from './graphLayout';
import { TIDY_SLICE } from './tidyTree';

function sourceFrom(edges: [string, string | null][], pinned: string[] = []): GraphSource {
  const children = new Map<string, string[]>();
  const roots: string[] = [];
  for (const [id, parent] of edges) {
    children.set(id, children.get(id) ?? []);
    if (parent === null) roots.push(id);
    else {
      const list = children.get(parent) ?? [];
      list.push(id);
      children.set(parent, list);
    }
  }
  const pins = new Set(pinned);
  return { roots, children: (id) => children.get(id) ?? [], isPinned: (id) => pins.has(id) };
}

function chain(n: number, prefix = 'n'): [string, string | null][] {
  const edges: [string, string | null][] = [];
  for (let i = 0; i < n; i++) edges.push([`${prefix}${i}`, i === 0 ? null : `${prefix}${i - 1}`]);
  return edges;
}

describe('layoutGraph', () => {
  it('compresses the inside of a linear chain into one run node between its ends', () => {
    const layout = layoutGraph(sourceFrom(chain(10)));
    expect(layout.nodes.map((n) => (n.kind === 'run' ? `run(${n.members.length})` : n.id))).toEqual([
      'n0',
      'run(8)',
      'n9',
    ]);
    expect(layout.indexOfEntry.get('n5')).toBe(1);
    expect(layout.indexOfEntry.get('n9')).toBe(2);
    expect(Array.from(layout.parent)).toEqual([-1, 0, 1]);
  });

  it('draws chains shorter than the minimum run in full', () => {
    const layout = layoutGraph(sourceFrom(chain(4)), { minRun: 3 });
    expect(layout.nodes.map((n) => n.kind)).toEqual(['entry', 'entry', 'entry', 'entry']);
  });

  it('expands a run when its first member is in expandedRuns', () => {
    const layout = layoutGraph(sourceFrom(chain(10)), { expandedRuns: new Set(['n1']) });
    expect(layout.nodes).toHaveLength(10);
    expect(layout.nodes.every((n) => n.kind === 'entry')).toBe(true);
    expect(layout.y[9]).toBe(9 * layout.dy);
  });

  it('keeps forks, branch heads, tips and pinned entries as their own nodes', () => {
    // r → a → b → c → d → fork; fork → x1 → x2 → x3 → x4 ; fork → y1 ; b pinned
    const edges: [string, string | null][] = [
      ['r', null],
      ['a', 'r'],
      ['b', 'a'],
      ['c', 'b'],
      ['d', 'c'],
      ['e', 'd'],
      ['fork', 'e'],
      ['x1', 'fork'],
      ['x2', 'x1'],
      ['x3', 'x2'],
      ['x4', 'x3'],
      ['x5', 'x4'],
      ['y1', 'fork'],
    ];
    const layout = layoutGraph(sourceFrom(edges, ['b']));
    const shown = layout.nodes.map((n) => (n.kind === 'run' ? `run:${n.members.join(',')}` : n.id));
    expect(shown).toEqual(['r', 'a', 'b', 'run:c,d,e', 'fork', 'x1', 'run:x2,x3,x4', 'x5', 'y1']);
  });

  it('lays out siblings side by side at the same depth and children below their parent', () => {
    const layout = layoutGraph(
      sourceFrom([
        ['r', null],
        ['a', 'r'],
        ['b', 'r'],
      ]),
    );
    const [r, a, b] = [0, 1, 2];
    expect(layout.y[a]).toBe(layout.y[b]);
    expect(layout.y[a]! - layout.y[r]!).toBe(layout.dy);
    expect(layout.x[a]).toBeLessThan(layout.x[b]!);
    expect(layout.x[r]).toBeCloseTo((layout.x[a]! + layout.x[b]!) / 2);
  });

  it('places several roots side by side under an undrawn virtual root', () => {
    const layout = layoutGraph(
      sourceFrom([
        ['r1', null],
        ['r2', null],
      ]),
    );
    expect(layout.nodes).toHaveLength(2);
    expect(Array.from(layout.parent)).toEqual([-1, -1]);
    expect(layout.y[0]).toBe(0);
    expect(layout.y[1]).toBe(0);
    expect(layout.x[0]).not.toBe(layout.x[1]);
  });

  it('lays out a 200,000-entry chain and a 200,000-entry fan-out without recursion', () => {
    const longChain = layoutGraph(sourceFrom(chain(200_000)));
    expect(longChain.nodes).toHaveLength(3);
    const fan: [string, string | null][] = [['root', null]];
    for (let i = 0; i < 200_000; i++) fan.push([`c${i}`, 'root']);
    const fanLayout = layoutGraph(sourceFrom(fan));
    expect(fanLayout.nodes).toHaveLength(200_001);
    expect(fanLayout.byDepth[1]).toHaveLength(200_000);
  });

  it('lays out in slices to the end: every pass over the nodes offers to yield once per slice', () => {
    const n = 200_000;
    const fan: [string, string | null][] = [['root', null]];
    for (let i = 0; i < n; i++) fan.push([`c${i}`, 'root']);
    const steps = graphLayoutSteps(indexGraphSource(sourceFrom(fan)));
    let yields = 0;
    let next = steps.next();
    for (; next.done !== true; next = steps.next()) yields++;
    // The tree walk, the tidy tree's three passes, the depths, the two of the depth index and the
    // buses' own: seven passes of n / TIDY_SLICE slices each. Before, the last four ran unsliced,
    // one task of ~50 ms at 500,000 entries that a live append or a keystroke waited behind.
    expect(yields).toBeGreaterThanOrEqual(7 * Math.floor(n / TIDY_SLICE));
    const { layout } = next.value;
    expect(layout.byDepth[1]).toHaveLength(n);
    // One bar under the root, from its leftmost child to its rightmost.
    const half = layout.nodeWidth / 2;
    expect(layout.busesByDepth[0]).toEqual([
      { parent: 0, minX: layout.bounds.minX + half, maxX: layout.bounds.maxX - half },
    ]);
  });

  it('returns an empty layout for an empty tree', () => {
    const layout = layoutGraph({ roots: [], children: () => [] });
    expect(layout.nodes).toHaveLength(0);
    expect(nodesInRect(layout, { minX: -1e9, minY: -1e9, maxX: 1e9, maxY: 1e9 })).toEqual([]);
  });
});

describe('nodesInRect and busesInRect', () => {
  const fan: [string, string | null][] = [['root', null]];
  for (let i = 0; i < 1000; i++) fan.push([`c${i}`, 'root']);
  const layout = layoutGraph(sourceFrom(fan));

  it('returns exactly the nodes whose boxes intersect the rectangle', () => {
    const mid = layout.indexOfEntry.get('c500')!;
    const cx = layout.x[mid]!;
    const cy = layout.y[mid]!;
    const found = nodesInRect(layout, { minX: cx - 1, maxX: cx + 1, minY: cy - 1, maxY: cy + 1 });
    expect(found).toEqual([mid]);
    const brute: number[] = [];
    const rect = { minX: cx - 1000, maxX: cx + 1000, minY: -10, maxY: cy + 5 };
    for (let i = 0; i < layout.nodes.length; i++) {
      const inX =
        layout.x[i]! + layout.nodeWidth / 2 >= rect.minX && layout.x[i]! - layout.nodeWidth / 2 <= rect.maxX;
      const inY =
        layout.y[i]! + layout.nodeHeight / 2 >= rect.minY &&
        layout.y[i]! - layout.nodeHeight / 2 <= rect.maxY;
      if (inX && inY) brute.push(i);
    }
    expect(nodesInRect(layout, rect).sort((a, b) => a - b)).toEqual(brute);
  });

  it('finds the connector bar of a parent whose children span the viewport although the parent is off screen', () => {
    const far = layout.indexOfEntry.get('c990')!;
    const rect = { minX: layout.x[far]! - 10, maxX: layout.x[far]! + 10, minY: 20, maxY: 40 };
    expect(busesInRect(layout, rect).map((b) => b.parent)).toEqual([0]);
  });
});

/** What a layout draws and where each entry is, comparable across lookups. */
function drawing(layout: GraphLayout, ids: readonly string[]) {
  const { nodes, x, y, parent, bounds } = layout;
  return { nodes, x, y, parent, bounds, at: ids.map((id) => layout.indexOfEntry.get(id)) };
}

describe('GraphLayouter', () => {
  it('keeps each view’s last layout: another view laying out meanwhile does not take it', () => {
    const first = new GraphLayouter();
    const second = new GraphLayouter();
    const shape = sourceFrom(chain(50));
    const laidOut = first.layout(shape);
    second.layout(sourceFrom(chain(30, 'm')));
    // The same structure again: the first view's drawing, reused (the same node list), and exact.
    const again = first.layout(sourceFrom(chain(50)));
    expect(again.nodes).toBe(laidOut.nodes);
    const ids = chain(50).map(([id]) => id);
    expect(drawing(again, ids)).toEqual(drawing(computeGraphLayout(sourceFrom(chain(50))), ids));
    const other = second.layout(sourceFrom(chain(30, 'm')));
    const otherIds = chain(30, 'm').map(([id]) => id);
    expect(drawing(other, otherIds)).toEqual(
      drawing(computeGraphLayout(sourceFrom(chain(30, 'm'))), otherIds),
    );
  });
});
