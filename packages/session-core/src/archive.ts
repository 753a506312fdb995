// Archived branches (docs/archive-and-family.md#archive): a branch is hidden, never deleted, by an
// append-only record naming the root of its subtree. Canopy writes a `custom` entry, which pi 1.6,
// pi 0.73 and oh-my-pi all read without effect on the model's context; oh-my-pi's own record from its
// pull request #8301 (`{type: "archive", targetId, archived}`) is read too. The latest record for a
// target wins, so restoring appends another record. Pure: no file system, no clock.

import { isRecord } from './text';
import type { SessionEntry } from './types';
import { ViewFlags } from './tree-view/row-format';
import type { ViewEntry } from './tree-view/view-entry';

/** The `customType` of Canopy's archive record. */
export const ARCHIVE_CUSTOM_TYPE = 'canopy.archive';

/** The `data` of Canopy's archive record. */
export interface ArchiveData {
  targetId: string;
  archived: boolean;
}

/** One archive or restore record read from a session file. */
export interface ArchiveRecord extends ArchiveData {
  /** The record's own entry id. */
  entryId: string;
  /** Canopy's `custom` entry, or oh-my-pi's `archive` entry. */
  writer: 'canopy' | 'omp';
}

/** The record an entry is, if it is one: Canopy's custom entry or oh-my-pi's `archive` entry. */
export function archiveRecordOf(entry: SessionEntry): ArchiveRecord | undefined {
  const raw = entry as unknown as Record<string, unknown>;
  if (raw.type === 'custom' && raw.customType === ARCHIVE_CUSTOM_TYPE) {
    const data = raw.data;
    if (!isRecord(data) || typeof data.targetId !== 'string' || typeof data.archived !== 'boolean')
      return undefined;
    return { entryId: entry.id, targetId: data.targetId, archived: data.archived, writer: 'canopy' };
  }
  if (raw.type === 'archive' && typeof raw.targetId === 'string' && typeof raw.archived === 'boolean') {
    return { entryId: entry.id, targetId: raw.targetId, archived: raw.archived, writer: 'omp' };
  }
  return undefined;
}

/**
 * The archive state of one session, fed every entry once in file order: the latest record for a
 * target wins, whichever program wrote it.
 */
export class ArchiveLedger {
  private readonly latest = new Map<string, ArchiveRecord>();

  /** Takes one entry; answers the record when it is one. */
  add(entry: SessionEntry): ArchiveRecord | undefined {
    const record = archiveRecordOf(entry);
    if (record) this.latest.set(record.targetId, record);
    return record;
  }

  /** Whether the latest record for `targetId` archives it. */
  isArchived(targetId: string): boolean {
    return this.latest.get(targetId)?.archived === true;
  }

  /** The latest record for `targetId`. */
  recordFor(targetId: string): ArchiveRecord | undefined {
    return this.latest.get(targetId);
  }

  /** Every target whose latest record archives it, in the order they were first named. */
  archivedTargets(): string[] {
    const targets: string[] = [];
    for (const [id, record] of this.latest) if (record.archived) targets.push(id);
    return targets;
  }

  /** Targets named by a record that the session has no entry for: reported, never fatal. */
  unknownTargets(has: (id: string) => boolean): string[] {
    return [...this.latest.keys()].filter((id) => !has(id));
  }

  get size(): number {
    return this.latest.size;
  }
}

/** The shape of a tree as archive rules read it. */
export interface ArchiveShape {
  has(id: string): boolean;
  /** The parent's id; null for a root. */
  parentOf(id: string): string | null | undefined;
}

export type ArchiveRefusalCode = 'ENTRY_NOT_FOUND' | 'ACTIVE_PATH';

export interface ArchiveRefusal {
  code: ArchiveRefusalCode;
  message: string;
}

/**
 * Why archiving `targetId` is refused, or undefined when it may be archived: an unknown entry, or a
 * subtree that holds the current leaf (archiving would hide where the conversation goes on). A restore
 * is refused only for an unknown entry.
 */
export function archiveRefusal(
  shape: ArchiveShape,
  targetId: string,
  archived: boolean,
  leafId: string | null,
): ArchiveRefusal | undefined {
  if (!shape.has(targetId))
    return { code: 'ENTRY_NOT_FOUND', message: `No entry ${targetId} in this session.` };
  if (!archived) return undefined;
  if (isAncestorOrSelf(shape, targetId, leafId)) {
    return {
      code: 'ACTIVE_PATH',
      message:
        'This branch holds the current leaf, where the conversation goes on: jump to another branch first, then archive this one.',
    };
  }
  return undefined;
}

/**
 * Whether `ancestorId` is `id` or one of its ancestors. A cycle in a damaged file ends the walk:
 * a second pointer moves one step for every two of the walk (Floyd's check) and meets it only on a
 * cycle, once the walk has been through every entry of it. No set of the path's ids: the leaf's path
 * can be 100,000 entries long, and one set of them took 20–40 ms of every archive.
 */
export function isAncestorOrSelf(shape: ArchiveShape, ancestorId: string, id: string | null): boolean {
  let slow: string | null = id;
  let steps = 0;
  for (let at: string | null = id; at !== null;) {
    if (at === ancestorId) return true;
    at = shape.parentOf(at) ?? null;
    if (++steps % 2 === 0 && slow !== null) {
      slow = shape.parentOf(slow) ?? null;
      if (at !== null && at === slow) return false;
    }
  }
  return false;
}

/** `flags` with the ArchiveTarget bit set to `archived` (the latest record for the entry says). */
export function withArchiveTarget(flags: number, archived: boolean): number {
  return archived ? flags | ViewFlags.ArchiveTarget : flags & ~ViewFlags.ArchiveTarget;
}

/**
 * Whether `after` is `before` with only its ArchiveTarget bit changed (what an archive or restore
 * record does to its target's row): the entry itself, its label and its row are the same, so what
 * was read of it (its detail) still holds. Any other change, alone or with it, answers false.
 */
export function onlyArchiveTargetChanged(before: ViewEntry, after: ViewEntry): boolean {
  return (
    (before.flags ^ after.flags) === ViewFlags.ArchiveTarget &&
    before.id === after.id &&
    before.parentId === after.parentId &&
    before.type === after.type &&
    before.role === after.role &&
    before.timestamp === after.timestamp &&
    before.label === after.label &&
    before.labelTime === after.labelTime &&
    before.text === after.text &&
    before.search === after.search
  );
}
