import { describe, expect, it } from 'vitest';
import { rowsPerPage, scrollToReveal, visibleRows } from './virtualRange';

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
  it('rowsPerPage counts whole rows, at least one', () => {
    expect(rowsPerPage(450, 22)).toBe(20);
    expect(rowsPerPage(5, 22)).toBe(1);
  });
});
