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
