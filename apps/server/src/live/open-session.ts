// One session file open on the server. This class is the session's queue and its orchestrator: it
// decides when to read and write, and asks its parts, each with one job, by return value:
// file-tail.ts (what changed in the file's bytes), whole-read.ts (the whole read), session-model.ts
// (the manager, the nodes, the leaf), session-events.ts (the one event of a change), write-gate.ts
// (when a write may go), writer-activity.ts (the other writer), migration-rewrite.ts, and
// files/verified-reads.ts (an entry's line read back). What it has to say leaves through its one
// listener (docs/architecture.md#path-of-an-event). Past 300 lines because the tail loop and the
// write path share its queue, its model and its tail; every step they take is in one of the parts.
import type { LeafChange, ServerEvent, TreeNode } from '@canopy/protocol';
import type { SessionManager, SessionStorage, SessionStorageProvider } from '@canopy/session-core';
import { AppError } from '../errors';
import type { AppendJournal } from '../files/append-journal';
import {
  appendConfinedSync,
  FileSafetyError,
  LINE_BATCH_BYTES,
  lineBatches,
  type FileState,
  type WriteOnce,
} from '../files/confined';
import {
  droppedLinesMessage,
  fileChangedUnderneath,
  fileErrorToAppError,
  mutationError,
} from '../files/file-errors';
import { closeDescriptorSync, openForReadSync } from '../files/descriptors';
import { READ_CHUNK_BYTES, watchPath, type Watcher } from '../files/files';
import { isArchive, readOnlyReason } from '../files/omp-files';
import type { StateStore } from '../files/state';
import { VerifiedReads } from '../files/verified-reads';
import type { OpenRow } from '../list/list-row';
import { FileTail, type ReloadReason } from './file-tail';
import type { LeafNotice } from './leaf-position';
import { LoadProgress } from './load-progress';
import { rewriteForMigration } from './migration-rewrite';
import { SessionModel } from './session-model';
import { leafNotice, sessionChanged, type ChangeSource, type SessionChange } from './session-events';
import type { TreeModel } from './tree-model';
import { readWhole } from './whole-read';
import { WriteGate, type Clock } from './write-gate';
import { WriterActivity } from './writer-activity';

export { REAL_CLOCK, type Clock } from './write-gate';
export { WRITER_ACTIVE_MS } from './writer-activity';

/** Reloads one poll may do in a row before it leaves a file still being rewritten to the next poll. */
const MAX_RELOADS_PER_POLL = 3;

/**
 * The open session's one listener: the events it publishes (in order, possibly none) and whether
 * its list row may have changed (entries, size, name, the writer).
 */
export type SessionListener = (events: readonly ServerEvent[], rowChanged: boolean) => void;

export interface OpenSessionOptions {
  id: string;
  file: string;
  state: StateStore;
  home: string;
  listener: SessionListener;
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
  /** Where each append is recorded before it is written (crash repair, append-journal.ts). */
  journal?: AppendJournal;
  /** Bytes per read of the file (default READ_CHUNK_BYTES); a test seam, like `afterPiece`. */
  pieceBytes?: number;
  /**
   * Test seam: runs after each piece of a whole read, with the bytes read so far (a writer acting
   * mid-read); the read waits for what it returns (a test holding the load half-way).
   */
  afterPiece?: (readSoFar: number) => void | Promise<void>;
  log?: (message: string) => void;
}

/** How long after a load the children index is built (prepareChildIndexLater), and how much a turn. */
const CHILD_INDEX_DELAY_MS = 2000;
const CHILD_INDEX_SLICE = 20_000;

/**
 * One session file open on the server: its model, tailed by byte offset, and the only writer path
 * into it. Reads (tail polls) and writes share one promise queue, so a write always sees everything
 * another process appended before it, and nothing of ours interleaves.
 */
export class OpenSession {
  readonly id: string;
  readonly file: string;
  /** The manager, the nodes and the row facts; a whole read builds a new one beside it. */
  private model: SessionModel;
  /** How far the file was read, and what it looked like then (a new one for every whole read). */
  private tail: FileTail;
  private readonly reads: VerifiedReads;
  private readonly gate: WriteGate;
  private readonly writer: WriterActivity;
  /** Why the file cannot be read any more (deleted, or now resolving outside the roots). */
  private unreachable: FileSafetyError | undefined;
  /** Set by an append that landed after another writer's complete lines: reload after the write. */
  private landedAfterOthers = false;
  /** The backup and the lines a migration left out, reported after the write. */
  private migration: { backup: string; droppedLines: number[] } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private watcher: Watcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Set when the stored leaf had to be dropped on open; sent to the first subscriber. */
  pendingNotice: LeafNotice | undefined;
  /** The first read of the file, while it runs (see open). */
  private firstLoad: LoadProgress | undefined;

