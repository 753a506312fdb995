// The only module of the server that touches the file system. Everything else goes through it,
// so the file-safety rules (append whole lines, never after a cut-off line, atomic rewrites,
// backups that are never overwritten) live in one place.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

export interface FileIdentity {
  size: number;
  mtimeMs: number;
  ino: number;
  dev: number;
}

function identityOf(stat: fs.Stats): FileIdentity {
  return { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, dev: stat.dev };
}

export function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export async function statFile(file: string): Promise<FileIdentity | undefined> {
  try {
    const stat = await fsp.stat(file);
    return stat.isFile() ? identityOf(stat) : undefined;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export function statFileSync(file: string): FileIdentity | undefined {
  try {
    const stat = fs.statSync(file);
    return stat.isFile() ? identityOf(stat) : undefined;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await fsp.stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

/** realpath, or undefined when the path does not exist. */
export async function realpathOrUndefined(p: string): Promise<string | undefined> {
  try {
    return await fsp.realpath(p);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export function realpathSyncOrUndefined(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Is `candidate` (already real) equal to or inside `root` (already real)? */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Every `*.jsonl` file under `root`, found with an explicit stack (no recursion), following
 * symlinked directories only when they resolve inside the root; each directory is visited once.
 */
export async function listJsonlFiles(root: string): Promise<string[]> {
  const realRoot = await realpathOrUndefined(root);
  if (!realRoot) return [];
  const rootStat = await fsp.stat(realRoot);
  if (rootStat.isFile()) return realRoot.endsWith('.jsonl') ? [realRoot] : [];
  const found: string[] = [];
  const seen = new Set<string>([realRoot]);
  const stack = [realRoot];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    let entries: fs.Dirent[];
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable or vanished directory: skip it, the next scan retries
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!seen.has(full)) {
          seen.add(full);
          stack.push(full);
        }
      } else if (entry.isFile()) {
        if (entry.name.endsWith('.jsonl')) found.push(full);
      } else if (entry.isSymbolicLink()) {
        const real = await realpathOrUndefined(full);
        if (!real || !isInside(realRoot, real)) continue; // links out of the root are refused
        const stat = await fsp.stat(real).catch(() => undefined);
        if (stat?.isDirectory() && !seen.has(real)) {
          seen.add(real);
          stack.push(real);
        } else if (stat?.isFile() && entry.name.endsWith('.jsonl')) {
          found.push(real);
        }
      }
    }
  }
  return found;
}

/** Reads `length` bytes at `start` (fewer at the end of the file). */
export async function readRange(file: string, start: number, length: number): Promise<Buffer> {
  const handle = await fsp.open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await handle.read(buffer, filled, length - filled, start + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** Synchronous read of a range, for the write path's check-then-append critical section. */
export function readRangeSync(file: string, start: number, length: number): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < length) {
      const bytesRead = fs.readSync(fd, buffer, filled, length - filled, start + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Bytes per read when a whole session file is read. A session file can be larger than the longest
 * string the runtime holds (about 512 MB), so it is never decoded at once: each piece is parsed on
 * its own (the parser keeps a line cut between two pieces).
 */
export const READ_CHUNK_BYTES = 4 << 20;

/** The file from `start` to its end (as it is while reading), in fresh buffers of at most `chunkBytes`. */
export async function* readChunks(
  file: string,
  start = 0,
  chunkBytes = READ_CHUNK_BYTES,
): AsyncGenerator<Buffer, void, undefined> {
  const handle = await fsp.open(file, 'r');
  try {
    let position = start;
    for (;;) {
      const buffer = Buffer.allocUnsafe(chunkBytes);
      const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
      if (bytesRead === 0) return;
      position += bytesRead;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

export function readWholeSync(file: string): Buffer {
  return fs.readFileSync(file);
}

export function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export class MidWriteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MidWriteError';
  }
}

export class ChangedUnderneathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChangedUnderneathError';
  }
}

/**
 * Appends complete lines, one `write` per line (each ending in `\n`), to a file that must still
 * be exactly `expectedSize` bytes long and end in `\n` (or be empty). The check and the writes are
 * synchronous so nothing of ours interleaves; another process could still write between them, which
 * is why the size is compared again through the same descriptor right before writing.
 * Returns the new size.
 */
export function appendLinesSync(file: string, lines: readonly string[], expectedSize: number): number {
  // 'a+' so the same descriptor can read the last byte; writes still always go to the end.
  const fd = fs.openSync(file, 'a+');
  try {
    const stat = fs.fstatSync(fd);
    if (stat.size !== expectedSize) {
      throw new ChangedUnderneathError(`the file is ${stat.size} bytes, expected ${expectedSize}`);
    }
    if (stat.size > 0) {
      const last = Buffer.alloc(1);
      fs.readSync(fd, last, 0, 1, stat.size - 1);
      if (last[0] !== 0x0a) throw new MidWriteError('the last line of the file is cut off');
    }
    let size = stat.size;
    for (const line of lines) {
      if (line.includes('\n')) throw new Error('a session line must not contain a raw newline');
      const bytes = Buffer.from(`${line}\n`, 'utf8');
      let written = 0;
      // writeSync may write less than asked on some file systems; finish the same line.
      while (written < bytes.length) written += fs.writeSync(fd, bytes, written, bytes.length - written);
      size += bytes.length;
    }
    return size;
  } finally {
    fs.closeSync(fd);
  }
}

/** Creates a new file with `text`; refuses to overwrite an existing one. */
export function createFileSync(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'wx');
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function fsyncDirSync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Replaces `file` atomically: temp file in the same directory, fsync, rename, fsync the directory. */
export function atomicWriteSync(file: string, data: string | Uint8Array): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(temp, 'wx');
  try {
    fs.writeSync(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  try {
    // Keep the original's permission bits on the replacement.
    const mode = statModeOrUndefined(file);
    if (mode !== undefined) fs.chmodSync(temp, mode);
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fsyncDirSync(dir);
}

function statModeOrUndefined(file: string): number | undefined {
  try {
    return fs.statSync(file).mode & 0o7777;
  } catch {
    return undefined;
  }
}

/**
 * Copies `file` byte for byte to `backup` unless a backup already exists there (a backup is never
 * overwritten). Returns whether a copy was made.
 */
export function backupOnceSync(file: string, backup: string): boolean {
  try {
    fs.copyFileSync(file, backup, fs.constants.COPYFILE_EXCL);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

export function ensureDirSync(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
}

export async function readJsonFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
  return JSON.parse(text) as unknown;
}

export function writeJsonFileSync(file: string, value: unknown): void {
  atomicWriteSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Reads a small secret kept in the state folder, creating it (owner-only, mode 0600) with
 * `create()` when it is missing or unreadable as one non-empty line.
 */
export function readOrCreateSecretSync(
  file: string,
  create: () => string,
  valid: (value: string) => boolean,
): string {
  try {
    const value = fs.readFileSync(file, 'utf8').trim();
    if (valid(value)) return value;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  const value = create();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  atomicWriteSync(file, `${value}\n`);
  fs.chmodSync(file, 0o600);
  return value;
}

export function pathExistsSync(p: string): boolean {
  return fs.existsSync(p);
}

export interface Watcher {
  close(): void;
}

/**
 * fs.watch with `recursive` where the platform supports it; errors (a vanished directory, too many
 * watches) are swallowed because the periodic rescan covers for a missing watcher.
 */
export function watchPath(
  target: string,
  recursive: boolean,
  onChange: (file: string | undefined) => void,
): Watcher {
  try {
    const watcher = fs.watch(target, { recursive, persistent: false }, (_event, name) => {
      onChange(name ? path.join(target, name.toString()) : undefined);
    });
    watcher.on('error', () => watcher.close());
    return { close: () => watcher.close() };
  } catch {
    if (recursive) return watchPath(target, false, onChange);
    return { close: () => undefined };
  }
}
