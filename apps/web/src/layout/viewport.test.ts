import { describe, expect, it } from 'vitest';
import { MAX_SCALE, centerOn, fitRect, isPointVisible, visibleRect, zoomAt } from './viewport';

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