  constructor(private readonly options: OpenSessionOptions) {
    this.id = options.id;
    this.file = options.file;
    this.model = new SessionModel(options.home);
    this.tail = new FileTail(options.file, options.pieceBytes);
    this.reads = new VerifiedReads(options.file);
    this.gate = new WriteGate(options);
    this.writer = new WriterActivity(() =>
      this.emit([sessionChanged(this.id, 'external', { writerActive: false })], true),
    );
  }

  get sm(): SessionManager {
    return this.model.sm;
  }

  /** Every entry's node, kept in step with `sm` by every change. */
  get tree(): TreeModel {
    return this.model.tree;
  }

  get writerActive(): boolean {
    return this.writer.isActive;
  }

  get pendingBytes(): number {
    return this.sm.pendingBytes;
  }

  /** Why Canopy does not write to this session (an archive, an unknown format version), if so. */
  get readOnly(): string | undefined {
    const sm = this.model.ready ? this.sm : undefined;
    return readOnlyReason(this.file, sm?.getHeader() ?? undefined, sm?.versionKnown ?? true);
  }

  /** The session file's permission bits, given to branched and forked copies. */
  get mode(): number {
    return this.tail.fileState.mode;
  }

  /**
   * The first read of the file while open() runs, undefined before and after: what a snapshot
   * streams before the session is open (see LoadProgress). It is set when open() is called.
   */
  get loading(): LoadProgress | undefined {
    return this.firstLoad;
  }

  /** Loads the file and starts tailing it. */
  async open(): Promise<void> {
    const progress = new LoadProgress();
    this.firstLoad = progress;
    try {
      await this.loadFromFile(true, progress);
      // What another writer did while the file was read is found as between two polls.
      await this.poll();
    } catch (error) {
      if (error instanceof FileSafetyError) {
        if (error.reason === 'deleted')
          throw new AppError('SESSION_NOT_FOUND', 'The session file no longer exists.');
        throw fileErrorToAppError(error);
      }
      throw error;
    } finally {
      this.firstLoad = undefined;
      progress.end();
    }
    this.watcher = watchPath(this.file, false, () => this.schedulePoll());
    this.pollTimer = setInterval(() => this.schedulePoll(), this.options.pollMs);
    this.pollTimer.unref();
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.writer.stop();
    this.persistLeaf();
    this.tree.clear();
  }

