import type { LeafChange, ServerEvent } from '@canopy/protocol';
import {
  SessionManager,
  SessionWriteError,
  type IssueKind,
  type SessionEntry,
  type SessionHeader,
  type SessionStorage,
  type SessionStorageProvider,
} from '@canopy/session-core';
import { AppError } from '../errors';
import {
  appendConfinedSync,
  backupExactSync,
  FileSafetyError,
  liveLockOf,
  readAtSync,
  readConfinedSync,
  replaceConfinedSync,
  RunningHash,
  sameFile,
  stateOf,
  withConfinedSync,
  type FileState,
  type WriteOnce,
} from './confined';
import { READ_CHUNK_BYTES, watchPath, type Watcher } from './files';
import { decompressArchive, isArchive, readOnlyReason } from './omp-files';
import { leafNotice, sessionChanged, type ChangeSource, type SessionChange } from './session-events';
import { countEntries, emptyRowFacts, type OpenRow, type RowFacts } from './session-index';
import { TreeModel } from './tree-model';
import type { StateStore } from './state';

/** Bytes kept from just before our read offset; if they change, the file was rewritten underneath. */
const WINDOW_BYTES = 64;
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
/** Another writer counts as active for this long after its last append. */
export const WRITER_ACTIVE_MS = 3000;

export interface OpenSessionOptions {
  id: string;
  file: string;
  state: StateStore;
  home: string;
  publish: (event: ServerEvent) => void;
  /** Size-poll interval, the fallback when fs.watch misses a change. */
  pollMs: number;
  /** How long a write waits for another writer to finish a cut-off last line. */
  midWriteWaitMs: number;
  /** New files (branch, fork) are created through this. */
  storageProvider: SessionStorageProvider;
  /** Is this real folder inside the roots? */
  confined: (realDir: string) => boolean;
  /** A write waits until the file has not grown for this long (another writer may be mid-burst). */
  quietWindowMs: number;
  clock: Clock;
  /** The one write() of an append; a test seam for full disks and racing writers. */
  write?: WriteOnce;
  /** The session's list row may have changed (entries, size, name). */
  onChange?: () => void;
  log?: (message: string) => void;
}

/** Time for the write path's waits, injectable so tests do not depend on timing. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const REAL_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

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

export interface LeafNotice {
  previousLeafId: string | null;
  leafId: string | null;
  message: string;
}

/**
 * One session file open on the server: its SessionManager, tailed by byte offset, and the only
 * writer path into it. Reads (tail polls) and writes share one promise queue, so a write always sees
 * everything another process appended before it, and nothing of ours interleaves.
 */
export class OpenSession {
  readonly id: string;
  readonly file: string;
  sm!: SessionManager;
  private offset = 0;
  private window: Buffer = Buffer.alloc(0);
  /** The file as last read or written; any difference means another program touched it. */
  private fileState: FileState = { size: 0, ino: 0, dev: 0, mtimeMs: 0, ctimeMs: 0, mode: 0o600 };
  private readonly hash = new RunningHash();
  /** When (by the clock) the file was last seen growing by another writer. */
  private lastGrowthAt = Number.NEGATIVE_INFINITY;
  /** Why the file cannot be read any more (deleted, or now resolving outside the roots). */
  private unreachable: FileSafetyError | undefined;
  /** Set by an append that landed after another writer's complete lines: reload after the write. */
  private landedAfterOthers = false;
  /** The backup and the lines a migration left out, reported after the write. */
  private migration: { backup: string; droppedLines: number[] } | undefined;
  /** Bytes of the file on disk (an archive's compressed size differs from `offset`). */
  private diskSize = 0;
  /** [oh-my-pi] The title line as last read (oh-my-pi rewrites it in place on a rename). */
  private titleLine: Buffer | undefined;
  /** Every entry's node, kept in step with `sm` by every change. */
  readonly tree: TreeModel;
  /** The list row's entry facts, counted as entries arrive (the index does not read an open file). */
  private rowFacts: RowFacts = emptyRowFacts();
  private queue: Promise<unknown> = Promise.resolve();
  private watcher: Watcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private writerTimer: NodeJS.Timeout | undefined;
  private lastExternalAppend = 0;
  private writerActiveFlag = false;
  private closed = false;
  /** Set when the stored leaf had to be dropped on open; sent to the first subscriber. */
  pendingNotice: LeafNotice | undefined;

