import { describe, expect, it } from 'vitest';
import {
  MAX_SCALE,
  centerOn,
  fitRect,
  fitRectAvoiding,
  isPointClear,
  minimapSize,
  isPointVisible,
  isRectInView,
  revealRect,
  visibleRect,
  wholeTreeView,
  zoomAt,
} from './viewport';

describe('viewport transforms', () => {
  it('zooming keeps the point under the cursor fixed', () => {
    const t = zoomAt({ k: 1, tx: 10, ty: 20 }, 2, 110, 220);
    expect(t.k).toBe(2);
    expect(100 * t.k + t.tx).toBe(110);
    expect(200 * t.k + t.ty).toBe(220);
  });

  it('clamps the scale to the allowed range', () => {
    expect(zoomAt({ k: 2, tx: 0, ty: 0 }, 10, 0, 0).k).toBe(MAX_SCALE);
  });

  it('visibleRect inverts the transform', () => {
    expect(visibleRect({ k: 2, tx: -100, ty: 50 }, 800, 600)).toEqual({
      minX: 50,
      minY: -25,
      maxX: 450,
      maxY: 275,
    });
  });

  it('centerOn puts the point in the middle of the viewport', () => {
    const t = centerOn(100, 40, 800, 600, 1);
    expect(isPointVisible(t, 100, 40, 800, 600, 299)).toBe(true);
    expect(100 * t.k + t.tx).toBe(400);
    expect(40 * t.k + t.ty).toBe(300);
  });

  it('fitRect shows the whole rectangle and never zooms in beyond 1', () => {
    const big = fitRect({ minX: 0, minY: 0, maxX: 4000, maxY: 1000 }, 1000, 600, 0);
    expect(big.k).toBe(0.25);
    const r = visibleRect(big, 1000, 600);
    expect(r.minX).toBeLessThanOrEqual(0);
    expect(r.maxX).toBeGreaterThanOrEqual(4000);
    expect(fitRect({ minX: 0, minY: 0, maxX: 10, maxY: 10 }, 1000, 600).k).toBe(1);
  });
});

describe('fitting around the minimap', () => {
  const minimap = { x: 610, y: 460, width: 180, height: 130 };

  it('keeps the plain fit when the rectangle does not reach the minimap', () => {
    const rect = { minX: 0, minY: 0, maxX: 100, maxY: 20 };
    expect(fitRectAvoiding(rect, 800, 600, minimap)).toEqual(fitRect(rect, 800, 600));
  });

  it('fits a wide tree into the band above the minimap, clear of it', () => {
    const rect = { minX: 0, minY: 0, maxX: 4000, maxY: 1000 };
    const t = fitRectAvoiding(rect, 800, 600, minimap);
    expect(t.k).toBeCloseTo(Math.min((800 - 48) / 4000, (460 - 48) / 1000), 10);
    const bottom = rect.maxY * t.k + t.ty;
    const right = rect.maxX * t.k + t.tx;
    expect(bottom <= minimap.y || right <= minimap.x).toBe(true);
    expect(rect.minX * t.k + t.tx).toBeGreaterThanOrEqual(0);
    expect(rect.minY * t.k + t.ty).toBeGreaterThanOrEqual(0);
  });

  it('fits a tall tree into the columns left of the minimap', () => {
    const rect = { minX: 0, minY: 0, maxX: 1000, maxY: 4000 };
    const t = fitRectAvoiding(rect, 800, 600, minimap);
    expect(rect.maxX * t.k + t.tx).toBeLessThanOrEqual(minimap.x);
    expect(t.k).toBeCloseTo(Math.min((610 - 48) / 1000, (600 - 48) / 4000), 10);
  });

  it('is the plain fit without a minimap', () => {
    const rect = { minX: 0, minY: 0, maxX: 4000, maxY: 4000 };
    expect(fitRectAvoiding(rect, 800, 600, null)).toEqual(fitRect(rect, 800, 600));
  });

  it('counts a point under the minimap as hidden', () => {
    const t = { k: 1, tx: 0, ty: 0 };
    expect(isPointClear(t, 700, 520, 800, 600, 10, minimap)).toBe(false);
    expect(isPointClear(t, 300, 300, 800, 600, 10, minimap)).toBe(true);
    expect(isPointClear(t, 700, 520, 800, 600, 10, null)).toBe(true);
    expect(isPointClear(t, 900, 300, 800, 600, 10, null)).toBe(false);
  });
});

