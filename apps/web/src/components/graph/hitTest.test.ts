import { describe, expect, it } from 'vitest';
import { layoutGraph } from '../../layout/graphLayout';
import { nodeAtPoint } from './hitTest';

const layout = layoutGraph({ roots: ['root'], children: (id) => (id === 'root' ? ['a', 'b'] : []) });
const t = { k: 0.5, tx: 300, ty: 40 };
const onScreen = (index: number) => [layout.x[index]! * t.k + t.tx, layout.y[index]! * t.k + t.ty] as const;

describe('nodeAtPoint', () => {
  it('finds the node whose box is under a point of the graph box, through the view transform', () => {
    for (const index of [0, 1, 2]) {
      const [x, y] = onScreen(index);
      expect(nodeAtPoint(layout, t, x, y)).toBe(index);
      // Inside the box near its right edge (the box is nodeWidth × k pixels wide).
      expect(nodeAtPoint(layout, t, x + (layout.nodeWidth / 2 - 1) * t.k, y)).toBe(index);
    }
  });

  it('finds nothing between the nodes', () => {
    const [x, y] = onScreen(0);
    expect(nodeAtPoint(layout, t, x, y + (layout.dy / 2) * t.k)).toBeUndefined();
  });
});
