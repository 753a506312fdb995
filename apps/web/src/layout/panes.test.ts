import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DETAIL_WIDTH,
  DEFAULT_SPLIT_RATIO,
  MAX_DETAIL_WIDTH,
  MAX_SPLIT_RATIO,
  MIN_DETAIL_WIDTH,
  MIN_SPLIT_RATIO,
  MIN_TREE_WIDTH,
  clampDetailWidth,
  clampSplitRatio,
  splitterKeyValue,
} from './panes';

describe('clampSplitRatio', () => {
  it('keeps a ratio inside the bounds unchanged', () => {
    expect(clampSplitRatio(0.5)).toBe(0.5);
  });
  it('clamps ratios outside the bounds to the nearest bound', () => {
    expect(clampSplitRatio(0.01)).toBe(MIN_SPLIT_RATIO);
    expect(clampSplitRatio(1.5)).toBe(MAX_SPLIT_RATIO);
  });
  it('replaces a non-number (a corrupted preference) by the default', () => {
    expect(clampSplitRatio(Number.NaN)).toBe(DEFAULT_SPLIT_RATIO);
    expect(clampSplitRatio(Number.POSITIVE_INFINITY)).toBe(DEFAULT_SPLIT_RATIO);
  });
  it('gives the outline at least 45% of the tree area by default', () => {
    expect(DEFAULT_SPLIT_RATIO).toBeGreaterThanOrEqual(0.45);
  });
});

describe('clampDetailWidth', () => {
  it('clamps to the panel bounds and rounds to whole pixels', () => {
    expect(clampDetailWidth(100)).toBe(MIN_DETAIL_WIDTH);
    expect(clampDetailWidth(5000)).toBe(MAX_DETAIL_WIDTH);
    expect(clampDetailWidth(500.6)).toBe(501);
  });
  it('leaves the tree area its minimum width in a narrow window', () => {
    expect(clampDetailWidth(800, 1000)).toBe(1000 - MIN_TREE_WIDTH);
  });
  it('never goes below the panel minimum even when the window is too narrow for both', () => {
    expect(clampDetailWidth(800, 400)).toBe(MIN_DETAIL_WIDTH);
  });
  it('replaces a non-number by the default', () => {
    expect(clampDetailWidth(Number.NaN)).toBe(DEFAULT_DETAIL_WIDTH);
  });
});

describe('splitterKeyValue', () => {
  const range = { value: 0.5, min: 0.2, max: 0.8, step: 0.05 };
  it('moves one step per arrow key in the growing direction', () => {
    expect(splitterKeyValue('ArrowRight', false, range)).toBeCloseTo(0.55, 10);
    expect(splitterKeyValue('ArrowLeft', false, range)).toBeCloseTo(0.45, 10);
  });
  it('moves four steps with Shift', () => {
    expect(splitterKeyValue('ArrowRight', true, range)).toBeCloseTo(0.7, 10);
  });
  it('reverses the arrows for a pane measured from the right', () => {
    const width = { value: 420, min: 280, max: 900, step: 20 };
    expect(splitterKeyValue('ArrowLeft', false, width, -1)).toBe(440);
    expect(splitterKeyValue('ArrowRight', false, width, -1)).toBe(400);
    expect(splitterKeyValue('Home', false, width, -1)).toBe(900);
    expect(splitterKeyValue('End', false, width, -1)).toBe(280);
  });
  it('goes to the bounds with Home and End and clamps the arrows there', () => {
    expect(splitterKeyValue('Home', false, range)).toBe(0.2);
    expect(splitterKeyValue('End', false, range)).toBe(0.8);
    expect(splitterKeyValue('ArrowRight', true, { ...range, value: 0.75 })).toBe(0.8);
  });
  it('returns null for keys it does not handle', () => {
    expect(splitterKeyValue('ArrowUp', false, range)).toBeNull();
    expect(splitterKeyValue('a', false, range)).toBeNull();
  });
});
