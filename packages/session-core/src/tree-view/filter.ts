// The five filter modes of the tree selector (docs/tree-and-context.md#filters).

import { BOOKKEEPING_ENTRY_TYPES, NEVER_SHOWN_ENTRY_TYPES, roleSpecOf } from '../entry-types';
import { ViewFlags, type ViewEntry } from './view-entry';
import { ARCHIVE_NONE, isArchiveRootState } from './archive-state';

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
 * Bookkeeping entry types hidden in the default and no-tools modes, as the entry-type table declares
 * them (../entry-types.ts): pi's settings entries, `session_info` (hidden by the reference package,
 * which users run; since `/name` moves the leaf onto it, the current position would otherwise read as
 * an empty line), pi 1.x's `context_edit`, and oh-my-pi's own bookkeeping types.
 */
export const SETTINGS_ENTRY_TYPES: ReadonlySet<string> = BOOKKEEPING_ENTRY_TYPES;

// What the modes look at in an entry, as the bits of its filter class: a mode passes an entry or
// not by its class alone, so the visibility cache (visibility.ts) reads each entry once for all
// five modes and answers a mode's bits from a table.
const CLASS_TOOL_ONLY = 1;
const CLASS_SETTINGS = 2;
const CLASS_USER = 4;
const CLASS_TOOL_RESULT = 8;
const CLASS_LABELED = 16;
const CLASS_NEVER_SHOWN = 32;
// Archived branches folded away (docs/archive-and-family.md#archive): the branch's root stands for it
// as a stub in every mode, the rest is hidden. Revealed, they are classed like any other entry.
const CLASS_ARCHIVE_STUB = 64;
const CLASS_ARCHIVED_HIDDEN = 128;
/** Classes are below this. */
export const FILTER_CLASS_COUNT = 256;

/**
 * The facts of an entry that the filter modes decide by (see passesFilter); `foldedArchive` is the
 * tree's archive state of the entry while archived branches are folded (ViewTree.foldedArchiveAt):
 * none while they are revealed.
 */
export function filterClass(entry: ViewEntry, foldedArchive = ARCHIVE_NONE): number {
  let bits = 0;
  if (foldedArchive !== ARCHIVE_NONE)
    return isArchiveRootState(foldedArchive) ? CLASS_ARCHIVE_STUB : CLASS_ARCHIVED_HIDDEN;
  if ((entry.flags & ViewFlags.ToolOnlyAssistant) !== 0) bits |= CLASS_TOOL_ONLY;
  if (BOOKKEEPING_ENTRY_TYPES.has(entry.type)) bits |= CLASS_SETTINGS;
  else if (NEVER_SHOWN_ENTRY_TYPES.has(entry.type)) bits |= CLASS_NEVER_SHOWN;
  else if (entry.type === 'message') {
    const singled = roleSpecOf(entry.role)?.filterRole;
    if (singled === 'user') bits |= CLASS_USER;
    else if (singled === 'toolResult') bits |= CLASS_TOOL_RESULT;
  }
  if (entry.label !== undefined && entry.label !== '') bits |= CLASS_LABELED;
  return bits;
}

/**
 * Whether an entry of this filter class passes the tool-only-assistant rule and the filter mode.
 * A tool-only assistant message is hidden in every mode unless it is the current leaf, so the
 * active position has a row; an entry pi never shows (a `usage`) is hidden in every mode, leaf or not.
 */
export function classPasses(bits: number, mode: FilterMode, isLeaf: boolean): boolean {
  // A folded archived branch: its stub in every mode; inside it only the leaf, if another program
  // moved the leaf there (Canopy refuses to archive the leaf's branch).
  if ((bits & CLASS_ARCHIVE_STUB) !== 0) return true;
  if ((bits & CLASS_ARCHIVED_HIDDEN) !== 0) return isLeaf;
  // pi 1.x hides its usage entries before anything else, so even as the leaf.
  if ((bits & CLASS_NEVER_SHOWN) !== 0) return false;
  if ((bits & CLASS_TOOL_ONLY) !== 0 && !isLeaf) return false;
  switch (mode) {
    case 'user-only':
      return (bits & CLASS_USER) !== 0;
    case 'no-tools':
      return (bits & (CLASS_SETTINGS | CLASS_TOOL_RESULT)) === 0;
    case 'labeled-only':
      return (bits & CLASS_LABELED) !== 0;
    case 'all':
      return true;
    default:
      return (bits & CLASS_SETTINGS) === 0;
  }
}

/** Whether an entry passes the tool-only-assistant rule and the filter mode (search is separate). */
export function passesFilter(
  entry: ViewEntry,
  mode: FilterMode,
  isLeaf: boolean,
  foldedArchive = ARCHIVE_NONE,
): boolean {
  return classPasses(filterClass(entry, foldedArchive), mode, isLeaf);
}
