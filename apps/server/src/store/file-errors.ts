import type { FileSafetyError } from './confined';
import { AppError } from '../errors';

/** The client error for a refused or failed file operation. */
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
      return new AppError(
        'FILE_LOCKED',
        `oh-my-pi is writing this session (its lock file is held); ${nothing}.`,
      );
    case 'disk-full':
      return new AppError('DISK_FULL', `The disk is full; ${nothing} (a partial line was removed again).`);
    case 'read-only':
      return new AppError('READ_ONLY', `The session file or its folder cannot be written; ${nothing}.`);
    case 'torn':
      return new AppError(
        'FILE_TORN',
        `${error.message} The damaged line is reported as an issue of the session.`,
      );
    case 'failed':
      return new AppError('WRITE_FAILED', `Could not write the session file: ${error.message}`);
  }
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
