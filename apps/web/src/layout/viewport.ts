// Pan/zoom arithmetic for the graph view. A transform maps layout coordinates to screen pixels:
// screen = layout * k + (tx, ty).

import type { Rect } from './graphLayout';

export interface Transform {
  k: number;
  tx: number;
  ty: number;
}

export const MIN_SCALE = 0.001;
export const MAX_SCALE = 2.5;

export function clampScale(k: number): number {
  return Math.min(MAX_SCALE, Math.max(MIN_SCALE, k));
}

/** The part of the layout that is visible in a viewport of the given size. */
export function visibleRect(t: Transform, width: number, height: number): Rect {
  return {
    minX: -t.tx / t.k,
    minY: -t.ty / t.k,
    maxX: (width - t.tx) / t.k,
    maxY: (height - t.ty) / t.k,
  };
}

/** Zooms by `factor` keeping the layout point under the screen point (px, py) fixed. */
export function zoomAt(t: Transform, factor: number, px: number, py: number): Transform {
  const k = clampScale(t.k * factor);
  const lx = (px - t.tx) / t.k;
  const ly = (py - t.ty) / t.k;
  return { k, tx: px - lx * k, ty: py - ly * k };
}

export function panBy(t: Transform, dx: number, dy: number): Transform {
  return { k: t.k, tx: t.tx + dx, ty: t.ty + dy };
}

/** Centres the layout point (x, y) in the viewport at scale k. */
export function centerOn(x: number, y: number, width: number, height: number, k: number): Transform {
  const scale = clampScale(k);
  return { k: scale, tx: width / 2 - x * scale, ty: height / 2 - y * scale };
}

/**
 * The transform at the same scale, panned the least that brings `rect` into the viewport, `inset`
 * pixels clear of its edges; on an axis where the rect is larger than that, its start (top or left)
 * is shown, where a lane or a column begins.
 */
export function revealRect(rect: Rect, t: Transform, width: number, height: number, inset = 0): Transform {
  const pan = (min: number, max: number, offset: number, extent: number) => {
    const start = min * t.k + offset;
    const end = max * t.k + offset;
    if (start < inset || end - start > extent - 2 * inset) return offset + inset - start;
    if (end > extent - inset) return offset - (end - (extent - inset));
    return offset;
  };
  return {
    k: t.k,
    tx: pan(rect.minX, rect.maxX, t.tx, width),
    ty: pan(rect.minY, rect.maxY, t.ty, height),
  };
}

/** The transform that shows the whole rectangle with a margin, never zooming in beyond 1. */
export function fitRect(rect: Rect, width: number, height: number, margin = 24): Transform {
  const w = Math.max(1, rect.maxX - rect.minX);
  const h = Math.max(1, rect.maxY - rect.minY);
  const k = clampScale(Math.min(1, (width - 2 * margin) / w, (height - 2 * margin) / h));
  return centerOn((rect.minX + rect.maxX) / 2, (rect.minY + rect.maxY) / 2, width, height, k);
}

/** True when the layout point is inside the viewport, at least `inset` pixels from its edges. */
export function isPointVisible(
  t: Transform,
  x: number,
  y: number,
  width: number,
  height: number,
  inset = 0,
): boolean {
  const sx = x * t.k + t.tx;
  const sy = y * t.k + t.ty;
  return sx >= inset && sx <= width - inset && sy >= inset && sy <= height - inset;
}

/** A box in screen pixels that covers part of the viewport (the minimap). */
export interface ScreenBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

function overlaps(rect: Rect, t: Transform, box: ScreenBox): boolean {
  const left = rect.minX * t.k + t.tx;
  const right = rect.maxX * t.k + t.tx;
  const top = rect.minY * t.k + t.ty;
  const bottom = rect.maxY * t.k + t.ty;
  return left < box.x + box.width && right > box.x && top < box.y + box.height && bottom > box.y;
}

