// The graph's selection rectangle: screen points → a layout-space rectangle → the entries of the
// nodes it touches (every member of a compressed run). Pure, so it is tested without a browser.

import { nodesInRect, type GraphLayout, type Rect } from './graphLayout';
import type { Transform } from './viewport';

export interface Point {
  x: number;
  y: number;
}

/** The rectangle spanned by two points, in either order. */
export function rectBetween(a: Point, b: Point): Rect {
  return {
    minX: Math.min(a.x, b.x),
    minY: Math.min(a.y, b.y),
    maxX: Math.max(a.x, b.x),
    maxY: Math.max(a.y, b.y),
  };
}

/** A rectangle in screen pixels (relative to the graph's box) in layout coordinates. */
export function screenRectToLayout(rect: Rect, t: Transform): Rect {
  return {
    minX: (rect.minX - t.tx) / t.k,
    minY: (rect.minY - t.ty) / t.k,
    maxX: (rect.maxX - t.tx) / t.k,
    maxY: (rect.maxY - t.ty) / t.k,
  };
}

/** Ids of the entries shown by the nodes the rectangle touches, in node order. */
export function entriesInRect(layout: GraphLayout, rect: Rect): string[] {
  const ids: string[] = [];
  for (const index of nodesInRect(layout, rect)) {
    const node = layout.nodes[index]!;
    if (node.kind === 'run') ids.push(...node.members);
    else ids.push(node.id);
  }
  return ids;
}

/** Whether a node shows an entry of the selection. */
/**
 * How much of a node the multi-entry selection holds: every entry (`all`), some (`partial`: a run or
 * a fold partly selected is drawn as such, not as wholly selected), or none (null). A folded node
 * counts the entries its fold hides (`foldedIds`, hidden rows under it) with it.
 */
export function selectionCoverage(
  layout: GraphLayout,
  index: number,
  selection: ReadonlySet<string>,
  foldedIds?: (id: string) => readonly string[] | undefined,
): 'all' | 'partial' | null {
  if (selection.size === 0) return null;
  const node = layout.nodes[index]!;
  const members = node.kind === 'run' ? node.members : [node.id, ...(foldedIds?.(node.id) ?? [])];
  let selected = 0;
  for (const id of members) if (selection.has(id)) selected++;
  return selected === 0 ? null : selected === members.length ? 'all' : 'partial';
}

export function nodeInSelection(layout: GraphLayout, index: number, selection: ReadonlySet<string>): boolean {
  if (selection.size === 0) return false;
  const node = layout.nodes[index]!;
  if (node.kind === 'run') return node.members.some((id) => selection.has(id));
  return selection.has(node.id);
}