describe('minimapSize', () => {
  it('follows the shape of a wide tree, down to the minimum height', () => {
    expect(minimapSize({ minX: 0, minY: 0, maxX: 9000, maxY: 900 })).toEqual({ width: 180, height: 48 });
    expect(minimapSize({ minX: 0, minY: 0, maxX: 1800, maxY: 1000 })).toEqual({ width: 180, height: 100 });
  });
  it('follows the shape of a tall tree, down to the minimum width', () => {
    expect(minimapSize({ minX: 0, minY: 0, maxX: 100, maxY: 13000 })).toEqual({ width: 48, height: 130 });
  });
});

describe('the whole tree and the minimap', () => {
  const map = { x: 600, y: 450, width: 190, height: 140 };

  it('a tree that fits is fitted into the whole view (the minimap is hidden then)', () => {
    const bounds = { minX: 0, minY: 0, maxX: 400, maxY: 300 };
    const t = wholeTreeView(bounds, 800, 600, map);
    expect(t).toEqual(fitRect(bounds, 800, 600));
    expect(isRectInView(bounds, t, 800, 600)).toBe(true);
  });

  it('a tree too large even at the smallest scale is kept clear of the minimap', () => {
    const bounds = { minX: 0, minY: 0, maxX: 1e9, maxY: 100 };
    const t = wholeTreeView(bounds, 800, 600, map);
    expect(t).toEqual(fitRectAvoiding(bounds, 800, 600, map));
    expect(isRectInView(bounds, t, 800, 600)).toBe(false);
  });

  it('isRectInView is false as soon as any edge is off screen', () => {
    const bounds = { minX: 0, minY: 0, maxX: 100, maxY: 100 };
    expect(isRectInView(bounds, { k: 1, tx: 0, ty: 0 }, 100, 100)).toBe(true);
    expect(isRectInView(bounds, { k: 1, tx: 2, ty: 0 }, 100, 100)).toBe(false);
    expect(isRectInView(bounds, { k: 1, tx: 0, ty: -2 }, 100, 100)).toBe(false);
  });
});

describe('revealRect', () => {
  const rect = { minX: 100, minY: 300, maxX: 200, maxY: 400 };
  it('leaves a rect already in view where it is', () => {
    const t = { k: 1, tx: 0, ty: 0 };
    expect(revealRect(rect, t, 800, 600, 10)).toEqual(t);
  });

  it('pans the least, at the same scale, to bring it in clear of the edges', () => {
    // Below the view: its bottom comes up to 10 px above the view's bottom.
    const below = revealRect(rect, { k: 2, tx: 0, ty: 0 }, 800, 600, 10);
    expect(below).toEqual({ k: 2, tx: 0, ty: 590 - 800 });
    expect(isRectInView(rect, below, 800, 600)).toBe(true);
    // Left of the view: its left edge comes 10 px in.
    expect(revealRect(rect, { k: 1, tx: -150, ty: 0 }, 800, 600, 10)).toEqual({ k: 1, tx: -90, ty: 0 });
  });

  it('shows the start of a rect taller or wider than the view', () => {
    const tall = { minX: 100, minY: 1000, maxX: 150, maxY: 5000 };
    const t = revealRect(tall, { k: 1, tx: 0, ty: 0 }, 800, 600, 10);
    expect(t.ty).toBe(10 - 1000);
    expect(t.tx).toBe(0);
  });
});