/**
 * Like fitRect, but keeps the rectangle clear of a box that covers a corner of the viewport (the
 * minimap): when the plain fit would run under it, the rectangle is fitted into the larger of the
 * free band beside the box and the free band above or below it.
 */
export function fitRectAvoiding(
  rect: Rect,
  width: number,
  height: number,
  box: ScreenBox | null,
  margin = 24,
): Transform {
  const plain = fitRect(rect, width, height, margin);
  if (!box || !overlaps(rect, plain, box)) return plain;
  const candidates: Transform[] = [];
  // Beside the box: the columns left of it (box on the right) or right of it (box on the left).
  const boxOnRight = box.x + box.width / 2 > width / 2;
  const sideWidth = boxOnRight ? box.x : width - (box.x + box.width);
  if (sideWidth > 2 * margin) {
    const t = fitRect(rect, sideWidth, height, margin);
    candidates.push(boxOnRight ? t : { ...t, tx: t.tx + box.x + box.width });
  }
  const boxBelow = box.y + box.height / 2 > height / 2;
  const bandHeight = boxBelow ? box.y : height - (box.y + box.height);
  if (bandHeight > 2 * margin) {
    const t = fitRect(rect, width, bandHeight, margin);
    candidates.push(boxBelow ? t : { ...t, ty: t.ty + box.y + box.height });
  }
  let best: Transform | null = null;
  for (const t of candidates) if (!best || t.k > best.k) best = t;
  return best ?? plain;
}

/** True when the layout point is visible and not under the covering box (with `inset` around it). */
export function isPointClear(
  t: Transform,
  x: number,
  y: number,
  width: number,
  height: number,
  inset: number,
  box: ScreenBox | null,
): boolean {
  if (!isPointVisible(t, x, y, width, height, inset)) return false;
  if (!box) return true;
  const sx = x * t.k + t.tx;
  const sy = y * t.k + t.ty;
  return !(
    sx > box.x - inset &&
    sx < box.x + box.width + inset &&
    sy > box.y - inset &&
    sy < box.y + box.height + inset
  );
}

/**
 * The minimap's size for a tree of these bounds: the tree's shape inside a maxWidth × maxHeight
 * box, no side below `minSide`, so that a wide, flat tree does not get a mostly empty map that
 * covers nodes for nothing.
 */
export function minimapSize(
  bounds: Rect,
  maxWidth = 180,
  maxHeight = 130,
  minSide = 48,
): { width: number; height: number } {
  const w = Math.max(1, bounds.maxX - bounds.minX);
  const h = Math.max(1, bounds.maxY - bounds.minY);
  const scale = Math.min(maxWidth / w, maxHeight / h);
  return {
    width: Math.round(Math.min(maxWidth, Math.max(minSide, w * scale))),
    height: Math.round(Math.min(maxHeight, Math.max(minSide, h * scale))),
  };
}

/** True when the whole rectangle is on screen under this transform. */
export function isRectInView(rect: Rect, t: Transform, width: number, height: number): boolean {
  const left = rect.minX * t.k + t.tx;
  const right = rect.maxX * t.k + t.tx;
  const top = rect.minY * t.k + t.ty;
  const bottom = rect.maxY * t.k + t.ty;
  // Half a pixel of slack: a fitted tree must count as fitting despite rounding.
  return left >= -0.5 && top >= -0.5 && right <= width + 0.5 && bottom <= height + 0.5;
}

/**
 * The transform that shows the whole tree. The minimap appears only while the tree is larger than
 * the view, so a plain fit that shows it all has no minimap to avoid; only a tree too large to fit
 * even at the smallest scale keeps the map, and then it is kept clear of it.
 */
export function wholeTreeView(
  bounds: Rect,
  width: number,
  height: number,
  minimap: ScreenBox | null,
): Transform {
  const plain = fitRect(bounds, width, height);
  if (isRectInView(bounds, plain, width, height)) return plain;
  return fitRectAvoiding(bounds, width, height, minimap);
}
