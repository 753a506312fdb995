// File operations that stay inside the roots and never damage a line: every operation opens a
// descriptor, checks that the descriptor is the expected file (its real path, not just the name it
// was opened by), and reads or writes through that descriptor only. Appends are one write() of whole
// lines on an append-mode descriptor, guarded by the checks described in the README's "Safety with
// your files". Every other file Canopy reads (blobs, artifacts, lock files, its own state and
// config, pi / oh-my-pi configuration) goes through readBoundedNoFollow here (docs/safety.md#confinement).
// One file on purpose: every rule for touching a file (confinement, bounds, whole lines, the quiet
// window, read-back, rollback) is reviewed together here.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { AppendJournal } from './append-journal';
import { atomicWriteSync, fsyncDirSync, READ_CHUNK_BYTES } from './files';

/** Why a file operation was refused or failed; each maps to one specific client error. */
export type FileRefusal =
  | 'deleted'
  | 'outside-roots'
  | 'changed'
  | 'mid-write'
  | 'locked'
  | 'disk-full'
  | 'read-only'
  | 'torn'
  | 'not-a-file'
  | 'too-large'
  | 'failed';

export class FileSafetyError extends Error {
  constructor(
    readonly reason: FileRefusal,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FileSafetyError';
  }
}

/** What a file was when last seen; a write requires it to be exactly this. */
export interface FileState {
  size: number;
  ino: number;
  dev: number;
  mtimeMs: number;
  ctimeMs: number;
  mode: number;
}

export function stateOf(stat: fs.Stats): FileState {
  return {
    size: stat.size,
    ino: stat.ino,
    dev: stat.dev,
    mtimeMs: stat.mtimeMs,
    ctimeMs: stat.ctimeMs,
    mode: stat.mode & 0o7777,
  };
}

export function sameFile(a: { ino: number; dev: number }, b: { ino: number; dev: number }): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}

/** Same file, same size, and neither content nor metadata touched since. */
function unchanged(seen: FileState, now: FileState): boolean {
  return (
    sameFile(seen, now) &&
    seen.size === now.size &&
    seen.mtimeMs === now.mtimeMs &&
    seen.ctimeMs === now.ctimeMs
  );
}

/** Maps an fs error code to the refusal a client sees. */
export function refusalOf(error: unknown): FileRefusal {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return 'deleted';
    case 'ELOOP':
      return 'outside-roots';
    case 'ENOSPC':
    case 'EDQUOT':
      return 'disk-full';
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return 'read-only';
    default:
      return 'failed';
  }
}

function wrap(error: unknown, what: string): FileSafetyError {
  if (error instanceof FileSafetyError) return error;
  const reason = refusalOf(error);
  return new FileSafetyError(reason, `${what}: ${(error as Error).message}`, { cause: error });
}

/**
 * The real path of an open descriptor: /proc/self/fd on Linux (exact, immune to a rename after the
 * open); elsewhere the realpath of `name`, accepted only when it is the same file as the descriptor.
 */
function realPathOfDescriptor(fd: number, name: string, stat: fs.Stats): string {
  try {
    const linked = fs.readlinkSync(`/proc/self/fd/${fd}`);
    if (path.isAbsolute(linked)) {
      if (linked.endsWith(' (deleted)') && stat.nlink === 0) {
        throw new FileSafetyError('deleted', 'The session file was deleted.');
      }
      return linked;
    }
  } catch (error) {
    if (error instanceof FileSafetyError) throw error;
  }
  const real = fs.realpathSync(name);
  const named = fs.statSync(real);
  if (!sameFile(named, stat)) {
    throw new FileSafetyError('changed', 'The session file was replaced while it was being opened.');
  }
  return real;
}

/**
 * Opens `file` (a real path inside the roots) without following a final symlink, and checks that
 * the descriptor really is that path: a file or folder swapped for a symlink to somewhere else is
 * refused, never read or written.
 */
export function openConfinedSync(file: string, flags: number): { fd: number; stat: fs.Stats } {
  let fd: number;
  try {
    fd = fs.openSync(file, flags | fs.constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new FileSafetyError(
        'outside-roots',
        'The session file was replaced by a symbolic link; Canopy does not follow it.',
      );
    }
    throw wrap(error, 'Cannot open the session file');
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new FileSafetyError('changed', 'The session path is no longer a regular file.');
    const real = realPathOfDescriptor(fd, file, stat);
    if (real !== file) {
      throw new FileSafetyError(
        'outside-roots',
        'The session file now resolves to another place (a folder was replaced by a link); Canopy does not follow it.',
      );
    }
    return { fd, stat };
  } catch (error) {
    fs.closeSync(fd);
    throw wrap(error, 'Cannot open the session file');
  }
}

