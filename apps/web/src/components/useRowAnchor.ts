// Keeps the selected outline row at the same place on screen when the rows above it change: a
// jump puts the new active branch first (as the terminal does), which moved the row the user had
// just clicked away from under the pointer. The scroll offset compensates, as far as there is
// room to scroll.

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

export function useRowAnchor(
  containerRef: RefObject<HTMLElement | null>,
  rows: readonly { id: string }[] | undefined,
  selectedIndex: number,
  rowHeight: number,
): () => void {
  // The selected row and its distance from the top of the view, as last seen.
  const anchor = useRef<{ id: string; offset: number } | null>(null);

  useLayoutEffect(() => {
    const element = containerRef.current;
    if (!element || !rows) return;
    const id = selectedIndex >= 0 ? rows[selectedIndex]?.id : undefined;
    const before = anchor.current;
    if (id !== undefined && before?.id === id && before.offset >= 0 && before.offset < element.clientHeight) {
      const wanted = anchoredScrollTop(
        selectedIndex,
        before.offset,
        rowHeight,
        element.scrollHeight - element.clientHeight,
      );
      if (Math.abs(wanted - element.scrollTop) >= 1) element.scrollTop = wanted;
    }
    anchor.current = id === undefined ? null : { id, offset: selectedIndex * rowHeight - element.scrollTop };
  }, [containerRef, rows, selectedIndex, rowHeight]);

  // A scroll by the user (or a reveal) moves the row on screen: remember where it is now.
  return useCallback(() => {
    const element = containerRef.current;
    const current = anchor.current;
    if (!element || !current || !rows) return;
    const index = selectedIndex >= 0 && rows[selectedIndex]?.id === current.id ? selectedIndex : -1;
    if (index >= 0) anchor.current = { id: current.id, offset: index * rowHeight - element.scrollTop };
  }, [containerRef, rows, selectedIndex, rowHeight]);
}
