import { describe, expect, it } from 'vitest';
import { anchoredScrollTop } from './useRowAnchor';

describe('anchoredScrollTop', () => {
  it('scrolls so that the row keeps its distance from the top', () => {
    // Row 40 was 100 px below the top; it is now row 30: scroll 10 rows less.
    expect(anchoredScrollTop(30, 100, 22, 5000)).toBe(30 * 22 - 100);
  });

  it('stays within the scroll range when there is not enough room above or below', () => {
    expect(anchoredScrollTop(2, 300, 22, 5000)).toBe(0);
    expect(anchoredScrollTop(200, 0, 22, 1000)).toBe(1000);
  });
});