/** Reads `length` bytes at `position` through a descriptor (fewer at the end of the file). */
export function readAtSync(fd: number, position: number, length: number): Buffer {
  return readIntoSync(fd, position, Buffer.allocUnsafe(length));
}

/**
 * Fills `buffer` (or its first `length` bytes) from `position` and answers the part filled, a view
 * of `buffer`. For reads of a whole file in pieces: one buffer reused for every piece spares a fresh
 * allocation per piece, whose pages the kernel must map and zero on the first write (at 100 MB, most
 * of the read's time) and which the collector must then reclaim.
 */
export function readIntoSync(fd: number, position: number, buffer: Buffer, length = buffer.length): Buffer {
  let filled = 0;
  while (filled < length) {
    const bytesRead = fs.readSync(fd, buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/**
 * `length` bytes of `fd` from `start` in pieces of at most `pieceBytes`, all read into one buffer:
 * a piece is a view valid only until the next is asked for. Ends early where the file ends.
 */
export function* piecesOfSync(
  fd: number,
  start: number,
  length: number,
  pieceBytes: number,
): Generator<Buffer> {
  if (length <= 0) return;
  const buffer = Buffer.allocUnsafe(Math.min(pieceBytes, length));
  for (let at = start; at < start + length;) {
    const piece = readIntoSync(fd, at, buffer, Math.min(buffer.length, start + length - at));
    if (piece.length === 0) return;
    at += piece.length;
    yield piece;
  }
}

/**
 * The session file from `start` to its end (as it is while reading) in fresh buffers of at most
 * `chunkBytes`, through a verified descriptor (the outline printed by the CLI).
 */
export async function* readChunksConfined(
  file: string,
  start = 0,
  chunkBytes = READ_CHUNK_BYTES,
): AsyncGenerator<Buffer, void, undefined> {
  const { fd } = openConfinedSync(file, fs.constants.O_RDONLY);
  try {
    for (let position = start; ;) {
      const piece = readAtSync(fd, position, chunkBytes);
      if (piece.length === 0) return;
      position += piece.length;
      yield piece;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** The pieces of `pieces`, each shown to `see` before it is handed on. */
export function* seenSync<T>(pieces: Iterable<T>, see: (piece: T) => void): Generator<T> {
  for (const piece of pieces) {
    see(piece);
    yield piece;
  }
}

/** A file's bytes as read: their count and SHA-256, and a way to read them again in pieces. */
export interface ExactContent {
  size: number;
  /** The SHA-256 of the bytes, in hex. */
  sha256: string;
  /** The bytes again, in pieces (each valid only until the next is asked for). */
  pieces(): Iterable<Uint8Array>;
}

/** The byte count and SHA-256 (hex) of `pieces`, hashed one at a time. */
export function hashOfPieces(pieces: Iterable<Uint8Array>): { size: number; sha256: string } {
  const hash = createHash('sha256');
  let size = 0;
  for (const piece of pieces) {
    hash.update(piece);
    size += piece.length;
  }
  return { size, sha256: hash.digest('hex') };
}

/** The state of `file` through a verified descriptor (throws FileSafetyError when it is not that file). */
export function statConfinedSync(file: string): FileState {
  return withConfinedSync(file, (_fd, stat) => stateOf(stat));
}

/** `length` bytes at `start` through a verified descriptor. */
export function readRangeConfinedSync(file: string, start: number, length: number): Buffer {
  return withConfinedSync(file, (fd) => readAtSync(fd, start, length));
}

/** Runs `use` on a verified read-only descriptor of `file`, closing it afterwards. */
export function withConfinedSync<T>(file: string, use: (fd: number, stat: fs.Stats) => T): T {
  const { fd, stat } = openConfinedSync(file, fs.constants.O_RDONLY);
  try {
    return use(fd, stat);
  } finally {
    fs.closeSync(fd);
  }
}

// ------------------------------------------------------------------ any other file Canopy reads

/** How {@link readBoundedNoFollow} reads a file that is not a session file. */
export interface BoundedReadOptions {
  /** The most bytes read. A larger file is refused (`too-large`), or with `truncate` read up to it. */
  maxBytes: number;
  /**
   * Real folders the descriptor's real path must lie inside (not be). Default: the real path of the
   * file's own folder, taken just before the open.
   */
  inside?: readonly string[];
  /** Read the first `maxBytes` of a larger file instead of refusing it. */
  truncate?: boolean;
}

/** What {@link readBoundedNoFollow} read. */
export interface BoundedRead {
  bytes: Buffer;
  /** The file's size when its descriptor was checked (more than `bytes.length` when truncated). */
  size: number;
  truncated: boolean;
  /** The descriptor's real path. */
  real: string;
}

/**
 * O_NOFOLLOW: a final symlink is refused (ELOOP), never followed. O_NONBLOCK: a FIFO or a device
 * put where a file was expected opens at once instead of waiting for a writer (it is then refused
 * as not a regular file); on a regular file it changes nothing.
 */
const BOUNDED_READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

function boundedOpenError(error: unknown, file: string): FileSafetyError {
  if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
    return new FileSafetyError('outside-roots', `${file} is a symbolic link; Canopy does not follow it.`, {
      cause: error,
    });
  }
  return wrap(error, `Cannot open ${file}`);
}

function realInside(file: string, options: BoundedReadOptions): readonly string[] {
  if (options.inside) return options.inside;
  try {
    return [fs.realpathSync(path.dirname(file))];
  } catch (error) {
    throw wrap(error, `Cannot open ${file}`);
  }
}

/**
 * The checks on an open descriptor, before a byte is read: a regular file, whose real path lies
 * inside one of `inside`, no larger than `maxBytes` (unless `truncate`). Answers the bytes to read.
 */
function checkBounded(
  fd: number,
  file: string,
  stat: fs.Stats,
  inside: readonly string[],
  options: BoundedReadOptions,
): { real: string; length: number } {
  if (!stat.isFile()) {
    throw new FileSafetyError('not-a-file', `${file} is not a regular file (a FIFO, a device or a folder).`);
  }
  const real = realPathOfDescriptor(fd, file, stat);
  if (!inside.some((folder) => real !== folder && isInsideFolder(folder, real))) {
    throw new FileSafetyError('outside-roots', `${file} resolves outside the folder it is read from.`);
  }
  if (stat.size > options.maxBytes && !options.truncate) {
    throw new FileSafetyError(
      'too-large',
      `${file} is ${stat.size} bytes; Canopy reads at most ${options.maxBytes} bytes of it.`,
    );
  }
  return { real, length: Math.min(stat.size, options.maxBytes) };
}

function isInsideFolder(folder: string, candidate: string): boolean {
  const relative = path.relative(folder, candidate);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/**
 * THE way to read any file that is not a session file (blobs, artifacts, lock files, Canopy's own
 * state and config, pi / oh-my-pi configuration): opened without following a final link and without
 * blocking, then checked on the descriptor (a regular file, its real path inside `inside`, at most
 * `maxBytes`) before a byte is read, and read from that descriptor only. A file swapped for a link,
 * a FIFO, a device or a larger file after any earlier look is refused or read within the bound; never
 * followed, never waited on, never read whole past the bound. Throws FileSafetyError: `deleted`
 * (missing), `outside-roots` (a link, or elsewhere), `not-a-file`, `too-large`, `failed`.
 */
export async function readBoundedNoFollow(file: string, options: BoundedReadOptions): Promise<BoundedRead> {
  const inside = realInside(file, options);
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, BOUNDED_READ_FLAGS);
  } catch (error) {
    throw boundedOpenError(error, file);
  }
  try {
    const stat = await handle.stat();
    const { real, length } = checkBounded(handle.fd, file, stat, inside, options);
    const bytes = Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await handle.read(bytes, filled, length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { bytes: bytes.subarray(0, filled), size: stat.size, truncated: stat.size > length, real };
  } catch (error) {
    throw wrap(error, `Cannot read ${file}`);
  } finally {
    await handle.close();
  }
}

/** {@link readBoundedNoFollow}, synchronously (for small files read on the write path: lock files). */
export function readBoundedNoFollowSync(file: string, options: BoundedReadOptions): BoundedRead {
  const inside = realInside(file, options);
  let fd: number;
  try {
    fd = fs.openSync(file, BOUNDED_READ_FLAGS);
  } catch (error) {
    throw boundedOpenError(error, file);
  }
  try {
    const stat = fs.fstatSync(fd);
    const { real, length } = checkBounded(fd, file, stat, inside, options);
    const bytes = readAtSync(fd, 0, length);
    return { bytes, size: stat.size, truncated: stat.size > length, real };
  } catch (error) {
    throw wrap(error, `Cannot read ${file}`);
  } finally {
    fs.closeSync(fd);
  }
}

/** The most bytes of a configuration or settings file read (they are a few hundred bytes). */
export const MAX_CONFIG_BYTES = 1 << 20;

/**
 * A small JSON file (configuration, Canopy's state) read through {@link readBoundedNoFollow}:
 * undefined when it does not exist; a link, a FIFO, a file over `maxBytes` or bad JSON throw.
 */
export async function readJsonNoFollow(file: string, maxBytes = MAX_CONFIG_BYTES): Promise<unknown> {
  let read: BoundedRead;
  try {
    read = await readBoundedNoFollow(file, { maxBytes });
  } catch (error) {
    if (error instanceof FileSafetyError && error.reason === 'deleted') return undefined;
    throw error;
  }
  return JSON.parse(read.bytes.toString('utf8')) as unknown;
}

/**
 * Reads a small secret kept in the state folder through {@link readBoundedNoFollowSync}, creating
 * it (owner-only, mode 0600, renamed into place: a link or FIFO there is replaced, never followed)
 * with `create()` when it is missing, not one valid line, or not a small regular file.
 */
export function readOrCreateSecretSync(
  file: string,
  create: () => string,
  valid: (value: string) => boolean,
): string {
  try {
    const value = readBoundedNoFollowSync(file, { maxBytes: 4096 }).bytes.toString('utf8').trim();
    if (valid(value)) return value;
  } catch (error) {
    if (!(error instanceof FileSafetyError) || error.reason === 'failed') throw error;
  }
  const value = create();
  atomicWriteSync(file, `${value}\n`);
  return value;
}

// ------------------------------------------------------------------ oh-my-pi's lock file

/**
 * The longest Canopy honours a lock whose process runs: oh-my-pi holds it for the microseconds of
 * one append or rename, so a lock this old is a leftover (its pid reused by another process).
 */
export const LOCK_STALE_MS = 10_000;
/**
 * oh-my-pi 18.3.4's own rule for a lock without a valid `pid:time` record (empty: its writer is
 * between creating it and writing it; garbage): held only while its modification time is this
 * recent (SESSION_PUBLISH_LOCK_WAIT_MS in its session-storage.ts), else a crash orphan.
 */
export const LOCK_UNRECORDED_MS = 500;
/** A lock's time may be this far ahead of Canopy's clock (clock granularity); further: not honoured. */
export const LOCK_CLOCK_SLACK_MS = 500;
/** oh-my-pi writes `<pid>:<ms>\n`, a few dozen bytes; a larger file is not its lock. */
const MAX_LOCK_BYTES = 128;

/** oh-my-pi's lock beside a session while it writes: `.<name>.jsonl.lock`, containing `pid:ms`. */
export function lockFileOf(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.lock`);
}

/** The largest process id any system gives (a larger one is no process: not a valid record). */
const MAX_PID = 0x7fffffff;

/** oh-my-pi's test: ESRCH is a dead process; EPERM (or anything else) a live one. */
function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** What oh-my-pi's lock file beside a session says now. */
export type LockState =
  | { held: false; ignored?: undefined }
  | { held: true; message: string }
  /** A lock file is there, but oh-my-pi's rule (or Canopy's bound on it) says it is not held. */
  | { held: false; ignored: string; key: string };

function seconds(ms: number): string {
  return `${(Math.abs(ms) / 1000).toFixed(1)} s`;
}

/**
 * oh-my-pi's lock on `file` as Canopy honours it (docs/safety.md#appends). The lock is read like every
 * other file (readBoundedNoFollowSync: no link followed, no FIFO waited on, at most 128 bytes, a
 * regular file in the session's folder), so it never blocks or grows memory. Then oh-my-pi's own rule
 * (session-storage.ts): a `pid:time` record is held while its process runs; anything else is held
 * only while the file is younger than LOCK_UNRECORDED_MS. And Canopy's bound: never a lock whose
 * time is older than LOCK_STALE_MS or ahead of the clock, so no lock blocks writes for long.
 */
export function lockStateOf(file: string, now: number): LockState {
  const lock = lockFileOf(file);
  const name = path.basename(lock);
  let read: BoundedRead;
  try {
    read = readBoundedNoFollowSync(lock, { maxBytes: MAX_LOCK_BYTES, inside: [path.dirname(file)] });
  } catch (error) {
    if (!(error instanceof FileSafetyError) || error.reason === 'deleted') return { held: false };
    const why =
      error.reason === 'outside-roots'
        ? 'is a symbolic link'
        : error.reason === 'not-a-file'
          ? 'is not a regular file'
          : error.reason === 'too-large'
            ? `is larger than the ${MAX_LOCK_BYTES} bytes of a lock`
            : `cannot be read (${error.message})`;
    return ignoredLock(lock, `${name} ${why}: it is not a lock oh-my-pi writes, so Canopy ignored it.`);
  }
  const text = read.bytes.toString('latin1');
  const match = /^(\d+):(\d+)\s*$/.exec(text);
  const pid = match ? Number(match[1]) : NaN;
  const since = match ? Number(match[2]) : NaN;
  if (match && pid > 0 && pid <= MAX_PID && Number.isSafeInteger(since)) {
    const age = now - since;
    if (!processAlive(pid)) {
      return ignoredLock(lock, `${name} was left by process ${pid}, which is gone: Canopy ignored it.`, text);
    }
    if (age > LOCK_STALE_MS) {
      return ignoredLock(
        lock,
        `${name} says process ${pid} has held it for ${seconds(age)}, longer than any write (Canopy honours a lock for ${seconds(LOCK_STALE_MS)}): ignored.`,
        text,
      );
    }
    if (age < -LOCK_CLOCK_SLACK_MS) {
      return ignoredLock(lock, `${name} is dated ${seconds(age)} in the future: Canopy ignored it.`, text);
    }
    return {
      held: true,
      message: `oh-my-pi (process ${pid}) holds the session's lock file ${name} (for ${seconds(age)})`,
    };
  }
  // No valid record: held only while it is as young as a lock its writer has not written yet.
  const mtimeMs = fs.lstatSync(lock, { throwIfNoEntry: false })?.mtimeMs;
  if (mtimeMs === undefined) return { held: false };
  const age = now - mtimeMs;
  if (age >= -LOCK_CLOCK_SLACK_MS && age <= LOCK_UNRECORDED_MS) {
    return { held: true, message: `oh-my-pi is creating the session's lock file ${name}` };
  }
  return ignoredLock(
    lock,
    `${name} holds no "pid:time" record and was last changed ${seconds(age)} ${age < 0 ? 'in the future' : 'ago'} (oh-my-pi counts such a lock as held for ${seconds(LOCK_UNRECORDED_MS)}): Canopy ignored it.`,
    `${text}@${mtimeMs}`,
  );
}

function ignoredLock(lock: string, message: string, content = ''): LockState {
  return { held: false, ignored: message, key: `${lock}\0${content}` };
}

// ------------------------------------------------------------------ appending

/** One write() call; injectable so tests can simulate a full disk or a racing writer. */
export type WriteOnce = (fd: number, data: Buffer) => number;

export const writeOnce: WriteOnce = (fd, data) => fs.writeSync(fd, data, 0, data.length);

export interface AppendOptions {
  now: number;
  write?: WriteOnce;
  /** Where the append is recorded before its write, and cleared after (crash repair). */
  journal?: Pick<AppendJournal, 'record' | 'clear'>;
}

export interface AppendResult {
  /** Where our bytes start in the file. */
  start: number;
  /** Complete lines another writer appended just before ours (normally empty). */
  before: Buffer;
  state: FileState;
}

function freeBytes(file: string): number | undefined {
  try {
    const stats = fs.statfsSync(file);
    return stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
}

/**
 * Appends `data` (whole `\n`-terminated lines) to `file`, which must still be exactly `seen`.
 * Refused before writing when: the file was deleted, replaced or resolves outside the roots; it
 * changed since `seen`; it ends mid-line; oh-my-pi holds its lock. Then one write() on an O_APPEND
 * descriptor. A failed or short write is rolled back (truncated to where it started, when nothing
 * else was appended since) and reported. Afterwards the bytes are read back: the byte before ours
 * must be `\n` and ours intact, else the line was torn by another writer and that is reported.
 */
export function appendConfinedSync(
  file: string,
  data: Buffer,
  seen: FileState,
  options: AppendOptions,
): AppendResult {
  if (data.length === 0 || data[data.length - 1] !== 0x0a) {
    throw new Error('internal: appended data must be whole lines');
  }
  const { fd, stat } = openConfinedSync(file, fs.constants.O_RDWR | fs.constants.O_APPEND);
  try {
    const now = stateOf(stat);
    if (!sameFile(seen, now)) {
      throw new FileSafetyError('changed', 'The session file was replaced by another file.');
    }
    if (!unchanged(seen, now)) {
      throw new FileSafetyError('changed', 'The session file changed since Canopy last read it.');
    }
    const lock = lockStateOf(file, options.now);
    if (lock.held) throw new FileSafetyError('locked', `${lock.message}.`);
    const start = stat.size;
    if (start > 0 && readAtSync(fd, start - 1, 1)[0] !== 0x0a) {
      throw new FileSafetyError('mid-write', 'The last line of the session file is cut off.');
    }
    // Recorded before the write, so that a crash in the middle of it can be repaired (append-journal.ts).
    try {
      options.journal?.record({ file, dev: stat.dev, ino: stat.ino, offset: start, data });
    } catch (error) {
      throw new FileSafetyError(
        'failed',
        `Could not record the write in Canopy's state folder first (${(error as Error).message}); nothing was written.`,
        { cause: error },
      );
    }
    try {
      return writeRecorded(fd, file, start, data, options);
    } finally {
      options.journal?.clear(file);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** The write of an append and what follows it (rollback or read-back); see appendConfinedSync. */
function writeRecorded(
  fd: number,
  file: string,
  start: number,
  data: Buffer,
  options: AppendOptions,
): AppendResult {
  let written = 0;
  try {
    written = (options.write ?? writeOnce)(fd, data);
  } catch (error) {
    if (!rollBack(fd, start, data)) {
      throw new FileSafetyError(
        'torn',
        `The write failed (${(error as Error).message}) after part of the line was written, and another program appended after it.`,
        { cause: error },
      );
    }
    throw wrap(error, 'Could not write to the session file');
  }
  if (written < data.length) {
    const rolledBack = rollBack(fd, start, data);
    const free = freeBytes(file);
    const reason: FileRefusal = free !== undefined && free < data.length ? 'disk-full' : 'failed';
    throw new FileSafetyError(
      rolledBack ? reason : 'torn',
      rolledBack
        ? `Only ${written} of ${data.length} bytes could be written; they were removed again.`
        : `Only ${written} of ${data.length} bytes could be written and another program appended after them.`,
    );
  }
  return verifyAppended(fd, start, data);
}

/**
 * After a failed or short write: truncates back to `start` when everything after it is a prefix
 * of our data (nothing else was appended since). False when that cannot be done safely.
 */
function rollBack(fd: number, start: number, data: Buffer): boolean {
  try {
    const size = fs.fstatSync(fd).size;
    if (size === start) return true;
    if (size < start || size > start + data.length) return false;
    const after = readAtSync(fd, start, size - start);
    if (!after.equals(data.subarray(0, after.length))) return false;
    fs.ftruncateSync(fd, start);
    return true;
  } catch {
    return false;
  }
}

function verifyAppended(fd: number, start: number, data: Buffer): AppendResult {
  const stat = fs.fstatSync(fd);
  const from = Math.max(0, start - 1);
  const bytes = readAtSync(fd, from, stat.size - from);
  const lead = start - from;
  const at = bytes.indexOf(data, lead);
  if (at === lead && (lead === 0 || bytes[0] === 0x0a)) {
    return { start, before: Buffer.alloc(0), state: stateOf(stat) };
  }
  // Another writer got in between our last check and our write: whole lines are fine (ours came
  // after them); anything else means a line is damaged.
  if (at > lead && bytes[at - 1] === 0x0a && (lead === 0 || bytes[0] === 0x0a)) {
    return { start: from + at, before: Buffer.from(bytes.subarray(lead, at)), state: stateOf(stat) };
  }
  throw new FileSafetyError(
    'torn',
    "Another program wrote part of a line at the same moment as Canopy: the line written and the other program's line are damaged.",
  );
}

// ------------------------------------------------------------------ new files

function writeAllSync(fd: number, data: Uint8Array): void {
  let written = 0;
  while (written < data.length) written += fs.writeSync(fd, data, written, data.length - written);
}

/** Refuses a folder that is no longer where it was (replaced by a link) or outside the roots. */
function checkFolder(dir: string, confined: (realDir: string) => boolean): void {
  let real: string;
  try {
    real = fs.realpathSync(dir);
  } catch (error) {
    throw wrap(error, 'The session folder is gone');
  }
  if (real !== dir || !confined(real)) {
    throw new FileSafetyError(
      'outside-roots',
      'The session folder now resolves outside the configured folders; nothing was written.',
    );
  }
}

/**
 * Creates `file` (never an existing file) with `data` and permission bits `mode`, in a folder that
 * must still be the real, confined folder, atomically (see createAtomicallySync).
 */
export function createConfinedSync(
  file: string,
  data: Uint8Array,
  mode: number,
  confined: (realDir: string) => boolean,
): void {
  createAtomicallySync(file, [data], mode, confined);
}

/**
 * A new file (a branch, a fork) appears whole or not at all: its pieces go to a hidden temporary
 * file in the same verified folder (O_EXCL, synced), which is then linked to `file` (failing if
 * that name exists: never overwriting) and removed. A crash part-way leaves only the hidden
 * temporary file, which no listing shows, never a session cut off mid-line under `file`.
 */
function createAtomicallySync(
  file: string,
  pieces: Iterable<Uint8Array>,
  mode: number,
  confined: (realDir: string) => boolean,
): void {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  createConfinedFromSync(temp, pieces, mode, confined);
  try {
    checkFolder(dir, confined);
    fs.linkSync(temp, file);
  } catch (error) {
    throw wrap(error, 'Could not create the session file');
  } finally {
    fs.rmSync(temp, { force: true });
  }
  fsyncDirSync(dir);
}

/** Bytes of lines gathered before one write: few system calls, and never the whole file at once. */
export const LINE_BATCH_BYTES = 1 << 20;

/**
 * `lines` (each without its "\n") as UTF-8 pieces of whole lines of at most `batchBytes` (a longer
 * line is a piece of its own): few system calls, and never the whole file at once. Lines are encoded
 * straight into one buffer reused for every piece (joining them into a string first, then encoding
 * a fresh buffer, was most of a 300 MB migration's own CPU time), so a piece is a view valid only
 * until the next is asked for.
 */
export function* lineBatches(lines: Iterable<string>, batchBytes = LINE_BATCH_BYTES): Generator<Buffer> {
  const buffer = Buffer.allocUnsafe(batchBytes);
  let used = 0;
  for (const line of lines) {
    if (line.includes('\n')) throw new Error('internal: a session line must not contain a raw newline');
    // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair: 4 for 2).
    const mostBytes = 3 * line.length + 1;
    if (used > 0 && used + mostBytes > batchBytes) {
      yield buffer.subarray(0, used);
      used = 0;
    }
    if (mostBytes > batchBytes) {
      yield Buffer.from(`${line}\n`, 'utf8');
      continue;
    }
    used += buffer.write(line, used, 'utf8');
    buffer[used++] = 0x0a;
  }
  if (used > 0) yield buffer.subarray(0, used);
}

/**
 * Creates `file` like {@link createConfinedSync} from `lines` (each without its "\n"), written batch
 * by batch as they are produced, so a large file is never one string or one buffer. A failure
 * anywhere (producing a line included) leaves no file.
 */
export function createConfinedLinesSync(
  file: string,
  lines: Iterable<string>,
  mode: number,
  confined: (realDir: string) => boolean,
): void {
  createAtomicallySync(file, lineBatches(lines), mode, confined);
}

function createConfinedFromSync(
  file: string,
  pieces: Iterable<Uint8Array>,
  mode: number,
  confined: (realDir: string) => boolean,
): void {
  const dir = path.dirname(file);
  checkFolder(dir, confined);
  let fd: number;
  try {
    fd = fs.openSync(
      file,
      fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
      0o600,
    );
  } catch (error) {
    throw wrap(error, 'Could not create the session file');
  }
  try {
    const stat = fs.fstatSync(fd);
    if (realPathOfDescriptor(fd, file, stat) !== file) {
      throw new FileSafetyError(
        'outside-roots',
        'The session folder was replaced while writing; nothing was kept.',
      );
    }
    fs.fchmodSync(fd, mode);
    for (const piece of pieces) writeAllSync(fd, piece);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    // A line that could not be produced (an entry not read back) keeps its own error.
    const systemError = error instanceof Error && 'syscall' in error;
    throw error instanceof FileSafetyError || systemError
      ? wrap(error, 'Could not write the new session file')
      : error;
  }
  fsyncDirSync(dir);
}

/**
 * The byte-for-byte backup of `original` before a migration rewrite: `<file>.v<version>.bak`, or
 * `.v<version>.<n>.bak` when that name holds anything else (a partial copy from a crash, a stale
 * backup of another file). Copied piece by piece to a temporary name (what is copied must hash to
 * `original.sha256`, else the session file changed meanwhile), fsynced, read back and compared by
 * its hash, then linked into place (never overwriting). Nothing is ever held whole: files are read
 * in pieces of `pieceBytes`. Returns the backup's path.
 */
export function backupExactSync(
  file: string,
  version: number,
  original: ExactContent,
  mode: number,
  confined: (realDir: string) => boolean,
  pieceBytes = READ_CHUNK_BYTES,
): string {
  const dir = path.dirname(file);
  checkFolder(dir, confined);
  for (let n = 1; n < 1000; n++) {
    const name = n === 1 ? `${file}.v${version}.bak` : `${file}.v${version}.${n}.bak`;
    const existing = contentOfBackup(name, original.size, pieceBytes);
    if (existing) {
      if (existing.size === original.size && existing.sha256 === original.sha256) return name;
      continue;
    }
    const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.bak.tmp`);
    try {
      const copied = createHash('sha256');
      let copiedBytes = 0;
      const copy = seenSync(original.pieces(), (piece) => {
        copied.update(piece);
        copiedBytes += piece.length;
      });
      createConfinedFromSync(temp, copy, mode, confined);
      if (copiedBytes !== original.size || copied.digest('hex') !== original.sha256) {
        throw new FileSafetyError(
          'changed',
          'The session file changed during the migration; nothing was replaced.',
        );
      }
      const readBack = withConfinedSync(temp, (fd, stat) =>
        hashOfPieces(piecesOfSync(fd, 0, stat.size, pieceBytes)),
      );
      if (readBack.size !== original.size || readBack.sha256 !== original.sha256) {
        throw new FileSafetyError('failed', 'The backup did not read back identical to the session file.');
      }
      fs.linkSync(temp, name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue; // taken meanwhile: next name
      throw wrap(error, 'Could not write the backup');
    } finally {
      fs.rmSync(temp, { force: true });
    }
    fsyncDirSync(dir);
    return name;
  }
  throw new FileSafetyError('failed', 'Too many backups beside the session file.');
}

/**
 * What the file at a backup's name holds: undefined when there is none; its size alone when that
 * differs from `size` (it cannot be the backup); else its size and hash, read in pieces.
 */
function contentOfBackup(
  name: string,
  size: number,
  pieceBytes: number,
): { size: number; sha256?: string } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(name, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw wrap(error, 'Cannot read a backup');
  }
  try {
    const existing = fs.fstatSync(fd).size;
    if (existing !== size) return { size: existing };
    return hashOfPieces(piecesOfSync(fd, 0, existing, pieceBytes));
  } catch (error) {
    throw wrap(error, 'Cannot read a backup');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Replaces `file` with `content` atomically (a temporary file in the same verified folder, written
 * piece by piece as `content` produces them, fsync, rename), keeping its permission bits, provided
 * it is still exactly `seen`. A failure before the rename (producing a piece included) removes the
 * temporary file and leaves `file` as it was.
 */
export function replaceConfinedSync(
  file: string,
  content: Iterable<Uint8Array>,
  seen: FileState,
  confined: (realDir: string) => boolean,
): FileState {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  createConfinedFromSync(temp, content, seen.mode, confined);
  // The old file stays open across the rename, to catch a line appended to it meanwhile.
  let old: number | undefined;
  try {
    const opened = openConfinedSync(file, fs.constants.O_RDONLY);
    old = opened.fd;
    if (!unchanged(seen, stateOf(opened.stat))) {
      throw new FileSafetyError(
        'changed',
        'The session file changed during the migration; nothing was replaced.',
      );
    }
    fs.renameSync(temp, file);
  } catch (error) {
    if (old !== undefined) fs.closeSync(old);
    fs.rmSync(temp, { force: true });
    throw wrap(error, 'Could not replace the session file');
  }
  fsyncDirSync(dir);
  try {
    const late = fs.fstatSync(old).size - seen.size;
    if (late > 0) {
      // Another program appended to the old file between the last check and the rename: carry its
      // bytes over to the new file so they are not lost, then make the caller read the file again.
      const current = openConfinedSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND);
      try {
        for (const piece of piecesOfSync(old, seen.size, late, LINE_BATCH_BYTES))
          writeAllSync(current.fd, piece);
        fs.fsyncSync(current.fd);
      } finally {
        fs.closeSync(current.fd);
      }
      throw new FileSafetyError(
        'changed',
        'Another program appended during the migration; its lines were carried over to the migrated file.',
      );
    }
  } finally {
    fs.closeSync(old);
  }
  const { fd, stat } = openConfinedSync(file, fs.constants.O_RDONLY);
  fs.closeSync(fd);
  return stateOf(stat);
}
