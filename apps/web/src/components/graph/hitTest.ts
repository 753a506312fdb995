// Which node is under a point of the graph's box: the screen point is taken back through the
// view's transform into layout coordinates and looked up in the layout's spatial index.

import { nodesInRect, type GraphLayout } from '../../layout/graphLayout';
import type { Transform } from '../../layout/viewport';

/** The layout index of the node under (x, y), in pixels of the graph's box, if there is one. */
export function nodeAtPoint(layout: GraphLayout, t: Transform, x: number, y: number): number | undefined {
  const lx = (x - t.tx) / t.k;
  const ly = (y - t.ty) / t.k;
  return nodesInRect(layout, { minX: lx, maxX: lx, minY: ly, maxY: ly })[0];
}
