// The client errors of refused file operations and failed SessionManager writes, and the report of
// the lines a migration rewrite left out.

import { SessionWriteError, type IssueKind, type ParseIssue } from '@canopy/session-core';
import { AppError, FILE_CHANGED_ON_READ } from '../errors';
import type { FileSafetyError } from './confined';

/** The client error for a refused or failed file operation. */
/** An entry could not be read back because the file is no longer what was read (see OpenSession.readBack). */
export function fileChangedUnderneath(): AppError {
  return new AppError('FILE_CHANGED', FILE_CHANGED_ON_READ);
}

export function fileErrorToAppError(error: FileSafetyError): AppError {
  const nothing = 'nothing was written';
  switch (error.reason) {
    case 'deleted':
      return new AppError(
        'SESSION_NOT_FOUND',
        `The session file was deleted; ${nothing} (Canopy does not recreate it).`,
      );
    case 'outside-roots':
      return new AppError('OUTSIDE_ROOTS', `${error.message} ${capitalized(nothing)}.`);
    case 'changed':
      return new AppError(
        'FILE_CHANGED',
        `Another program changed the session file at the same moment; ${nothing}. Try again.`,
      );
    case 'mid-write':
      return new AppError(
        'FILE_MID_WRITE',
        `The last line of the session file is cut off (another program is writing it, or it crashed mid-write); ${nothing}. Try again in a moment.`,
      );
    case 'locked':
      return new AppError('FILE_LOCKED', `${error.message} ${capitalized(nothing)}.`);
    case 'disk-full':
      return new AppError('DISK_FULL', `The disk is full; ${nothing} (a partial line was removed again).`);
    case 'read-only':
      return new AppError('READ_ONLY', `The session file or its folder cannot be written; ${nothing}.`);
    case 'torn':
      return new AppError(
        'FILE_TORN',
        `${error.message} The damaged line is reported as an issue of the session.`,
      );
    case 'not-a-file':
      return new AppError('NOT_FOUND', error.message);
    case 'too-large':
      return new AppError('PAYLOAD_TOO_LARGE', error.message);
    case 'failed':
      return new AppError('WRITE_FAILED', `Could not write the session file: ${error.message}`);
  }
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The client error for a SessionManager operation that threw (file refusals are mapped before). */
export function mutationError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  if (error instanceof SessionWriteError) {
    return error.reason === 'incomplete-last-line'
      ? new AppError(
          'FILE_MID_WRITE',
          'The last line of the session file is cut off; nothing was written. Try again in a moment.',
        )
      : new AppError(
          'SESSION_INVALID',
          'The file has no valid session header, so Canopy does not write to it.',
        );
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/not found/i.test(message)) return new AppError('ENTRY_NOT_FOUND', message);
  return error;
}

/** Issues whose line is not an entry, so a migrated file (entries only) leaves the line out. */
const DROPPED_KINDS: ReadonlySet<IssueKind> = new Set<IssueKind>([
  'invalid-json',
  'not-object',
  'invalid-header',
  'extra-header',
  'invalid-entry',
  'missing-id',
  'duplicate-id',
  'truncated-line',
]);

/** The lines a migration rewrite leaves out of the file, in order. */
export function droppedLinesOf(issues: readonly ParseIssue[]): number[] {
  const lines = issues.filter((issue) => DROPPED_KINDS.has(issue.kind)).map((issue) => issue.line);
  return [...new Set(lines)].sort((a, b) => a - b);
}

/** Says which lines a migration left out and where they are kept. */
export function droppedLinesMessage(lines: readonly number[], backup: string): string {
  return `The session was migrated to the current format; ${lines.length} unusable line${
    lines.length === 1 ? '' : 's'
  } (line ${lines.slice(0, 20).join(', ')}${lines.length > 20 ? ', …' : ''}) ${
    lines.length === 1 ? 'was' : 'were'
  } left out of the file and ${lines.length === 1 ? 'is' : 'are'} kept in the backup ${backup}.`;
}
