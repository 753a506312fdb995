import { EntryReadError } from '@canopy/session-core';
import type { ErrorCode } from '@canopy/protocol';

const STATUS_BY_CODE: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN_HOST: 403,
  FORBIDDEN_ORIGIN: 403,
  OUTSIDE_ROOTS: 403,
  NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  ENTRY_NOT_FOUND: 404,
  INVALID_TARGET: 400,
  ACTIVE_PATH: 409,
  SESSION_INVALID: 409,
  FILE_MID_WRITE: 409,
  FILE_CHANGED: 409,
  FILE_BUSY: 409,
  FILE_LOCKED: 409,
  FILE_TORN: 500,
  DISK_FULL: 507,
  READ_ONLY: 403,
  LINES_DROPPED: 200,
  LOCK_IGNORED: 200,
  WRITE_REPAIRED: 200,
  WRITE_NOT_REPAIRED: 200,
  WRITE_FAILED: 500,
  NO_SUMMARIZER: 409,
  SUMMARY_FAILED: 500,
  UNKNOWN_SUMMARIZER: 400,
  BAD_SELECTION: 400,
  SUMMARY_TOO_LATE: 409,
  BAD_PROVIDER: 400,
  NO_SUMMARY_RUNNING: 409,
  BUSY: 409,
  EXTENSION_ERROR: 500,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_PROTOCOL: 400,
  INTERNAL_ERROR: 500,
};

/**
 * An error meant for the client: its code and message are sent as they are. Anything else thrown
 * becomes INTERNAL_ERROR with a generic message (5xx details stay in the server log).
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AppError';
    this.code = code;
    this.statusCode = STATUS_BY_CODE[code];
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

export function statusOf(code: ErrorCode): number {
  return STATUS_BY_CODE[code];
}

/** The message shown to clients for 5xx errors instead of the real one. */
export const INTERNAL_MESSAGE = 'Internal server error; see the server log.';

/** Why an entry could not be read back from its session file. */
export const FILE_CHANGED_ON_READ =
  'The session file changed since Canopy read it, so the entry could not be read back; the session is being reloaded. Try again.';

/** Maps anything thrown to the `{ code, message }` a client may see. */
export function toClientError(error: unknown): { code: ErrorCode; message: string; statusCode: number } {
  // A line read back from the file no longer matches the index: the file changed underneath.
  if (error instanceof EntryReadError) {
    return { code: 'FILE_CHANGED', message: FILE_CHANGED_ON_READ, statusCode: STATUS_BY_CODE.FILE_CHANGED };
  }
  if (isAppError(error)) {
    const message =
      error.statusCode >= 500 && error.code === 'INTERNAL_ERROR' ? INTERNAL_MESSAGE : error.message;
    return { code: error.code, message, statusCode: error.statusCode };
  }
  return { code: 'INTERNAL_ERROR', message: INTERNAL_MESSAGE, statusCode: 500 };
}
