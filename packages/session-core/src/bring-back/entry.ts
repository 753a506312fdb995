// The bring-back entry (docs/bring-back.md#the-entry): one custom_message appended under the current
// leaf, shown in the conversation and sent to the model as a user message by pi 1.6, pi 0.73 and
// oh-my-pi alike, with its provenance in `details`; and its undo, a pi 1.x context_edit that omits it.

import type { SessionManager } from '../session-manager';
import { isRecord } from '../text';
import type { SessionEntry } from '../types';

export const BRING_BACK_CUSTOM_TYPE = 'canopy.bring-back';

export const BRING_BACK_FORMS = ['excerpt', 'condensed', 'summary'] as const;
export type BringBackForm = (typeof BRING_BACK_FORMS)[number];

/** What a bring-back entry records of where its text came from. */
export interface BringBackDetails {
  /** The session file the entries were read from. */
  sourceFile: string;
  /** The entries brought, in reading order. */
  sourceEntryIds: string[];
  form: BringBackForm;
}

/**
 * Appends the bring-back under the current leaf (it becomes the leaf), through SessionManager's own
 * custom message append: `display: true`, so pi shows it and sends it as a user message.
 */
export function appendBringBack(sm: SessionManager, text: string, details: BringBackDetails): string {
  if (text.trim() === '') throw new Error('A bring-back needs text');
  return sm.appendCustomMessageEntry(BRING_BACK_CUSTOM_TYPE, text, true, {
    sourceFile: details.sourceFile,
    sourceEntryIds: [...details.sourceEntryIds],
    form: details.form,
  });
}

/** The provenance of a bring-back entry; undefined for any other entry or a malformed one. */
export function bringBackProvenance(entry: SessionEntry | undefined): BringBackDetails | undefined {
  if (entry?.type !== 'custom_message' || entry.customType !== BRING_BACK_CUSTOM_TYPE) return undefined;
  const details = entry.details;
  if (!isRecord(details)) return undefined;
  const { sourceFile, sourceEntryIds, form } = details;
  if (typeof sourceFile !== 'string' || !Array.isArray(sourceEntryIds)) return undefined;
  const ids = (sourceEntryIds as unknown[]).filter((id): id is string => typeof id === 'string');
  const known = (BRING_BACK_FORMS as readonly unknown[]).includes(form) ? (form as BringBackForm) : 'excerpt';
  return { sourceFile, sourceEntryIds: ids, form: known };
}

export type BringBackUndoState = { possible: true } | { possible: false; reason: string; undone?: boolean };

export const UNDO_OMP_REASON =
  'Undo is not possible in an oh-my-pi file: oh-my-pi does not read context_edit entries (pi 1.x writes them), so the message would still be sent to its model. To continue without it, jump to the entry before it.';
export const UNDO_PI_073_REASON =
  'Undo is not possible in this file: it shows no entry of pi 1.x, and pi 0.73 does not read context_edit entries (pi 1.x writes them), so the message would still be sent to its model. To continue without it, jump to the entry before it.';

/**
 * Whether the bring-back `entryId` can be undone here: only in a pi 1.x file (context edits are pi
 * 1.x's: docs/tree-and-context.md#context-edits), only while it is on the current branch, and not
 * twice.
 */
export function bringBackUndoState(sm: SessionManager, entryId: string): BringBackUndoState {
  if (!bringBackProvenance(sm.getEntry(entryId)))
    return { possible: false, reason: 'This entry is not a bring-back.' };
  if (sm.dialect === 'omp') return { possible: false, reason: UNDO_OMP_REASON };
  if (!sm.piOne) return { possible: false, reason: UNDO_PI_073_REASON };
  const path = sm.getBranch();
  if (!path.some((entry) => entry.id === entryId))
    return {
      possible: false,
      reason: 'It is not on the current branch: jump to an entry after it to undo it there.',
    };
  // The last edit naming it wins (docs/tree-and-context.md#context-edits).
  let omitted = false;
  for (const entry of path) {
    if (entry.type === 'context_edit' && entry.targetId === entryId) omitted = entry.replacement === null;
  }
  if (omitted)
    return {
      possible: false,
      undone: true,
      reason: 'Undone: the model is no longer sent it on this branch.',
    };
  return { possible: true };
}

/** Undoes a bring-back: a context_edit that omits it from the model's context on this branch. */
export function undoBringBack(sm: SessionManager, entryId: string): string {
  const state = bringBackUndoState(sm, entryId);
  if (!state.possible) throw new Error(state.reason);
  return sm.appendContextEdit(entryId, null);
}
