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
 * it made itself, the height of its content as rendered now (known from the row count), and a
 * scroll it has asked for but not made yet. The browser clamps scrollTop when the content shrinks;
 * `scrollTopNow` does the same.
 *
 * A scroll is asked for first (`request`), so that the outline renders the rows of the new
 * position, and made once they are in the DOM (`apply`, which the outline calls in the next
 * animation frame): the element is laid out once, in that frame, with the right rows, instead of
 * once for the old rows and again after the scroll event.
 */
export class OutlineViewport {
  scrollTop = 0;
  clientHeight = 0;
  contentHeight = 0;
  /** The scrollTop asked for and not yet given to the element. */
  wanted: number | null = null;

  get maxScrollTop(): number {
    return Math.max(0, this.contentHeight - this.clientHeight);
  }

  /** The scrollTop the element has once laid out with the current content. */
  get scrollTopNow(): number {
    return Math.min(this.scrollTop, this.maxScrollTop);
  }

  /** Where the view is about to be: the scroll asked for, else where it is. */
  get position(): number {
    return this.wanted ?? this.scrollTopNow;
  }

  /** Asks for a scroll to `top` (within range); the position to render, or null when it is there already. */
  request(top: number): number | null {
    const wanted = Math.min(Math.max(0, top), this.maxScrollTop);
    if (Math.abs(wanted - this.position) < 1) return null;
    this.wanted = wanted;
    return wanted;
  }

  /** Gives the element the scroll asked for, once the rows of that position are rendered. */
  apply(element: HTMLElement): void {
    if (this.wanted === null) return;
    element.scrollTop = this.wanted;
    this.scrollTop = this.wanted;
    this.wanted = null;
  }
}

/**
 * `scrollTo` asks the outline for a scroll (OutlineViewport.request, then a render of the rows
 * there); `viewportRef` says where the view is.
 */
export function useRowAnchor(
  viewportRef: RefObject<OutlineViewport>,
  scrollTo: (top: number) => void,
  rows: readonly { id: string }[] | undefined,
  selectedIndex: number,
  rowHeight: number,
): () => void {
  // The selected row and its distance from the top of the view, as last seen.
  const anchor = useRef<{ id: string; offset: number } | null>(null);

  useLayoutEffect(() => {
    const viewport = viewportRef.current;
    if (!rows) return;
    const id = selectedIndex >= 0 ? rows[selectedIndex]?.id : undefined;
    const before = anchor.current;
    if (
      id !== undefined &&
      before?.id === id &&
      before.offset >= 0 &&
      before.offset < viewport.clientHeight
    ) {
      scrollTo(anchoredScrollTop(selectedIndex, before.offset, rowHeight, viewport.maxScrollTop));
    }
    anchor.current = id === undefined ? null : { id, offset: selectedIndex * rowHeight - viewport.position };
  }, [viewportRef, scrollTo, rows, selectedIndex, rowHeight]);

  // A scroll by the user (or a reveal) moves the row on screen: remember where it is now.
  return useCallback(() => {
    const current = anchor.current;
    if (!current || !rows) return;
    const index = selectedIndex >= 0 && rows[selectedIndex]?.id === current.id ? selectedIndex : -1;
    if (index >= 0)
      anchor.current = { id: current.id, offset: index * rowHeight - viewportRef.current.position };
  }, [viewportRef, rows, selectedIndex, rowHeight]);
}
