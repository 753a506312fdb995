// The general file helpers of the server (listing, stats, state files, watching). Only the modules
// of files/ import node:fs (an ESLint rule enforces it, docs/architecture.md#invariants);
// confined.ts holds every read and write of a session file, so the file-safety rules live in one place.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

export interface FileIdentity {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  dev: number;
}

function identityOf(stat: fs.Stats): FileIdentity {
  return { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, dev: stat.dev };
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

/** The same, synchronous: for a choice made once while the configuration is read. */
export function isDirectorySync(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
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
 * A session file's name: `*.jsonl`, or an archived `*.jsonl.gz` (oh-my-pi). Hidden names are the
 * staging and lock files of a writer (`.<name>.jsonl.lock`, `.<name>.<rand>.tmp`) and never sessions;
 * `.tmp` / `.bak` / `.lock` names do not end in `.jsonl` anyway.
 */
export function isSessionFileName(name: string): boolean {
  if (name.startsWith('.')) return false;
  return name.endsWith('.jsonl') || name.endsWith('.jsonl.gz');
}

/**
 * Every session file under `root`, found with an explicit stack (no recursion), following
 * symlinked directories only when they resolve inside the root; each directory is visited once
 * (and told to `onFolder`, by its real path). A link that cannot be resolved (a symlink loop,
 * ELOOP) or an unreadable folder is skipped with a warning, so one bad entry never stops a scan.
 */
export async function listJsonlFiles(
  root: string,
  warn: (where: string, message: string) => void = () => undefined,
  onFolder: (realDir: string) => void = () => undefined,
): Promise<string[]> {
  let realRoot: string | undefined;
  try {
    realRoot = await realpathOrUndefined(root);
  } catch (error) {
    warn(root, `skipping ${root}: ${(error as Error).message}`);
    return [];
  }
  if (!realRoot) return [];
  const rootStat = await fsp.stat(realRoot).catch(() => undefined);
  if (!rootStat) return [];
  if (rootStat.isFile()) return isSessionFileName(path.basename(realRoot)) ? [realRoot] : [];
  const found: string[] = [];
  const seen = new Set<string>([realRoot]);
  const stack = [realRoot];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    onFolder(dir);
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
        if (isSessionFileName(entry.name)) found.push(full);
      } else if (entry.isSymbolicLink()) {
        let real: string | undefined;
        try {
          real = await realpathOrUndefined(full);
        } catch (error) {
          warn(
            full,
            `skipping ${full}: ${(error as NodeJS.ErrnoException).code ?? ''} ${(error as Error).message}`,
          );
          continue;
        }
        if (!real || !isInside(realRoot, real)) continue; // links out of the root are refused
        const stat = await fsp.stat(real).catch(() => undefined);
        if (stat?.isDirectory() && !seen.has(real)) {
          seen.add(real);
          stack.push(real);
        } else if (stat?.isFile() && isSessionFileName(entry.name)) {
          found.push(real);
        }
      }
    }
  }
  return found;
}

/**
 * Bytes per read when a whole session file is read. A session file can be larger than the longest
 * string the runtime holds (about 512 MB), so it is never decoded at once: each piece is parsed on
 * its own (the parser keeps a line cut between two pieces).
 */
export const READ_CHUNK_BYTES = 4 << 20;

/**
 * Bytes of a whole read parsed per turn of the event loop (~5–10 ms of parsing): the requests that
 * come in meanwhile (the page's script, its API calls, another session's snapshot) are served
 * between two slices instead of after a whole piece. Each slice is also what the running hash takes
 * at once (running-hash.ts: one slot of its ring).
 */
export const PARSE_SLICE_BYTES = 512 << 10;

export function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Makes a rename or a new file in `dir` durable. */
export function fsyncDirSync(dir: string): void {
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

/**
 * Replaces one of Canopy's own state files atomically: a temporary file created owner-only (0600)
 * from its first byte, fsync, rename, fsync the directory. Nobody else can read a state file at
 * any moment, not even while it is being written.
 */
export function atomicWriteSync(file: string, data: string | Uint8Array): void {
  const dir = path.dirname(file);
  ensurePrivateDirSync(dir);
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(temp, 'wx', 0o600);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let written = 0;
    while (written < bytes.length) written += fs.writeSync(fd, bytes, written, bytes.length - written);
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  try {
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fsyncDirSync(dir);
}

/** Canopy's state folder (it holds the access token): owner-only, created so and tightened if wider. */
/** Creates `file` with `text` (never an existing file: `wx`), owner-only, and syncs it to disk. */
export function createNewFileSync(file: string, text: string): void {
  const fd = fs.openSync(file, 'wx', 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export function ensurePrivateDirSync(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = fs.statSync(dir);
  if ((stat.mode & 0o077) !== 0 && stat.uid === process.getuid?.()) fs.chmodSync(dir, 0o700);
}

export function ensureDirSync(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
}

export function writeJsonFileSync(file: string, value: unknown): void {
  atomicWriteSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

export function pathExistsSync(p: string): boolean {
  return fs.existsSync(p);
}

/** Is there a directory entry at `p` (a link counts, and is not followed)? */
export async function entryExists(p: string): Promise<boolean> {
  try {
    await fsp.lstat(p);
    return true;
  } catch {
    return false;
  }
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
