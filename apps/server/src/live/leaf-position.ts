import type { SessionHeader, SessionManager } from '@canopy/session-core';
import type { FileState } from '../files/confined';
import type { StoredLeaf } from '../files/state';

/** What the leaf needs of an entry to follow a writer (an entry or its tree node). */
export interface Linked {
  id: string;
  parentId: string | null;
}

/** The leaf could not be put back where it was; told to the user. */
export interface LeafNotice {
  previousLeafId: string | null;
  leafId: string | null;
  message: string;
}

/**
 * Puts the leaf of a freshly loaded manager back: after a reload at `previousLeaf`, on first open at
 * the stored leaf (when the file is still the same session), else it stays at the last line. A stored
 * leaf that is gone, or belongs to another session, is reported. Entries appended since the leaf was
 * stored move it when the writer continued from it. `entries` are the manager's entries (or their
 * tree nodes) in file order, so the manager is never asked for all of them.
 */
export function restoreLeaf(
  sm: SessionManager,
  entries: readonly Linked[],
  stored: StoredLeaf | undefined,
  previousLeaf: string | null | undefined,
): LeafNotice | undefined {
  const wanted = previousLeaf !== undefined ? previousLeaf : stored?.leafId;
  const sameFile = previousLeaf !== undefined || (stored !== undefined && stored.headerId === headerIdOf(sm));
  if (wanted === undefined || (!sameFile && stored !== undefined)) {
    if (stored && !sameFile) {
      return {
        previousLeafId: stored.leafId,
        leafId: sm.getLeafId(),
        message: 'The session file was replaced by another session; the leaf is back at its last entry.',
      };
    }
    return undefined;
  }
  if (wanted === null) {
    sm.resetLeaf();
  } else if (sm.getEntry(wanted)) {
    sm.branch(wanted);
  } else {
    return {
      previousLeafId: wanted,
      leafId: sm.getLeafId(),
      message:
        'The file changed so that the saved position no longer exists; the leaf is back at the last entry.',
    };
  }
  // Entries appended since the stored leaf was saved: the leaf follows a writer that continued from it.
  if (previousLeaf === undefined && stored && stored.entryCount < entries.length) {
    followLeaf(sm, entries.slice(stored.entryCount));
  }
  return undefined;
}

/**
 * What the state folder keeps of a session's leaf, with the file position it was taken at and the
 * number of entries then.
 */
export function leafRecord(
  sm: SessionManager,
  entryCount: number,
  offset: number,
  state: FileState,
): StoredLeaf {
  return {
    leafId: sm.getLeafId(),
    size: offset,
    ino: state.ino,
    dev: state.dev,
    entryCount,
    headerId: headerIdOf(sm),
  };
}

/** The leaf moves onto appended entries whose parent is the leaf (the writer continued from there). */
export function followLeaf(sm: SessionManager, entries: readonly Linked[]): boolean {
  let leaf = sm.getLeafId();
  const start = leaf;
  for (const entry of entries) {
    if (entry.parentId === leaf) leaf = entry.id;
  }
  if (leaf === start || leaf === null) return false;
  sm.branch(leaf);
  return true;
}

function headerIdOf(sm: SessionManager): string {
  const header = sm.getHeader() as SessionHeader | undefined | null;
  return typeof header?.id === 'string' ? header.id : '';
}