  /** Hands events (and whether the list row may have changed) to the one listener. */
  private emit(events: ReadonlyArray<ServerEvent | undefined>, rowChanged: boolean): void {
    const defined = events.filter((event): event is ServerEvent => event !== undefined);
    if (defined.length > 0 || rowChanged) this.options.listener(defined, rowChanged);
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
      read: () => {
        throw new Error('OpenSession reads through its own tail; SessionManager.read() is not used');
      },
      appendLines: (lines) => this.appendLines(lines),
      rewrite: (text) => this.rewrite([Buffer.from(text, 'utf8')]),
      // Bytes per write: the piece size of reads, at most LINE_BATCH_BYTES (a test seam makes it small).
      rewriteLines: (lines) =>
        this.rewrite(
          lineBatches(lines, Math.min(this.options.pieceBytes ?? READ_CHUNK_BYTES, LINE_BATCH_BYTES)),
        ),
    };
  }

  /**
   * Bytes of the session file as read (an entry's line), through a descriptor verified to be the
   * session file inside the roots (files/verified-reads.ts). A file that is no longer the one read
   * (replaced, or shorter than the line) is refused and reloaded; the manager also checks every line
   * against its index, so a rewritten file never answers a wrong entry.
   */
  readRange(offset: number, length: number): Uint8Array {
    try {
      return this.reads.read(offset, length, this.tail.fileState);
    } catch (error) {
      if (!(error instanceof FileSafetyError)) throw error;
      this.schedulePoll();
      if (error.reason === 'changed') throw fileChangedUnderneath();
      throw fileErrorToAppError(error);
    }
  }

  /**
   * (Re)reads the whole file (whole-read.ts). The new model and tail replace the current ones
   * together at the end, so nothing reads a half-loaded state; the leaf is put back where it was.
   */
  private async loadFromFile(initial: boolean, progress?: LoadProgress): Promise<void> {
    const { model, tail } = await readWhole({
      file: this.file,
      home: this.options.home,
      storage: this.storage(),
      storageProvider: this.options.storageProvider,
      readRange: (offset, length) => this.readRange(offset, length),
      pieceBytes: this.options.pieceBytes,
      progress,
      afterPiece: this.options.afterPiece,
    });
    const previousLeaf = initial ? undefined : this.sm.getLeafId();
    this.model = model;
    this.tail = tail;
    // Reads from now on are of the file just loaded (the old descriptor closes on the next turn).
    this.reads.forget();
    model.sync();
    const notice = model.restoreLeaf(this.options.state.getLeaf(this.id), previousLeaf);
    if (notice) this.pendingNotice = notice;
    this.persistLeaf();
    void this.prepareChildIndexLater(model.sm);
  }

  /**
   * Builds the manager's children index a while after a load, a slice per turn: the first entry
   * detail asks for an entry's children, and built then, whole, the index took 0.4 s of that request
   * at 500,000 entries. It waits first so as not to take the CPU from the browser, which is still
   * drawing the snapshot the load streamed.
   */
  private async prepareChildIndexLater(sm: SessionManager): Promise<void> {
    await this.options.clock.sleep(CHILD_INDEX_DELAY_MS);
    while (!this.closed && this.sm === sm && !sm.prepareChildIndex(CHILD_INDEX_SLICE)) {
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private persistLeaf(): void {
    if (this.model.ready)
      this.options.state.setLeaf(this.id, this.model.leafRecord(this.tail.offset, this.tail.fileState));
  }

  // ------------------------------------------------------------------ tailing

  /**
   * Reads what changed since the last look, through a descriptor verified to be the session file
   * inside the roots (a file swapped for a link to elsewhere is never read). Growth is ingested; a
   * replaced, truncated or rewritten file (same size included: the content hash differs) is
   * reloaded, and looked at again (it may have changed while it was read). With `strict`, a file
   * now outside the roots is an error instead of being ignored.
   */
  private async poll(strict = false): Promise<void> {
    // A file rewritten again while every reload reads it is left to the next poll.
    for (let reloads = 0; reloads <= MAX_RELOADS_PER_POLL; reloads++) {
      if (this.closed) return;
      try {
        const { fd, state } = openForReadSync(this.file);
        let reason: ReloadReason | undefined;
        try {
          reason = this.takeNews(fd, state);
        } finally {
          closeDescriptorSync(fd);
        }
        this.unreachable = undefined;
        if (!reason || reloads === MAX_RELOADS_PER_POLL) return;
        await this.reload(reason);
      } catch (error) {
        if (!(error instanceof FileSafetyError)) throw error;
        // Deleted: the index drops it; open tabs keep the last state. Elsewhere: never read.
        this.unreachable = error;
        if (strict && error.reason !== 'deleted') throw fileErrorToAppError(error);
        return;
      }
    }
  }

  /**
   * One look at the file (open as `fd`): each piece another writer appended is ingested and its
   * change published before the next piece is read; a title line rewritten in place renames the
   * session. Answers why the file must be read again whole, if it must.
   */
  private takeNews(fd: number, now: FileState): ReloadReason | undefined {
    const look = this.tail.look(fd, now);
    for (let step = look.next(); ; step = look.next()) {
      if (step.done) return step.value;
      const news = step.value;
      if (news.kind === 'title') {
        // The name is updated and the list row republished; no reload happens.
        this.sm.replaceTitleSlot(news.slot);
        this.emit([], true);
        continue;
      }
      const { change, entries } = this.model.ingest(news.bytes);
      this.gate.grew();
      const writerActive = this.writer.appended() ? { writerActive: true } : {};
      if (entries > 0) this.persistLeaf();
      this.emit([sessionChanged(this.id, 'external', { ...writerActive, ...change })], entries > 0);
    }
  }

  private changed(source: ChangeSource, change: SessionChange): ServerEvent | undefined {
    return sessionChanged(this.id, source, change);
  }

  /** Reads the file again whole (it was replaced, truncated or rewritten) and says so. */
  private async reload(reason: ReloadReason): Promise<void> {
    const previousLeaf = this.sm.getLeafId();
    this.pendingNotice = undefined;
    this.gate.grew();
    await this.loadFromFile(false);
    const reloaded: ServerEvent = { type: 'session_reloaded', sessionId: this.id, reason };
    const notice = this.pendingNotice as LeafNotice | undefined;
    let leafEvent: ServerEvent | undefined;
    if (notice || previousLeaf !== this.sm.getLeafId()) {
      leafEvent = this.changed('external', {
        leaf: leafNotice(
          this.sm.getLeafId(),
          previousLeaf,
          'file-changed',
          notice?.message ?? 'The file changed underneath; the leaf is back at the last entry.',
        ),
      });
      this.pendingNotice = undefined;
    }
    this.emit([reloaded, leafEvent], true);
  }

  // ------------------------------------------------------------------ writing

  /** Re-reads the file after a refused or odd write, so memory matches the disk again. */
  private async resync(reason: 'rewritten'): Promise<void> {
    try {
      await this.reload(reason);
    } catch {
      // Unreadable now: the next poll reports it; the write error is what the caller sees.
    }
  }

  /**
   * Waits (up to midWriteWaitMs) until the file is safe to append to (write-gate.ts), looking at the
   * file each time; refuses with the specific reason when that does not happen in time. A lock file
   * ignored is said once (log and a notice on the page).
   */
  private async waitUntilWritable(): Promise<void> {
    const clock = this.options.clock;
    const deadline = this.gate.deadline();
    for (;;) {
      await this.poll(true);
      if (this.unreachable) throw fileErrorToAppError(this.unreachable);
      const { blocker, ignoredLock } = this.gate.check(this.sm.pendingBytes);
      if (ignoredLock) {
        this.options.log?.(`${this.file}: ${ignoredLock}`);
        this.emit([{ type: 'error', code: 'LOCK_IGNORED', sessionId: this.id, message: ignoredLock }], false);
      }
      if (!blocker) return;
      if (clock.now() >= deadline) throw this.gate.refusal(blocker);
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
    leafDetail?: (result: T) => Omit<LeafChange, 'id' | 'previousId'> | undefined,
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
            await this.resync('rewritten');
          }
          throw fileErrorToAppError(error);
        }
        // Entries a failing mutation appended before it threw are in the file: they are sent too.
        this.emit([this.changed('canopy', { delta: this.model.sync() })], false);
        throw mutationError(error);
      }
      this.reportMigration();
      if (this.landedAfterOthers) {
        // Another writer's complete lines landed just before ours: read the file again, keeping
        // the leaf on what we wrote.
        await this.resync('rewritten');
        this.persistLeaf();
        return result;
      }
      const delta = this.model.sync();
      const leafId = this.sm.getLeafId();
      const detail = leafDetail?.(result);
      const change: SessionChange = { delta };
      if (leafId !== leafBefore || detail) change.leaf = { id: leafId, previousId: leafBefore, ...detail };
      this.persistLeaf();
      this.emit([this.changed('canopy', change)], delta.added.length > 0);
      return result;
    });
  }

  private appendLines(lines: readonly string[]): void {
    if (lines.length === 0) return;
    for (const line of lines) {
      if (line.includes('\n')) throw new Error('internal: a session line must not contain a raw newline');
    }
    const data = Buffer.from(lines.map((line) => `${line}\n`).join(''), 'utf8');
    const result = appendConfinedSync(this.file, data, this.tail.fileState, {
      now: this.options.clock.now(),
      write: this.options.write,
      journal: this.options.journal,
    });
    if (result.before.length > 0) this.landedAfterOthers = true;
    this.tail.appended(result.start, result.before, data, result.state);
  }

  /** The migration rewrite of a legacy file before its first write (migration-rewrite.ts). */
  private rewrite(content: Iterable<Buffer>): void {
    const { tail, backup, droppedLines } = rewriteForMigration({
      file: this.file,
      tail: this.tail,
      sm: this.sm,
      content,
      now: this.options.clock.now(),
      confined: this.options.confined,
      pieceBytes: this.options.pieceBytes,
    });
    this.migration = { backup, droppedLines };
    this.tail = tail;
    this.reads.forget();
  }

  /** Says which lines a migration left out and where they are kept. */
  private reportMigration(): void {
    const migration = this.migration;
    this.migration = undefined;
    if (!migration || migration.droppedLines.length === 0) return;
    const message = droppedLinesMessage(migration.droppedLines, migration.backup);
    this.options.log?.(`${this.file}: ${message}`);
    this.emit([{ type: 'error', code: 'LINES_DROPPED', sessionId: this.id, message }], false);
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
      facts: this.model.rowFacts,
      ...(header ? { header } : {}),
      ...(this.sm.getTitleSlot() ? { titleSlot: this.sm.getTitleSlot() } : {}),
      identity: {
        size: isArchive(this.file) ? this.tail.diskSize : this.tail.fileState.size,
        mtimeMs: this.tail.fileState.mtimeMs,
        ctimeMs: this.tail.fileState.ctimeMs,
        ino: this.tail.fileState.ino,
        dev: this.tail.fileState.dev,
      },
      issueCount: this.sm.issueCount,
      versionKnown: this.sm.versionKnown,
    };
  }

  /** Every node as of the last change, fixed for one snapshot (see TreeModel.snapshot). */
  snapshotNodes(): readonly TreeNode[] {
    return this.tree.snapshot();
  }
}
