// The five filter modes of the tree selector (docs/tree-and-context.md#filters).

import { ViewFlags, type ViewEntry } from './view-entry';

/** The filter modes in Ctrl+O cycle order (the settings schema of @canopy/protocol derives from it). */
export const FILTER_MODES = ['default', 'no-tools', 'user-only', 'labeled-only', 'all'] as const;
export type FilterMode = (typeof FILTER_MODES)[number];

export function isFilterMode(value: unknown): value is FilterMode {
  return typeof value === 'string' && (FILTER_MODES as readonly string[]).includes(value);
}

/** The next mode forwards (Ctrl+O) or backwards (Shift+Ctrl+O), wrapping around. */
export function cycleFilter(mode: FilterMode, direction: 1 | -1): FilterMode {
  const index = FILTER_MODES.indexOf(mode);
  const count = FILTER_MODES.length;
  return FILTER_MODES[(((index + direction) % count) + count) % count]!;
}

/** pi's Ctrl+T/U/L/A: switch to the mode, or back to default when it is already on. */
export function toggleFilter(current: FilterMode, mode: FilterMode): FilterMode {
  return current === mode ? 'default' : mode;
}

/** The footer tag of a mode: " [no-tools]", " [user]", " [labeled]", " [all]", or "" for default. */
export function filterTag(mode: FilterMode): string {
  switch (mode) {
    case 'no-tools':
      return ' [no-tools]';
    case 'user-only':
      return ' [user]';
    case 'labeled-only':
      return ' [labeled]';
    case 'all':
      return ' [all]';
    default:
      return '';
  }
}

/**
 * Bookkeeping entry types hidden in the default and no-tools modes: pi's four, session_info (hidden
 * by the reference package 0.73.1, which users run; older pi showed it as a blank row, and since
 * `/name` moves the leaf onto it, the current position would read as an empty line), and the ones
 * oh-my-pi adds.
 */
export const SETTINGS_ENTRY_TYPES: ReadonlySet<string> = new Set([
  'label',
  'session_info',
  'custom',
  'model_change',
  'thinking_level_change',
  'archive',
  'model_usage',
  'service_tier_change',
  'title_change',
  'credential_pin',
  'session_init',
  'ttsr_injection',
  'mode_change',
  'reset_boundary',
]);

function hasLabel(entry: ViewEntry): boolean {
  return entry.label !== undefined && entry.label !== '';
}

/**
 * Whether an entry passes the tool-only-assistant rule and the filter mode (search is separate).
 * A tool-only assistant message is hidden in every mode unless it is the current leaf, so the
 * active position always has a row.
 */
export function passesFilter(entry: ViewEntry, mode: FilterMode, isLeaf: boolean): boolean {
  if ((entry.flags & ViewFlags.ToolOnlyAssistant) !== 0 && !isLeaf) return false;
  switch (mode) {
    case 'user-only':
      return entry.type === 'message' && entry.role === 'user';
    case 'no-tools':
      return (
        !SETTINGS_ENTRY_TYPES.has(entry.type) && !(entry.type === 'message' && entry.role === 'toolResult')
      );
    case 'labeled-only':
      return hasLabel(entry);
    case 'all':
      return true;
    default:
      return !SETTINGS_ENTRY_TYPES.has(entry.type);
  }
}
