// Row windowing for the outline: rows have a fixed height, so the visible slice is arithmetic.

export interface RowWindow {
  start: number;
  /** Exclusive. */
  end: number;
}

export function visibleRows(
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  total: number,
  overscan = 8,
): RowWindow {
  if (total <= 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const count = Math.ceil(Math.max(0, viewportHeight) / rowHeight) + 1;
  const start = Math.max(0, Math.min(total - 1, first - overscan));
  const end = Math.min(total, first + count + overscan);
  return { start, end: Math.max(start, end) };
}

/**
 * The scrollTop that brings row `index` fully into view, moving as little as possible. It is a
 * whole number of rows, so that the first row in view is never cut in half (the spare pixels of a
 * viewport that is not a whole number of rows high go below the last row instead).
 */
export function scrollToReveal(
  index: number,
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
): number {
  const top = index * rowHeight;
  const bottom = top + rowHeight;
  if (top < scrollTop) return top;
  if (bottom > scrollTop + viewportHeight)
    return Math.max(0, Math.ceil((bottom - viewportHeight) / rowHeight) * rowHeight);
  return scrollTop;
}

/**
 * The scrollable height for `total` rows: padded so that scrolling to the very end also stops on a
 * row boundary (scrollTop at most content - viewport, which must then be a whole number of rows).
 */
export function alignedContentHeight(total: number, rowHeight: number, viewportHeight: number): number {
  const rows = total * rowHeight;
  if (rowHeight <= 0 || viewportHeight <= 0 || rows <= viewportHeight) return rows;
  // rows is whole rows, so (rows + pad - viewport) is whole rows exactly when pad = viewport mod row.
  return rows + (viewportHeight % rowHeight);
}

/** Rows per page for Left/Right paging: the rows that fit in the viewport, at least one. */
export function rowsPerPage(viewportHeight: number, rowHeight: number): number {
  return Math.max(1, Math.floor(viewportHeight / rowHeight));
}
