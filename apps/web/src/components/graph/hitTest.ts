// Which node is under a point of the graph's box: the point is taken back through the view's
// transform into layout coordinates and looked up in the layout's spatial index.

import { nodesInRect, type GraphLayout } from '../../layout/graphLayout';
import { rectBetween, screenRectToLayout } from '../../layout/selectionRect';
import type { Transform } from '../../layout/viewport';

/** The layout index of the node under (x, y), in pixels of the graph's box, if there is one. */
export function nodeAtPoint(layout: GraphLayout, t: Transform, x: number, y: number): number | undefined {
  const point = { x, y };
  return nodesInRect(layout, screenRectToLayout(rectBetween(point, point), t))[0];
}
