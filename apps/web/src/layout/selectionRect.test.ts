import { describe, expect, it } from 'vitest';
import { layoutGraph, type GraphSource } from './graphLayout';
import {
  entriesInRect,
  nodeInSelection,
  rectBetween,
  screenRectToLayout,
  selectionCoverage,
} from './selectionRect';

/** r → a → b, and r → x → y1 … y8 (a chain compressed into a run), x's branch after a's. */
function source(): GraphSource {
  const children: Record<string, string[]> = {
    r: ['a', 'x'],
    a: ['b'],
    x: ['y1'],
    y1: ['y2'],
    y2: ['y3'],
    y3: ['y4'],
    y4: ['y5'],
    y5: ['y6'],
    y6: ['y7'],
    y7: ['y8'],
  };
  return { roots: ['r'], children: (id) => children[id] ?? [], isPinned: () => false };
}

describe('selection rectangle', () => {
  it('spans two points in either order', () => {
    expect(rectBetween({ x: 30, y: 5 }, { x: 10, y: 25 })).toEqual({ minX: 10, minY: 5, maxX: 30, maxY: 25 });
  });

  it('maps screen pixels to layout coordinates through the view transform', () => {
    expect(
      screenRectToLayout({ minX: 20, minY: 40, maxX: 120, maxY: 240 }, { k: 2, tx: 20, ty: 40 }),
    ).toEqual({
      minX: 0,
      minY: 0,
      maxX: 50,
      maxY: 100,
    });
  });

  it('selects the entries of the nodes it touches, every member of a run among them', () => {
    const layout = layoutGraph(source());
    const a = layout.indexOfEntry.get('a')!;
    const run = layout.indexOfEntry.get('y3')!;
    expect(layout.nodes[run]!.kind).toBe('run');
    // A rectangle around a's node and the run's node (both one level below r or deeper).
    const rect = {
      minX: Math.min(layout.x[a]!, layout.x[run]!) - 1,
      maxX: Math.max(layout.x[a]!, layout.x[run]!) + 1,
      minY: layout.y[a]! - 1,
      maxY: layout.y[run]! + 1,
    };
    const ids = entriesInRect(layout, rect);
    expect(ids).toContain('a');
    expect(ids).toContain('b');
    const runNode = layout.nodes[run]!;
    if (runNode.kind !== 'run') throw new Error('y3 should be inside a run');
    expect(ids).toEqual(expect.arrayContaining([...runNode.members]));
    expect(ids).not.toContain('r');
  });

  it('a run is in the selection when any of its members is', () => {
    const layout = layoutGraph(source());
    const run = layout.indexOfEntry.get('y3')!;
    expect(nodeInSelection(layout, run, new Set(['y4']))).toBe(true);
    expect(nodeInSelection(layout, run, new Set(['a']))).toBe(false);
    expect(nodeInSelection(layout, layout.indexOfEntry.get('a')!, new Set())).toBe(false);
  });

  it('a run or a fold partly selected is partial, not wholly selected (issue 45)', () => {
    const layout = layoutGraph(source());
    const run = layout.indexOfEntry.get('y3')!;
    const members = layout.nodes[run]!.kind === 'run' ? [...layout.nodes[run]!.members] : [];
    expect(members.length).toBeGreaterThan(2);
    expect(selectionCoverage(layout, run, new Set(['y4']))).toBe('partial');
    expect(selectionCoverage(layout, run, new Set(members))).toBe('all');
    expect(selectionCoverage(layout, run, new Set(['a']))).toBeNull();
    // A folded node counts the entries its fold hides.
    const a = layout.indexOfEntry.get('a')!;
    const hidden = (id: string) => (id === 'a' ? ['b'] : undefined);
    expect(selectionCoverage(layout, a, new Set(['a']), hidden)).toBe('partial');
    expect(selectionCoverage(layout, a, new Set(['a', 'b']), hidden)).toBe('all');
    expect(selectionCoverage(layout, a, new Set(['b']), hidden)).toBe('partial');
  });
});
