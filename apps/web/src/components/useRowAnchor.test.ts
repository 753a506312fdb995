import { describe, expect, it } from 'vitest';
import { anchoredScrollTop, OutlineViewport } from './useRowAnchor';

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

describe('OutlineViewport', () => {
  const element = () => ({ scrollTop: 0 }) as unknown as HTMLElement;

  it('clamps the last seen scrollTop to the content as the browser will once the rows shrink', () => {
    const viewport = new OutlineViewport();
    viewport.clientHeight = 440;
    viewport.contentHeight = 22_000;
    viewport.scrollTop = 10_000;
    expect(viewport.scrollTopNow).toBe(10_000);
    viewport.contentHeight = 2_200;
    expect(viewport.maxScrollTop).toBe(2_200 - 440);
    expect(viewport.scrollTopNow).toBe(2_200 - 440);
    viewport.contentHeight = 100;
    expect(viewport.scrollTopNow).toBe(0);
  });

  it('scrolls the element within range and follows at once, and leaves it alone when it is there', () => {
    const viewport = new OutlineViewport();
    viewport.clientHeight = 440;
    viewport.contentHeight = 2_200;
    const target = element();
    viewport.scrollTo(target, 5_000);
    expect(target.scrollTop).toBe(2_200 - 440);
    expect(viewport.scrollTop).toBe(2_200 - 440);
    target.scrollTop = 123; // a write now would be seen
    viewport.scrollTo(target, 2_200 - 440.5);
    expect(target.scrollTop).toBe(123);
    viewport.scrollTo(target, -50);
    expect(target.scrollTop).toBe(0);
  });
});
