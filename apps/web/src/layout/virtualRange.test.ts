import { describe, expect, it } from 'vitest';
import { alignedContentHeight, rowsPerPage, scrollToReveal, visibleRows } from './virtualRange';

describe('visibleRows', () => {
  it('covers the viewport plus the overscan on both sides', () => {
    expect(visibleRows(2200, 440, 22, 100_000, 5)).toEqual({ start: 95, end: 126 });
  });
  it('clamps at both ends', () => {
    expect(visibleRows(0, 440, 22, 10, 5)).toEqual({ start: 0, end: 10 });
    expect(visibleRows(0, 440, 22, 0)).toEqual({ start: 0, end: 0 });
  });
});

describe('scrollToReveal', () => {
  it('scrolls up to a row above the viewport and down to one below, and leaves a visible row alone', () => {
    expect(scrollToReveal(2, 220, 440, 22)).toBe(44);
    expect(scrollToReveal(40, 0, 440, 22)).toBe(462);
    expect(scrollToReveal(12, 220, 440, 22)).toBe(220);
  });
  it('stops on a row boundary when the viewport is not a whole number of rows high', () => {
    // 450 px shows 20 rows and 10 spare pixels: row 40 at the bottom means rows 21… from the top.
    expect(scrollToReveal(40, 0, 450, 22)).toBe(21 * 22);
    expect((21 * 22) % 22).toBe(0);
    expect(scrollToReveal(40, 0, 450, 22) + 450).toBeGreaterThanOrEqual(41 * 22);
  });
  it('rowsPerPage counts whole rows, at least one', () => {
    expect(rowsPerPage(450, 22)).toBe(20);
    expect(rowsPerPage(5, 22)).toBe(1);
  });
});

describe('alignedContentHeight', () => {
  it('pads the content so that the largest scrollTop is a whole number of rows', () => {
    const height = alignedContentHeight(100, 22, 450);
    expect(height).toBe(100 * 22 + 10);
    expect((height - 450) % 22).toBe(0);
  });
  it('adds nothing when the viewport is a whole number of rows or the rows fit without scrolling', () => {
    expect(alignedContentHeight(100, 22, 440)).toBe(2200);
    expect(alignedContentHeight(5, 22, 450)).toBe(110);
  });
});
