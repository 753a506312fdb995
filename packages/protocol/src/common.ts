import { Type, type Static, type TSchema } from '@sinclair/typebox';

/** Every error the server reports, REST and WebSocket alike. */
export const ERROR_CODES = [
  /** The body, params, query or message does not match its schema. */
  'BAD_REQUEST',
  /** No or a wrong access token. */
  'UNAUTHORIZED',
  /** The Host header is not the local address (DNS rebinding). */
  'FORBIDDEN_HOST',
  /** A write or WebSocket upgrade from another Origin. */
  'FORBIDDEN_ORIGIN',
  /** A path resolves outside the configured roots. */
  'OUTSIDE_ROOTS',
  'NOT_FOUND',
  'SESSION_NOT_FOUND',
  'ENTRY_NOT_FOUND',
  /** The entry exists but cannot be used for this operation (e.g. /branch from an assistant message). */
  'INVALID_TARGET',
  /** Archiving would hide the branch that holds the current leaf (docs/archive-and-family.md#archive). */
  'ACTIVE_PATH',
  /** The file is not a readable session (no valid header). */
  'SESSION_INVALID',
  /** The file's last line stays cut off (another writer mid-write or a crash); nothing was appended. */
  'FILE_MID_WRITE',
  /** The file changed underneath the operation in a way that made it unsafe to continue. */
  'FILE_CHANGED',
  /** Another program appended to the file within the last moment (a quiet window); nothing was written. */
  'FILE_BUSY',
  /** oh-my-pi holds the session's lock file (`.<name>.jsonl.lock`); nothing was written. */
  'FILE_LOCKED',
  /** Another program wrote part of a line at the same moment as Canopy: a line is damaged (noted as an issue). */
  'FILE_TORN',
  /** The disk is full; the partial line was removed again. */
  'DISK_FULL',
  /** The file or its folder cannot be written (permissions, read-only file system). */
  'READ_ONLY',
  /** A migration left out lines it could not use; they are kept in the backup. A notice, not a failure. */
  'LINES_DROPPED',
  /** A lock file beside the session is not a lock oh-my-pi holds (stale, malformed, not a file): ignored. A notice. */
  'LOCK_IGNORED',
  /** Canopy's own write was cut off by a crash; its partial line was removed. A notice. */
  'WRITE_REPAIRED',
  /** Canopy's own write was cut off by a crash and the file does not match it: nothing was changed. A notice. */
  'WRITE_NOT_REPAIRED',
  'WRITE_FAILED',
  /** The session is opened read-only (an archive, an unknown format version): nothing is written. */
  'READ_ONLY',
  /** A summary was requested, there is something to summarise, and no summariser is configured. */
  'NO_SUMMARIZER',
  'SUMMARY_FAILED',
  /** The request names a summariser that is not configured. */
  'UNKNOWN_SUMMARIZER',
  /** A selection to summarise names no entry, or names entries the session does not have. */
  'BAD_SELECTION',
  /** An abort was requested but no summary is running for that session. */
  'NO_SUMMARY_RUNNING',
  /** An abort came after the summary's write had started: the summary is (being) written. */
  'SUMMARY_TOO_LATE',
  /** A provider configuration of the settings dialog is incomplete or wrong; the message says what to fix. */
  'BAD_PROVIDER',
  /** Another navigation with a summary is already running on that session. */
  'BUSY',
  'EXTENSION_ERROR',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_PROTOCOL',
  'INTERNAL_ERROR',
] as const;

export const ErrorCode = Type.Union(ERROR_CODES.map((code) => Type.Literal(code)));
export type ErrorCode = (typeof ERROR_CODES)[number];

export const ErrorInfo = Type.Object({
  code: ErrorCode,
  message: Type.String(),
});
export type ErrorInfo = Static<typeof ErrorInfo>;

/** The body of every non-2xx REST response. */
export const ErrorBody = Type.Object({ error: ErrorInfo });
export type ErrorBody = Static<typeof ErrorBody>;

/** Standard error responses attached to every route schema. */
export const ErrorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  413: ErrorBody,
  500: ErrorBody,
  503: ErrorBody,
  507: ErrorBody,
} as const;

/** An entry id as found in session files; unknown formats are accepted, only the size is capped. */
export const EntryId = Type.String({ minLength: 1, maxLength: 256 });
/** Opaque session id handed out by the server (never a path). */
export const SessionId = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' });

/** A JSON object kept verbatim (session header, full entry, message). */
export const JsonObject = Type.Object({}, { additionalProperties: true });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
