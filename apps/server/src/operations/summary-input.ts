import { MAX_SUMMARY_ENTRIES } from '@canopy/protocol';
import {
  entriesOf,
  orderSelectedIds,
  type OrderedSelection,
  prepareBranchEntries,
  type SessionEntry,
  type SessionManager,
} from '@canopy/session-core';
import { AppError } from '../errors';

/** What a summary is built from: the entries in reading order, and what was left out. */
export interface SummaryInput {
  entries: SessionEntry[];
  /** How many entries were chosen before the cut. */
  selectedCount: number;
  /** Says what the cut left out; absent when nothing was. */
  notice?: string;
  tokenEstimate: number;
}

/**
 * What a summary of these entries (ids in reading order: a selection, or an abandoned path) is built
 * from: the newest MAX_SUMMARY_ENTRIES of them, read back from the file, and nothing else. A summary
 * of ten thousand entries is already far past any model's window, and the summarisers keep the
 * newest context; a selection of 100,000 entries, or the abandoned path of a jump to the start of a
 * 1 GB session, reads 10,000.
 */
export function summaryInput(sm: SessionManager, ids: readonly string[], what: string): SummaryInput {
  return inputOf(entriesOf(sm, newestOf(ids)), ids.length, what);
}

/** The same for entries already read back whole (an extension was given them): none is read again. */
export function summaryInputOfEntries(entries: readonly SessionEntry[], what: string): SummaryInput {
  return inputOf(newestOf(entries), entries.length, what);
}

/** The newest MAX_SUMMARY_ENTRIES of a list in reading order: what a summary covers. */
export function newestOf<T>(items: readonly T[]): T[] {
  return items.length > MAX_SUMMARY_ENTRIES ? items.slice(items.length - MAX_SUMMARY_ENTRIES) : [...items];
}

function inputOf(kept: SessionEntry[], selectedCount: number, what: string): SummaryInput {
  const input: SummaryInput = {
    entries: kept,
    selectedCount,
    tokenEstimate: prepareBranchEntries(kept, 0).totalTokens,
  };
  if (kept.length < selectedCount) {
    const left = selectedCount - kept.length;
    input.notice = `${what} has ${selectedCount.toLocaleString('en')} entries; the summary covers the newest ${kept.length.toLocaleString('en')} (the oldest ${left.toLocaleString('en')} are left out).`;
  }
  return input;
}

/**
 * The abandoned path's ids narrowed to the user's selection (when one is given), still in
 * chronological order. Ids of the selection that are not on the path are ignored: the selection may
 * span branches that this navigation does not abandon.
 */
export function narrowToSelection(
  abandonedIds: readonly string[],
  onlyIds: readonly string[] | undefined,
): string[] {
  if (onlyIds === undefined) return [...abandonedIds];
  const wanted = new Set(onlyIds);
  return abandonedIds.filter((id) => wanted.has(id));
}

/**
 * Orders selected entries from anywhere in the tree for summarising: a depth-first walk with
 * older children first gives each branch's entries oldest first, the shared part before the
 * branches, and one branch after another. BAD_SELECTION for an empty selection or unknown ids.
 * The walk goes over the tree's shape (ids from the index) and reads no entry back from the file:
 * asking for every entry it passed read a 1 GB session back for 500 selected entries.
 */
export function orderSelection(sm: SessionManager, entryIds: readonly string[]): OrderedSelection {
  const wanted = new Set(entryIds);
  if (wanted.size === 0)
    throw new AppError('BAD_SELECTION', 'The selection is empty: select entries to summarise.');
  const unknown = [...wanted].filter((id) => !sm.hasEntry(id));
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 5).join(', ');
    const more = unknown.length > 5 ? ` and ${unknown.length - 5} more` : '';
    throw new AppError(
      'BAD_SELECTION',
      `The selection names ${unknown.length === 1 ? 'an entry' : 'entries'} this session does not have: ${shown}${more}.`,
    );
  }

  return orderSelectedIds(sm, [...wanted]);
}

/** The thinking level at the session's leaf and the file's dialect: what the summary request follows. */
export function sessionSummaryOptions(sm: SessionManager): { thinkingLevel: string; dialect: 'pi' | 'omp' } {
  let thinkingLevel = 'off';
  const path = sm.getBranchShapes(sm.getLeafId());
  for (let i = path.length - 1; i >= 0; i--) {
    const shape = path[i];
    if (shape?.type !== 'thinking_level_change') continue;
    const level = (sm.getEntry(shape.id) as { thinkingLevel?: unknown } | undefined)?.thinkingLevel;
    if (typeof level === 'string') thinkingLevel = level;
    break;
  }
  return { thinkingLevel, dialect: sm.dialect === 'omp' ? 'omp' : 'pi' };
}

// Moved to session-core (shared with the bring-back, docs/bring-back.md); named here as before.
export { pairToolCalls, selectionLayout } from '@canopy/session-core';
export type { OrderedSelection, PairedSelection, SelectionLayout } from '@canopy/session-core';
