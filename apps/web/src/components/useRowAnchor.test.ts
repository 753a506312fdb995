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

  it('asks for a scroll within range, gives it to the element only when applied, and asks for nothing when there', () => {
    const viewport = new OutlineViewport();
    viewport.clientHeight = 440;
    viewport.contentHeight = 2_200;
    const target = element();
    expect(viewport.request(5_000)).toBe(2_200 - 440);
    expect(target.scrollTop).toBe(0);
    // Until applied, the view is about to be where it was asked to go.
    expect(viewport.position).toBe(2_200 - 440);
    expect(viewport.request(2_200 - 440.5)).toBeNull();
    viewport.apply(target);
    expect(target.scrollTop).toBe(2_200 - 440);
    expect(viewport.scrollTop).toBe(2_200 - 440);
    expect(viewport.wanted).toBeNull();
    target.scrollTop = 123; // a later apply without a request must not touch it
    viewport.apply(target);
    expect(target.scrollTop).toBe(123);
    expect(viewport.request(-50)).toBe(0);
  });
});
