import { hierarchy, tree } from 'd3-hierarchy';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tidyTreeSteps } from './tidyTree';

interface Datum {
  index: number;
  children: Datum[];
}

/** d3-hierarchy's own layout of the forest (under a virtual root), as the graph used to call it. */
function d3X(parent: readonly number[], dx: number): number[] {
  const datums = parent.map((_, index): Datum => ({ index, children: [] }));
  const virtualRoot: Datum = { index: -1, children: [] };
  parent.forEach((p, i) => (p < 0 ? virtualRoot : datums[p]!).children.push(datums[i]!));
  const x = new Array<number>(parent.length).fill(NaN);
  tree<Datum>()
    .nodeSize([dx, 62])
    .separation((a, b) => (a.parent === b.parent ? 1 : 1.2))(hierarchy(virtualRoot, (d) => d.children))
    .each((n) => {
      if (n.data.index >= 0) x[n.data.index] = n.x;
    });
  return x;
}

function portX(parent: readonly number[], dx: number): number[] {
  const x = new Float64Array(parent.length);
  const steps = tidyTreeSteps(Int32Array.from(parent), x, dx, (same) => (same ? 1 : 1.2));
  while (!steps.next().done);
  return Array.from(x);
}

describe('tidyTreeSteps', () => {
  it('places a parent above the middle of its children, and cousins further apart than siblings', () => {
    expect(portX([-1, 0, 0], 10)).toEqual([0, -5, 5]);
    // Two cousins below two siblings: 1.2 × dx apart, which pushes the siblings apart too.
    expect(portX([-1, 0, 0, 1, 2], 10)).toEqual([0, -6, 6, -6, 6]);
    const x = portX([-1, 0, 0, 1, 1, 2, 2], 10);
    expect(x[4]! - x[3]!).toBe(10);
    expect(x[5]! - x[4]!).toBeCloseTo(12, 9);
  });

  it('gives exactly the x coordinates of d3-hierarchy on random forests', () => {
    const forest = fc
      .array(fc.record({ back: fc.nat(), root: fc.nat({ max: 9 }) }), { minLength: 1, maxLength: 120 })
      .map((specs) =>
        specs.map((s, i) => (i === 0 || s.root === 0 ? -1 : i - 1 - (s.back % Math.min(i, 6)))),
      );
    fc.assert(
      fc.property(forest, fc.constantFrom(184, 1, 0.7), (parent, dx) => {
        expect(portX(parent, dx)).toEqual(d3X(parent, dx));
      }),
      { numRuns: 500, seed: 20261201 },
    );
  });

  it('lays out 200,000 nodes in a chain and in a fan without deep recursion', () => {
    const chain = Array.from({ length: 200_000 }, (_, i) => i - 1);
    expect(portX(chain, 1).every((v) => v === 0)).toBe(true);
    const fan = Array.from({ length: 200_000 }, (_, i) => (i === 0 ? -1 : 0));
    const x = portX(fan, 1);
    expect(x[2]! - x[1]!).toBe(1);
    expect(x[0]).toBe((x[1]! + x[199_999]!) / 2);
  });
});