  constructor(private readonly options: OpenSessionOptions) {
    this.id = options.id;
    this.file = options.file;
    this.tree = new TreeModel(options.home);
  }

  get writerActive(): boolean {
    return this.writerActiveFlag;
  }

  get pendingBytes(): number {
    return this.sm.pendingBytes;
  }

  /** Why Canopy does not write to this session (an archive, an unknown format version), if so. */
  get readOnly(): string | undefined {
    return readOnlyReason(this.file, this.sm?.version);
  }

  /** The session file's permission bits, given to branched and forked copies. */
  get mode(): number {
    return this.fileState.mode;
  }

  /** Loads the file and starts tailing it. */
  async open(): Promise<void> {
    this.loadFromFile(true);
    this.watcher = watchPath(this.file, false, () => this.schedulePoll());
    this.pollTimer = setInterval(() => this.schedulePoll(), this.options.pollMs);
    this.pollTimer.unref();
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.writerTimer) clearTimeout(this.writerTimer);
    this.tree.clear();
    this.persistLeaf();
  }

  /** Runs `task` after every queued read and write. */
  private enqueue<T>(task: () => Promise<T> | T): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private schedulePoll(): void {
    if (this.closed) return;
    void this.enqueue(() => this.poll()).catch(() => undefined);
  }

  /**
   * Brings the in-memory session up to date with the file (in the queue). Refuses (OUTSIDE_ROOTS)
   * when the file now resolves outside the roots; a deleted file keeps its last state.
   */
  refresh(): Promise<void> {
    return this.enqueue(() => this.poll(true));
  }

  // ------------------------------------------------------------------ loading

  private storage(): SessionStorage {
    return {
      path: this.file,
      read: () => this.readText(),
      appendLines: (lines) => this.appendLines(lines),
      rewrite: (text) => this.rewrite(text),
    };
  }

  private readText(): string {
    throw new Error('OpenSession reads through its own tail; SessionManager.read() is not used');
  }

  /** (Re)reads the whole file through a verified descriptor. */
  private loadFromFile(initial: boolean): void {
    let read: { bytes: Buffer; state: FileState };
    try {
      read = readConfinedSync(this.file);
    } catch (error) {
      if (error instanceof FileSafetyError) {
        if (error.reason === 'deleted')
          throw new AppError('SESSION_NOT_FOUND', 'The session file no longer exists.');
        throw fileErrorToAppError(error);
      }
      throw error;
    }
    this.loadBytes(read.bytes, read.state, initial);
  }

  private loadBytes(onDisk: Buffer, state: FileState, initial: boolean): void {
    // An archive (read-only) is decompressed whole; it is never tailed or written.
    const bytes = isArchive(this.file) ? decompressArchive(onDisk) : onDisk;
    this.diskSize = state.size;
    // A cut-off last line stays buffered in the manager until its newline arrives. fromJsonl parses
    // bytes piece by piece, so a file over the runtime's longest string (about 512 MB) still opens.
    const sm = SessionManager.fromJsonl(bytes, {
      storage: this.storage(),
      storageProvider: this.options.storageProvider,
    });
    const previousLeaf = initial ? undefined : this.sm.getLeafId();
    this.sm = sm;
    this.offset = bytes.length;
    this.window = Buffer.from(bytes.subarray(Math.max(0, bytes.length - WINDOW_BYTES)));
    this.fileState = { ...state, size: bytes.length };
    this.hash.reset(bytes);
    this.titleLine = sm.getTitleSlot() ? firstLine(bytes) : undefined;
    this.tree.clear();
    this.rowFacts = emptyRowFacts();
    countEntries(this.rowFacts, this.tree.sync(sm).entries);
    this.restoreLeaf(initial ? undefined : previousLeaf);
  }

  /** Applies the stored (or, after a reload, the previous) leaf; falls back to the last line. */
  private restoreLeaf(previousLeaf: string | null | undefined): void {
    const entries = this.sm.getEntries();
    const stored = this.options.state.getLeaf(this.id);
    const headerId = this.headerId();
    const wanted = previousLeaf !== undefined ? previousLeaf : stored?.leafId;
    const sameFile = previousLeaf !== undefined || (stored !== undefined && stored.headerId === headerId);
    if (wanted === undefined || (!sameFile && stored !== undefined)) {
      if (stored && !sameFile) {
        this.pendingNotice = {
          previousLeafId: stored.leafId,
          leafId: this.sm.getLeafId(),
          message: 'The session file was replaced by another session; the leaf is back at its last entry.',
        };
      }
      this.persistLeaf();
      return;
    }
    if (wanted === null) {
      this.sm.resetLeaf();
    } else if (this.sm.getEntry(wanted)) {
      this.sm.branch(wanted);
    } else {
      this.pendingNotice = {
        previousLeafId: wanted,
        leafId: this.sm.getLeafId(),
        message:
          'The file changed so that the saved position no longer exists; the leaf is back at the last entry.',
      };
      this.persistLeaf();
      return;
    }
    // Entries appended since the stored leaf was saved: the leaf follows a writer that continued from it.
    if (previousLeaf === undefined && stored && stored.entryCount < entries.length) {
      this.followLeaf(entries.slice(stored.entryCount));
    }
    this.persistLeaf();
  }

  private headerId(): string {
    const header = this.sm.getHeader() as SessionHeader | undefined | null;
    return typeof header?.id === 'string' ? header.id : '';
  }

  private persistLeaf(): void {
    if (!this.sm) return;
    this.options.state.setLeaf(this.id, {
      leafId: this.sm.getLeafId(),
      size: this.offset,
      ino: this.fileState.ino,
      dev: this.fileState.dev,
      entryCount: this.sm.getEntries().length,
      headerId: this.headerId(),
    });
  }

  /** The leaf moves onto appended entries whose parent is the leaf (the writer continued from there). */
  private followLeaf(entries: readonly SessionEntry[]): boolean {
    let leaf = this.sm.getLeafId();
    const start = leaf;
    for (const entry of entries) {
      if (entry.parentId === leaf) leaf = entry.id;
    }
    if (leaf === start || leaf === null) return false;
    this.sm.branch(leaf);
    return true;
  }

  // ------------------------------------------------------------------ tailing

  /**
   * Reads what changed since the last look, through a descriptor verified to be the session file
   * inside the roots (a file swapped for a link to elsewhere is never read). Growth is ingested; a
   * replaced, truncated or rewritten file (same size included: the content hash differs) is
   * reloaded. With `strict`, a file now outside the roots is an error instead of being ignored.
   */
  private async poll(strict = false): Promise<void> {
    if (this.closed) return;
    try {
      withConfinedSync(this.file, (fd, stat) => this.pollDescriptor(fd, stateOf(stat)));
      this.unreachable = undefined;
    } catch (error) {
      if (!(error instanceof FileSafetyError)) throw error;
      // Deleted: the index drops it; open tabs keep the last state. Elsewhere: never read.
      this.unreachable = error;
      if (strict && error.reason !== 'deleted') throw fileErrorToAppError(error);
    }
  }

  private pollDescriptor(fd: number, now: FileState): void {
    if (!sameFile(now, this.fileState)) return this.reload('replaced', readAtSync(fd, 0, now.size), now);
    if (isArchive(this.file)) {
      // Compressed: not tailed; any change is read again whole.
      if (now.size !== this.diskSize || now.mtimeMs !== this.fileState.mtimeMs)
        this.reload('rewritten', readAtSync(fd, 0, now.size), now);
      return;
    }
    if (now.size < this.offset) return this.reload('truncated', readAtSync(fd, 0, now.size), now);
    if (now.size === this.offset) {
      if (now.mtimeMs === this.fileState.mtimeMs && now.ctimeMs === this.fileState.ctimeMs) return;
      // Touched without growing: an in-place rewrite of the same size is only visible in the bytes.
      const bytes = readAtSync(fd, 0, now.size);
      if (this.hash.matches(bytes)) {
        this.fileState = now;
        return;
      }
      // A rename rewrites oh-my-pi's title line in place: taken without a reload when nothing else moved.
      if (this.takeTitleRewrite(bytes)) {
        this.fileState = now;
        return;
      }
      return this.reload('rewritten', bytes, now);
    }
    if (
      this.titleLine &&
      (now.mtimeMs !== this.fileState.mtimeMs || now.ctimeMs !== this.fileState.ctimeMs)
    ) {
      // A rename may rewrite the title line and append a title_change in one go.
      const head = readAtSync(fd, 0, Math.min(now.size, this.offset));
      const known = Buffer.concat([this.titleLine, head.subarray(this.titleLine.length)]);
      if (!head.equals(known) || !this.hash.matches(known)) {
        if (!this.takeTitleRewrite(head)) return this.reload('rewritten', readAtSync(fd, 0, now.size), now);
      }
    }
    // In pieces, like the first read: what another writer appended can be large too.
    while (this.offset < now.size) {
      const start = Math.max(0, this.offset - this.window.length);
      const end = Math.min(now.size, this.offset + READ_CHUNK_BYTES);
      const bytes = readAtSync(fd, start, end - start);
      const before = bytes.subarray(0, this.offset - start);
      if (!before.equals(this.window)) return this.reload('rewritten', readAtSync(fd, 0, now.size), now);
      const fresh = bytes.subarray(this.offset - start);
      if (fresh.length === 0) return; // shrank while reading: the next poll sees it
      this.fileState = { ...now, size: start + bytes.length };
      this.ingestExternal(fresh);
    }
  }

  /**
   * [oh-my-pi] Takes a title line rewritten in place (same length, still a title line) when the rest
   * of the known bytes did not change: the name is updated and published, and no reload happens.
   * `bytes` are the file's bytes from offset 0 up to (at most) the known length. False when the
   * change is anything else, and the caller reloads.
   */
  private takeTitleRewrite(bytes: Buffer): boolean {
    const old = this.titleLine;
    if (!old || bytes.length < old.length) return false;
    const current = bytes.subarray(0, old.length);
    if (current.equals(old) || current[current.length - 1] !== 0x0a) return false;
    const known = bytes.subarray(0, Math.min(bytes.length, this.offset));
    if (known.length !== this.offset) return false;
    if (!this.hash.matches(Buffer.concat([old, known.subarray(old.length)]))) return false;
    let slot: unknown;
    try {
      slot = JSON.parse(current.toString('utf8'));
    } catch {
      return false;
    }
    if (!slot || typeof slot !== 'object' || (slot as { type?: unknown }).type !== 'title') return false;
    this.titleLine = Buffer.from(current);
    this.hash.reset(known);
    // The tail window may overlap the title line in a short file: keep it equal to the disk.
    const windowStart = this.offset - this.window.length;
    if (windowStart < old.length) {
      const patched = Buffer.from(this.window);
      current.copy(patched, 0, windowStart, old.length);
      this.window = patched;
    }
    this.sm.replaceTitleSlot(slot as { type: 'title' });
    this.options.onChange?.();
    return true;
  }

  private ingestExternal(fresh: Buffer): void {
    const { entries } = this.sm.ingest(fresh);
    this.offset += fresh.length;
    this.hash.add(fresh);
    this.lastGrowthAt = this.options.clock.now();
    this.window = lastBytes(this.window, fresh, WINDOW_BYTES);
    const change: SessionChange = {};
    if (this.markExternalWriter()) change.writerActive = true;
    if (entries.length > 0) {
      const previousId = this.sm.getLeafId();
      if (this.followLeaf(entries)) change.leaf = { id: this.sm.getLeafId(), previousId };
      change.delta = this.tree.sync(this.sm);
      countEntries(this.rowFacts, change.delta.entries);
      this.persistLeaf();
    }
    this.publishChange('external', change);
    if (entries.length > 0) this.options.onChange?.();
  }

  private publishChange(source: ChangeSource, change: SessionChange): void {
    const event = sessionChanged(this.id, source, change);
    if (event) this.options.publish(event);
  }

  private reload(reason: 'replaced' | 'truncated' | 'rewritten', bytes: Buffer, state: FileState): void {
    const previousLeaf = this.sm.getLeafId();
    this.pendingNotice = undefined;
    this.lastGrowthAt = this.options.clock.now();
    this.loadBytes(bytes, state, false);
    this.options.publish({ type: 'session_reloaded', sessionId: this.id, reason });
    const notice = this.pendingNotice as LeafNotice | undefined;
    if (notice || previousLeaf !== this.sm.getLeafId()) {
      this.publishChange('external', {
        leaf: leafNotice(
          this.sm.getLeafId(),
          previousLeaf,
          'file-changed',
          notice?.message ?? 'The file changed underneath; the leaf is back at the last entry.',
        ),
      });
      this.pendingNotice = undefined;
    }
    this.options.onChange?.();
  }

  /** Notes another writer's append; true when that makes the writer active (it was quiet). */
  private markExternalWriter(): boolean {
    this.lastExternalAppend = Date.now();
    const flipped = !this.writerActiveFlag;
    this.writerActiveFlag = true;
    if (this.writerTimer) clearTimeout(this.writerTimer);
    this.writerTimer = setTimeout(() => {
      this.writerTimer = undefined;
      if (Date.now() - this.lastExternalAppend >= WRITER_ACTIVE_MS - 10 && this.writerActiveFlag) {
        this.writerActiveFlag = false;
        this.publishChange('external', { writerActive: false });
        this.options.onChange?.();
      }
    }, WRITER_ACTIVE_MS);
    this.writerTimer.unref();
    return flipped;
  }

  // ------------------------------------------------------------------ writing

  /** Re-reads the file after a refused or odd write, so memory matches the disk again. */
  private resync(reason: 'rewritten'): void {
    try {
      const { bytes, state } = readConfinedSync(this.file);
      this.reload(reason, bytes, state);
    } catch {
      // Unreadable now: the next poll reports it; the write error is what the caller sees.
    }
  }

  /** Why a write must wait now, if it must. */
  private writeBlocker(): 'mid-write' | 'busy' | 'locked' | undefined {
    const now = this.options.clock.now();
    if (this.sm.pendingBytes > 0) return 'mid-write';
    if (now - this.lastGrowthAt < this.options.quietWindowMs) return 'busy';
    if (liveLockOf(this.file, now)) return 'locked';
    return undefined;
  }

  /**
   * Waits (up to midWriteWaitMs) until the file is safe to append to: its last line complete, no
   * growth by another writer within the quiet window, and oh-my-pi's lock not held. Refuses with
   * the specific reason when that does not happen in time.
   */
  private async waitUntilWritable(): Promise<void> {
    const clock = this.options.clock;
    const deadline = clock.now() + this.options.midWriteWaitMs;
    for (;;) {
      await this.poll(true);
      if (this.unreachable) throw fileErrorToAppError(this.unreachable);
      const blocker = this.writeBlocker();
      if (!blocker) return;
      if (clock.now() >= deadline) {
        if (blocker === 'busy') {
          throw new AppError(
            'FILE_BUSY',
            'Another program keeps appending to the session file; nothing was written. Try again when it pauses.',
          );
        }
        throw fileErrorToAppError(new FileSafetyError(blocker, blocker));
      }
      await clock.sleep(Math.min(50, Math.max(1, deadline - clock.now())));
    }
  }

  /**
   * Runs `mutate` on the session manager with the file up to date. When `writes` is set, it first
   * waits for the file to be safe to append to (see waitUntilWritable). What it changed (new and
   * re-rendered nodes, the leaf with `leafDetail` of the result) is published as one
   * `session_changed`; the leaf is persisted.
   */
  mutate<T>(
    mutate: (sm: SessionManager) => T,
    writes: boolean,
    leafDetail?: (result: T) => Omit<LeafChange, 'id' | 'previousId'>,
  ): Promise<T> {
    return this.enqueue(async () => {
      const readOnly = writes ? this.readOnly : undefined;
      if (readOnly) throw new AppError('READ_ONLY', `Nothing was written. ${readOnly}`);
      if (writes) await this.waitUntilWritable();
      else await this.poll(true);
      const leafBefore = this.sm.getLeafId();
      this.landedAfterOthers = false;
      this.migration = undefined;
      let result: T;
      try {
        result = mutate(this.sm);
      } catch (error) {
        if (error instanceof FileSafetyError) {
          // Memory may hold an entry the file does not (or a damaged one): start over from the file.
          if (error.reason === 'changed' || error.reason === 'mid-write' || error.reason === 'torn') {
            this.resync('rewritten');
          }
          throw fileErrorToAppError(error);
        }
        // Entries a failing mutation appended before it threw are in the file: they are sent too.
        const delta = this.tree.sync(this.sm);
        countEntries(this.rowFacts, delta.entries);
        this.publishChange('canopy', { delta });
        if (error instanceof AppError) throw error;
        if (error instanceof SessionWriteError) {
          throw error.reason === 'incomplete-last-line'
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
        if (/not found/i.test(message)) throw new AppError('ENTRY_NOT_FOUND', message);
        throw error;
      }
      this.reportMigration();
      if (this.landedAfterOthers) {
        // Another writer's complete lines landed just before ours: read the file again, keeping
        // the leaf on what we wrote.
        this.resync('rewritten');
        this.persistLeaf();
        return result;
      }
      const delta = this.tree.sync(this.sm);
      countEntries(this.rowFacts, delta.entries);
      const leafId = this.sm.getLeafId();
      const detail = leafDetail?.(result);
      const change: SessionChange = { delta };
      if (leafId !== leafBefore || detail) change.leaf = { id: leafId, previousId: leafBefore, ...detail };
      this.publishChange('canopy', change);
      this.persistLeaf();
      if (delta.added.length > 0) this.options.onChange?.();
      return result;
    });
  }

  private appendLines(lines: readonly string[]): void {
    if (lines.length === 0) return;
    for (const line of lines) {
      if (line.includes('\n')) throw new Error('internal: a session line must not contain a raw newline');
    }
    const data = Buffer.from(lines.map((line) => `${line}\n`).join(''), 'utf8');
    const result = appendConfinedSync(this.file, data, this.fileState, {
      now: this.options.clock.now(),
      write: this.options.write,
    });
    if (result.before.length > 0) this.landedAfterOthers = true;
    this.offset = result.start + data.length;
    this.fileState = { ...result.state, size: this.offset };
    this.hash.add(result.before);
    this.hash.add(data);
    const tail = Buffer.concat([this.window, result.before, data]);
    this.window = Buffer.from(tail.subarray(Math.max(0, tail.length - WINDOW_BYTES)));
  }

  /**
   * The migration rewrite of a legacy file before its first write: an exact backup beside it (see
   * backupExactSync), then an atomic replace. The file must still be exactly what was read.
   */
  private rewrite(text: string): void {
    const { bytes, state } = readConfinedSync(this.file);
    if (!sameFile(state, this.fileState) || state.size !== this.offset || !this.hash.matches(bytes)) {
      throw new FileSafetyError('changed', 'the file changed before the migration rewrite');
    }
    if (liveLockOf(this.file, this.options.clock.now())) {
      throw new FileSafetyError('locked', 'oh-my-pi holds the lock');
    }
    const backup = backupExactSync(this.file, this.sm.version ?? 1, bytes, state.mode, this.options.confined);
    const encoded = Buffer.from(text, 'utf8');
    this.fileState = replaceConfinedSync(this.file, encoded, state, this.options.confined);
    const dropped = [
      ...new Set(this.sm.issues.filter((issue) => DROPPED_KINDS.has(issue.kind)).map((issue) => issue.line)),
    ].sort((a, b) => a - b);
    this.migration = { backup, droppedLines: dropped };
    this.offset = encoded.length;
    this.window = Buffer.from(encoded.subarray(Math.max(0, encoded.length - WINDOW_BYTES)));
    this.hash.reset(encoded);
  }

  /** Says which lines a migration left out and where they are kept. */
  private reportMigration(): void {
    const migration = this.migration;
    this.migration = undefined;
    if (!migration || migration.droppedLines.length === 0) return;
    const lines = migration.droppedLines;
    const message = `The session was migrated to the current format; ${lines.length} unusable line${
      lines.length === 1 ? '' : 's'
    } (line ${lines.slice(0, 20).join(', ')}${lines.length > 20 ? ', …' : ''}) ${
      lines.length === 1 ? 'was' : 'were'
    } left out of the file and ${lines.length === 1 ? 'is' : 'are'} kept in the backup ${migration.backup}.`;
    this.options.log?.(`${this.file}: ${message}`);
    this.options.publish({ type: 'error', code: 'LINES_DROPPED', sessionId: this.id, message });
  }

  // ------------------------------------------------------------------ views

  /**
   * What a new subscriber is told beyond the snapshot, once: the stored leaf that had to be
   * dropped on open (the first subscriber only), and that another process is writing.
   */
  takeGreeting(): ServerEvent | undefined {
    const notice = this.pendingNotice;
    this.pendingNotice = undefined;
    return sessionChanged(this.id, 'external', {
      ...(notice
        ? { leaf: leafNotice(notice.leafId, notice.previousLeafId, 'stored-leaf-missing', notice.message) }
        : {}),
      ...(this.writerActive ? { writerActive: true } : {}),
    });
  }

  /** The session's list row facts, from what it has read and written (never a second read). */
  listRow(): OpenRow {
    const header = this.sm.getHeader() as unknown as Record<string, unknown> | null;
    return {
      facts: { ...this.rowFacts },
      ...(header ? { header } : {}),
      ...(this.sm.getTitleSlot() ? { titleSlot: this.sm.getTitleSlot() } : {}),
      identity: {
        size: isArchive(this.file) ? this.diskSize : this.fileState.size,
        mtimeMs: this.fileState.mtimeMs,
        ctimeMs: this.fileState.ctimeMs,
        ino: this.fileState.ino,
        dev: this.fileState.dev,
      },
      issueCount: this.sm.issues.length,
    };
  }

  /** Every node as snapshot chunks (see TreeModel.chunks). */
  snapshotChunks(): string[] {
    return this.tree.chunks();
  }
}

/** The first line of a file's bytes, its newline included (all of it without one). */
function firstLine(bytes: Buffer): Buffer {
  const newline = bytes.indexOf(0x0a);
  return Buffer.from(newline < 0 ? bytes : bytes.subarray(0, newline + 1));
}

/** The last `count` bytes of `before` followed by `after`, copied (the inputs may be reused). */
function lastBytes(before: Buffer, after: Buffer, count: number): Buffer {
  if (after.length >= count) return Buffer.from(after.subarray(after.length - count));
  const tail = Buffer.concat([before, after]);
  return Buffer.from(tail.subarray(Math.max(0, tail.length - count)));
}
