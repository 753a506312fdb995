// Where an entry stands towards archived branches (docs/archive-and-family.md#archive), derived by
// the view tree from the ArchiveTarget flags the wire carries: inside an archived branch when it or
// an ancestor is a target, and the branch's root when it is the topmost such entry. Nested archives
// keep their own record, so restoring the outer branch leaves an inner one archived.

import { ViewFlags } from './row-format';

/** Not inside an archived branch. */
export const ARCHIVE_NONE = 0;
/** Inside an archived branch (the entry or an ancestor is archived). */
export const ARCHIVE_INSIDE = 1;
/** Set with ARCHIVE_INSIDE on the topmost archived entry of its branch: drawn as the branch's stub. */
export const ARCHIVE_ROOT = 2;

/** The state of an entry with these flags under a parent in `parentState`. */
export function archiveStateOf(flags: number, parentState: number): number {
  if ((parentState & ARCHIVE_INSIDE) !== 0) return ARCHIVE_INSIDE;
  return (flags & ViewFlags.ArchiveTarget) !== 0 ? ARCHIVE_INSIDE | ARCHIVE_ROOT : ARCHIVE_NONE;
}

/** Whether the state is inside an archived branch (drawn dimmed while revealed). */
export function isArchivedState(state: number): boolean {
  return (state & ARCHIVE_INSIDE) !== 0;
}

/** Whether the state is an archived branch's root (drawn as its stub while folded). */
export function isArchiveRootState(state: number): boolean {
  return (state & ARCHIVE_ROOT) !== 0;
}
