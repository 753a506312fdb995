// Pane sizes: the outline / graph split and the detail panel width, kept in sane bounds whatever
// the window size or a stored preference says, and the keyboard steps of the splitters.

/** The outline's share of the tree area in the split view. */
export const DEFAULT_SPLIT_RATIO = 0.55;
export const MIN_SPLIT_RATIO = 0.2;
export const MAX_SPLIT_RATIO = 0.8;

export const DEFAULT_DETAIL_WIDTH = 420;
export const MIN_DETAIL_WIDTH = 280;
export const MAX_DETAIL_WIDTH = 900;
/** The tree area never gets narrower than this because of the detail panel. */
export const MIN_TREE_WIDTH = 360;

export function clampSplitRatio(ratio: number): number {
  if (!Number.isFinite(ratio)) return DEFAULT_SPLIT_RATIO;
  return Math.min(MAX_SPLIT_RATIO, Math.max(MIN_SPLIT_RATIO, ratio));
}

/**
 * The detail width that fits: within its own bounds, and leaving the tree area at least
 * MIN_TREE_WIDTH of `availableWidth` (the window minus the session list) when that is known.
 */
export function clampDetailWidth(width: number, availableWidth?: number): number {
  const base = Number.isFinite(width) ? width : DEFAULT_DETAIL_WIDTH;
  let max = MAX_DETAIL_WIDTH;
  if (availableWidth !== undefined && Number.isFinite(availableWidth))
    max = Math.min(max, Math.max(MIN_DETAIL_WIDTH, availableWidth - MIN_TREE_WIDTH));
  return Math.round(Math.min(max, Math.max(MIN_DETAIL_WIDTH, base)));
}

export interface SplitterRange {
  value: number;
  min: number;
  max: number;
  /** One arrow key press; Shift+arrow moves four steps. */
  step: number;
}

/**
 * The value a splitter key gives (ArrowLeft/Right, Home, End; the WAI-ARIA window splitter), or
 * null for keys a splitter does not handle. `grow` is the direction in which ArrowRight increases
 * the value (+1 when the pane left of the splitter is the one measured, -1 otherwise).
 */
export function splitterKeyValue(
  key: string,
  shiftKey: boolean,
  range: SplitterRange,
  grow: 1 | -1 = 1,
): number | null {
  const step = range.step * (shiftKey ? 4 : 1);
  let next: number;
  if (key === 'ArrowRight') next = range.value + step * grow;
  else if (key === 'ArrowLeft') next = range.value - step * grow;
  else if (key === 'Home') next = grow === 1 ? range.min : range.max;
  else if (key === 'End') next = grow === 1 ? range.max : range.min;
  else return null;
  return Math.min(range.max, Math.max(range.min, next));
}
