// Deep trees would push the outline's text off screen (the terminal has the same problem; oh-my-pi
// hides the outer gutter levels behind "…" past about half the width). Columns of "│" are worth
// less than the row's text, so the cap here is lower: the prefix is made of 3-column levels, whole
// levels are dropped from the left until it fits, and the number dropped is shown instead, so the
// depth stays readable.

export const LEVEL_WIDTH = 3;
/** The outline never spends more than this many columns on indentation (6 levels). */
export const MAX_PREFIX_COLUMNS = 6 * LEVEL_WIDTH;

export interface CappedPrefix {
  /** Outer levels left out. */
  hiddenLevels: number;
  /** The innermost levels, connector included. */
  text: string;
}

export function capPrefix(prefix: string, maxColumns: number): CappedPrefix {
  if (prefix.length <= maxColumns) return { hiddenLevels: 0, text: prefix };
  const keepLevels = Math.max(1, Math.floor(maxColumns / LEVEL_WIDTH));
  const keep = keepLevels * LEVEL_WIDTH;
  return { hiddenLevels: Math.ceil((prefix.length - keep) / LEVEL_WIDTH), text: prefix.slice(-keep) };
}
