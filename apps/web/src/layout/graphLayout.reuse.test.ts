import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  computeGraphLayout,
  GraphLayouter,
  type GraphLayout,
  type IndexedGraphSource,
  type LayoutOptions,
} from './graphLayout';

/** A forest given as each entry's parent (an earlier entry, or -1), numbered through `numbering`. */
function numberedSource(
  parents: readonly number[],
  pinned: readonly boolean[],
  numbering: readonly number[],
) {
  const n = parents.length;
  const ids = new Array<string>(n);
  for (let i = 0; i < n; i++) ids[numbering[i]!] = `e${i}`;
  const kids: number[][] = Array.from({ length: n }, () => []);
  const roots: number[] = [];
  // Children in entry order (file order), whatever the numbering.
  for (let i = 0; i < n; i++) {
    const parent = parents[i]!;
    if (parent < 0) roots.push(numbering[i]!);
    else kids[numbering[parent]!]!.push(numbering[i]!);
  }
  const childStart = new Int32Array(n + 1);
  for (let k = 0; k < n; k++) childStart[k + 1] = childStart[k]! + kids[k]!.length;
  const childList = new Int32Array(childStart[n]!);
  for (let k = 0; k < n; k++) childList.set(kids[k]!, childStart[k]!);
  const pins = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (pinned[i]) pins[numbering[i]!] = 1;
  const number = new Map(ids.map((id, k) => [id, k]));
  const source: IndexedGraphSource = {
    ids,
    roots: Int32Array.from(roots),
    childStart,
    childList,
    pinned: pins,
    indexOf: (id) => number.get(id) ?? -1,
  };
  return source;
}

function comparable(layout: GraphLayout, ids: readonly string[]) {
  return {
    nodes: layout.nodes,
    x: Array.from(layout.x),
    y: Array.from(layout.y),
    parent: Array.from(layout.parent),
    sourceIndex: Array.from(layout.sourceIndex),
    bounds: layout.bounds,
    byDepth: layout.byDepth.map((d) => Array.from(d)),
    buses: layout.busesByDepth,
    entries: [...ids, 'missing'].map((id) => layout.indexOfEntry.get(id)),
  };
}

const forestArb = fc
  .array(fc.record({ parent: fc.nat(), root: fc.boolean(), pinned: fc.boolean() }), {
    minLength: 1,
    maxLength: 60,
  })
  .map((specs) =>
    specs.map((spec, i) => ({
      // Mostly chains and forks below earlier entries, so runs form.
      parent: i === 0 || (spec.root && spec.parent % 5 === 0) ? -1 : i - 1 - (spec.parent % Math.min(i, 3)),
      pinned: spec.pinned && spec.parent % 7 === 0,
    })),
  );

describe('GraphLayouter reuse', () => {
  it('equals a fresh layout for every call: the same tree in any numbering, or a changed tree, pins or options', () => {
    const stepArb = fc.record({
      shuffle: fc.array(fc.nat(), { minLength: 60, maxLength: 60 }),
      flipPin: fc.option(fc.nat({ max: 59 }), { nil: undefined }),
      minRun: fc.constantFrom(2, 3),
      expand: fc.boolean(),
    });
    fc.assert(
      fc.property(forestArb, fc.array(stepArb, { minLength: 1, maxLength: 6 }), (forest, steps) => {
        const parents = forest.map((f) => f.parent);
        const pinned = forest.map((f) => f.pinned);
        const n = forest.length;
        // One graph view's layouter across the steps: each call may reuse the previous drawing.
        const layouter = new GraphLayouter();
        for (const step of steps) {
          if (step.flipPin !== undefined) pinned[step.flipPin % n] = !pinned[step.flipPin % n];
          // A permutation of 0…n-1 from random keys.
          const numbering = new Array<number>(n);
          Array.from({ length: n }, (_, i) => i)
            .sort((a, b) => step.shuffle[a]! - step.shuffle[b]! || a - b)
            .forEach((entry, k) => (numbering[entry] = k));
          const source = numberedSource(parents, pinned, numbering);
          const options: LayoutOptions = {
            minRun: step.minRun,
            expandedRuns: new Set(step.expand ? ['e1', 'e5'] : []),
          };
          expect(comparable(layouter.layout(source, options), source.ids)).toEqual(
            comparable(computeGraphLayout(source, options), source.ids),
          );
        }
      }),
      { numRuns: 200, seed: 20261201 },
    );
  });

  it('returns the previous drawing for the same tree renumbered, with lookups in the new numbering', () => {
    const parents = [-1, 0, 1, 2, 3, 1, 5];
    const pinned = parents.map(() => false);
    const first = numberedSource(parents, pinned, [0, 1, 2, 3, 4, 5, 6]);
    const second = numberedSource(parents, pinned, [6, 5, 4, 3, 2, 1, 0]);
    const layouter = new GraphLayouter();
    const a = layouter.layout(first);
    const b = layouter.layout(second);
    expect(b.x).toBe(a.x);
    expect(b.nodes).toBe(a.nodes);
    expect(Array.from(b.sourceIndex)).toEqual(Array.from(a.sourceIndex).map((k) => 6 - k));
    expect(b.indexOfEntry.get('e6')).toBe(a.indexOfEntry.get('e6'));
  });
});
