// Keeps the selected outline row at the same place on screen when the rows above it change: a
// jump puts the new active branch first (as the terminal does), which moved the row the user had
// just clicked away from under the pointer. The scroll offset compensates, as far as there is
// room to scroll.
//
// The viewport's geometry comes from a model the outline keeps (OutlineViewport), never from the
// element: reading scrollTop, clientHeight or scrollHeight right after React changed the rows
// makes the browser lay the page out there and then, in the frame, once more. That forced layout
// was 5–14 ms of every click, jump, keystroke, filter change and append at 50,000 entries.

import { useCallback, useLayoutEffect, useRef, type RefObject } from 'react';

/** The scrollTop that shows row `index` `offset` pixels below the top, within the scroll range. */
export function anchoredScrollTop(
  index: number,
  offset: number,
  rowHeight: number,
  maxScrollTop: number,
): number {
  return Math.min(Math.max(0, index * rowHeight - offset), Math.max(0, maxScrollTop));
}

/**
 * The outline's scroll position and height as last seen by a scroll event, a resize or a scroll
 * it made itself, and the height of its content as rendered now (known from the row count). The
 * browser clamps scrollTop when the content shrinks; `scrollTopNow` does the same.
 */
export class OutlineViewport {
  scrollTop = 0;
  clientHeight = 0;
  contentHeight = 0;

  get maxScrollTop(): number {
    return Math.max(0, this.contentHeight - this.clientHeight);
  }

  /** The scrollTop the element has once laid out with the current content. */
  get scrollTopNow(): number {
    return Math.min(this.scrollTop, this.maxScrollTop);
  }

  /** Scrolls the element, unless it is there already; the model follows at once. */
  scrollTo(element: HTMLElement, top: number): void {
    const wanted = Math.min(Math.max(0, top), this.maxScrollTop);
    if (Math.abs(wanted - this.scrollTopNow) < 1) return;
    element.scrollTop = wanted;
    this.scrollTop = wanted;
  }
}

export function useRowAnchor(
  containerRef: RefObject<HTMLElement | null>,
  viewportRef: RefObject<OutlineViewport>,
  rows: readonly { id: string }[] | undefined,
  selectedIndex: number,
  rowHeight: number,
): () => void {
  // The selected row and its distance from the top of the view, as last seen.
  const anchor = useRef<{ id: string; offset: number } | null>(null);

  useLayoutEffect(() => {
    const element = containerRef.current;
    const viewport = viewportRef.current;
    if (!element || !rows) return;
    const id = selectedIndex >= 0 ? rows[selectedIndex]?.id : undefined;
    const before = anchor.current;
    if (
      id !== undefined &&
      before?.id === id &&
      before.offset >= 0 &&
      before.offset < viewport.clientHeight
    ) {
      viewport.scrollTo(
        element,
        anchoredScrollTop(selectedIndex, before.offset, rowHeight, viewport.maxScrollTop),
      );
    }
    anchor.current =
      id === undefined ? null : { id, offset: selectedIndex * rowHeight - viewport.scrollTopNow };
  }, [containerRef, viewportRef, rows, selectedIndex, rowHeight]);

  // A scroll by the user (or a reveal) moves the row on screen: remember where it is now.
  return useCallback(() => {
    const current = anchor.current;
    if (!current || !rows) return;
    const index = selectedIndex >= 0 && rows[selectedIndex]?.id === current.id ? selectedIndex : -1;
    if (index >= 0)
      anchor.current = { id: current.id, offset: index * rowHeight - viewportRef.current.scrollTopNow };
  }, [viewportRef, rows, selectedIndex, rowHeight]);
}
