// Deep trees would push the outline's text off screen (the terminal has the same problem; oh-my-pi
// hides the outer gutter levels behind "…"). The prefix is made of 3-column levels, so whole levels
// are dropped from the left until it fits the budget.

export const LEVEL_WIDTH = 3;

export function compactPrefix(prefix: string, maxColumns: number): string {
  if (prefix.length <= maxColumns) return prefix;
  const keepLevels = Math.max(1, Math.floor((maxColumns - 1) / LEVEL_WIDTH));
  return `…${prefix.slice(prefix.length - keepLevels * LEVEL_WIDTH)}`;
}
