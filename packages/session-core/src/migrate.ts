// Migrations of legacy session files to format version 3 (docs/format.md#migrations).
// They work on parsed lines in memory and mutate them in place, exactly like the reference, so a
// migrated file written back is what the reference itself would have written.

import { generateEntryId } from './ids';
import { CURRENT_SESSION_VERSION } from './types';
import type { FileLine, SessionHeader } from './types';

/** A parsed line as the migrations see it: legacy lines may lack `id` and `parentId`. */
type MutableLine = Record<string, unknown>;

/**
 * The format version a header declares. A header without `version` is a v1 file (the reference's
 * `header.version ?? 1`); no header at all counts as v1 too, as in the reference's migration.
 */
export function getSessionVersion(header: Pick<SessionHeader, 'version'> | null | undefined): number {
  const raw: unknown = header?.version;
  if (raw === undefined || raw === null) return 1;
  if (typeof raw === 'number') return Number.isNaN(raw) ? 1 : raw;
  // The reference compares with `>=`, which coerces a string such as "3"; do the same.
  const coerced = Number(raw);
  return Number.isNaN(coerced) ? 1 : coerced;
}

/**
 * Is the header's `version` one whose rules are known: absent (a v1 file) or a whole number from 1
 * to CURRENT_SESSION_VERSION, written as a number? Anything else (`{"major": 4}`, `"3"`, `3.5`, a
 * newer version) is a file of an unknown format: it may be read, but it must not be migrated or
 * written to, so nothing of it is lost (docs/format.md#migrations).
 */
export function isKnownSessionVersion(header: Pick<SessionHeader, 'version'> | null | undefined): boolean {
  const raw: unknown = header?.version;
  if (raw === undefined) return true;
  return typeof raw === 'number' && Number.isInteger(raw) && raw >= 1 && raw <= CURRENT_SESSION_VERSION;
}

/** Finds the line a v1 compaction's `firstKeptEntryIndex` points at (0-based, header at 0). */
export type LineAtIndex = (index: number) => FileLine | undefined;

/**
 * State carried from one v1 line to the next: v1 files are one linear history, so every line's
 * parent is the line before it.
 */
export interface V1ChainState {
  previousId: string | null;
  /** Ids already in use; freshly generated ids are added so they never collide. */
  taken: { has(id: string): boolean; add(id: string): unknown };
  /** Lines that already received their new id (a compaction may only point back at those). */
  migrated: Set<object>;
  lineAt: LineAtIndex;
}

/**
 * v1 → v2 for one non-header line: a fresh id, the previous line as parent, and a compaction's line
 * index turned into an entry id. Used by the bulk migration and for v1 lines that an old agent keeps
 * appending to a file that is open (the live tail).
 */
export function migrateV1Line(line: FileLine, state: V1ChainState): void {
  const entry = line as unknown as MutableLine;
  const id = generateEntryId(state.taken);
  // The reference starts from an empty collision set and never adds to it, so its ids are only
  // probably unique; remembering them makes uniqueness certain on large files.
  state.taken.add(id);
  entry.id = id;
  entry.parentId = state.previousId;
  state.previousId = id;

  if (entry.type === 'compaction' && typeof entry.firstKeptEntryIndex === 'number') {
    const target = state.lineAt(entry.firstKeptEntryIndex);
    // Only a line that already got its new id can be the target: the reference reads the target's id
    // at this moment, so an index pointing forward (or at the header) leaves firstKeptEntryId unset.
    if (target !== undefined && target.type !== 'session' && state.migrated.has(target)) {
      entry.firstKeptEntryId = (target as unknown as MutableLine).id;
    }
    delete entry.firstKeptEntryIndex;
  }
  state.migrated.add(line);
}

/** v2 → v3 for one non-header line: the legacy `hookMessage` role becomes `custom`. */
export function migrateV2Line(line: FileLine): void {
  const entry = line as unknown as MutableLine;
  if (entry.type !== 'message') return;
  const message = entry.message;
  if (typeof message === 'object' && message !== null && (message as MutableLine).role === 'hookMessage') {
    (message as MutableLine).role = 'custom';
  }
}

/**
 * Brings parsed lines (header first) to the current format version, in place. Returns whether anything
 * was migrated, which means the file must be rewritten before anything is appended to it.
 * Versions at or above the current one are left alone (newer files are not refused here: whether to
 * open them read-only is the caller's decision).
 *
 * `lineAt` resolves a v1 compaction's `firstKeptEntryIndex`; by default it indexes `lines` itself, as
 * the reference does. A loader that skipped damaged lines passes a lookup by physical line instead.
 */
export function migrateSessionEntries(lines: FileLine[], lineAt?: LineAtIndex): boolean {
  const header = lines.find((line) => line.type === 'session') as SessionHeader | undefined;
  const version = getSessionVersion(header);
  if (version >= CURRENT_SESSION_VERSION) return false;

  if (version < 2) {
    const state: V1ChainState = {
      previousId: null,
      taken: new Set(),
      migrated: new Set(),
      lineAt: lineAt ?? ((index) => lines[index]),
    };
    for (const line of lines) {
      if (line.type === 'session') (line as SessionHeader).version = 2;
      else migrateV1Line(line, state);
    }
  }
  for (const line of lines) {
    if (line.type === 'session') (line as SessionHeader).version = CURRENT_SESSION_VERSION;
    else migrateV2Line(line);
  }
  return true;
}
