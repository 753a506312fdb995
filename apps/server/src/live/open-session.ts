// One class of ~600 lines, on purpose: reads (the tail poll) and writes (mutate) of one session file
// share one promise queue, one SessionManager and one FileTail, and every change ends in one
// published event; splitting the class would put that shared state behind accessors on both sides.
// What could stand alone has moved out: file-tail.ts (the file's bytes), leaf-position.ts (the
// stored leaf), tree-model.ts (the nodes), session-events.ts (the events), file-errors.ts (errors).

import fs from 'node:fs';
import type { LeafChange, ServerEvent, TreeNode } from '@canopy/protocol';
import { SessionManager, type SessionStorage, type SessionStorageProvider } from '@canopy/session-core';
import { AppError } from '../errors';
import type { AppendJournal } from '../files/append-journal';
import {
  appendConfinedSync,
  backupExactSync,
  FileSafetyError,
  LINE_BATCH_BYTES,
  lineBatches,
  lockStateOf,
  type LockState,
  openConfinedSync,
  readAtSync,
  readIntoSync,
  replaceConfinedSync,
  sameFile,
  seenSync,
  stateOf,
  withConfinedSync,
  type WriteOnce,
} from '../files/confined';
import {
  droppedLinesMessage,
  droppedLinesOf,
  fileChangedUnderneath,
  fileErrorToAppError,
  mutationError,
} from '../files/file-errors';
import { FileTail, type ReloadReason, type TailEvents } from './file-tail';
import { followLeaf, leafRecord, restoreLeaf, type LeafNotice } from './leaf-position';
import { PARSE_SLICE_BYTES, READ_CHUNK_BYTES, watchPath, type Watcher } from '../files/files';
import { archivePiecesOf } from '../files/archive';
import { isArchive, readOnlyReason } from '../files/omp-files';
import { leafNotice, sessionChanged, type ChangeSource, type SessionChange } from './session-events';
import { countEntries, emptyRowFacts, type OpenRow, type RowFacts } from '../list/list-row';
import { LoadProgress } from './load-progress';
import { TreeModel, type TreeDelta } from './tree-model';
import type { StateStore } from '../files/state';

/** Reloads one poll may do in a row before it leaves a file still being rewritten to the next poll. */
const MAX_RELOADS_PER_POLL = 3;

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
  /** Where each append is recorded before it is written (crash repair, append-journal.ts). */
  journal?: AppendJournal;
  /** Bytes per read of the file (default READ_CHUNK_BYTES); a test seam, like `afterPiece`. */
  pieceBytes?: number;
  /**
   * Test seam: runs after each piece of a whole read, with the bytes read so far (a writer acting
   * mid-read); the read waits for what it returns (a test holding the load half-way).
   */
  afterPiece?: (readSoFar: number) => void | Promise<void>;
  /** The session's list row may have changed (entries, size, name). */
  onChange?: () => void;
  log?: (message: string) => void;
}

/** How long after a load the children index is built (prepareChildIndexLater), and how much a turn. */
const CHILD_INDEX_DELAY_MS = 2000;
const CHILD_INDEX_SLICE = 20_000;

/** Time for the write path's waits, injectable so tests do not depend on timing. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const REAL_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * One session file open on the server: its SessionManager, tailed by byte offset, and the only
 * writer path into it. Reads (tail polls) and writes share one promise queue, so a write always sees
 * everything another process appended before it, and nothing of ours interleaves.
 */
export class OpenSession {
  readonly id: string;
  readonly file: string;
  sm!: SessionManager;
  /** How far the file was read, and what it looked like then (a new one for every whole read). */
  private tail: FileTail;
  /** When (by the clock) the file was last seen growing by another writer. */
  private lastGrowthAt = Number.NEGATIVE_INFINITY;
  /** Why the file cannot be read any more (deleted, or now resolving outside the roots). */
  private unreachable: FileSafetyError | undefined;
  /** The lock file last reported as ignored (see reportIgnoredLock). */
  private ignoredLock: string | undefined;
  /** Set by an append that landed after another writer's complete lines: reload after the write. */
  private landedAfterOthers = false;
  /** The backup and the lines a migration left out, reported after the write. */
  private migration: { backup: string; droppedLines: number[] } | undefined;
  /**
   * What the manager's entries made: every entry's node (kept in step with `sm` by every change)
   * and the list row's entry facts (the index does not read an open file). A whole read builds new
   * ones beside the current ones, which are replaced together with `sm` when it ends.
   */
  private view: { tree: TreeModel; facts: RowFacts };
  private queue: Promise<unknown> = Promise.resolve();
  private watcher: Watcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private writerTimer: NodeJS.Timeout | undefined;
  private lastExternalAppend = 0;
  private writerActiveFlag = false;
  private closed = false;
  /** The descriptor entries are read back through during one synchronous operation (see readRange). */
  private reads: { fd: number; size: number } | undefined;
  /** Set when the stored leaf had to be dropped on open; sent to the first subscriber. */
  pendingNotice: LeafNotice | undefined;
  /** The first read of the file, while it runs (see open). */
  private firstLoad: LoadProgress | undefined;

  constructor(private readonly options: OpenSessionOptions) {
    this.id = options.id;
    this.file = options.file;
    this.view = { tree: new TreeModel(options.home), facts: emptyRowFacts() };
    this.tail = new FileTail(options.file, options.pieceBytes);
  }

  /** Every entry's node, kept in step with `sm` by every change. */
  get tree(): TreeModel {
    return this.view.tree;
  }

  get writerActive(): boolean {
    return this.writerActiveFlag;
  }

  get pendingBytes(): number {
    return this.sm.pendingBytes;
  }

  /** Why Canopy does not write to this session (an archive, an unknown format version), if so. */
  get readOnly(): string | undefined {
    return readOnlyReason(this.file, this.sm?.getHeader() ?? undefined, this.sm?.versionKnown ?? true);
  }

  /** Bytes per read of the file (and at most per write of a rewrite). */
  private get pieceBytes(): number {
    return this.options.pieceBytes ?? READ_CHUNK_BYTES;
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
    if (this.writerTimer) clearTimeout(this.writerTimer);
    this.persistLeaf();
    this.tree.clear();
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
      rewrite: (text) => this.rewrite([Buffer.from(text, 'utf8')]),
      // Bytes per write: the piece size of reads, at most LINE_BATCH_BYTES (a test seam makes it small).
      rewriteLines: (lines) => this.rewrite(lineBatches(lines, Math.min(this.pieceBytes, LINE_BATCH_BYTES))),
    };
  }

  private readText(): string {
    throw new Error('OpenSession reads through its own tail; SessionManager.read() is not used');
  }

  /**
   * Bytes of the session file as read (an entry's line), through a descriptor verified to be the
   * session file inside the roots. A file that is no longer the one read (replaced, or shorter than
   * the line) is refused and reloaded; the manager also checks every line against its index, so a
   * rewritten file never answers a wrong entry.
   */
  readRange(offset: number, length: number): Uint8Array {
    try {
      const reads = this.descriptorForReads();
      // Lines Canopy appended since the descriptor was opened are past its first size.
      if (reads.size < offset + length) reads.size = fs.fstatSync(reads.fd).size;
      if (reads.size < offset + length) {
        throw new FileSafetyError('changed', 'The session file is shorter than what was read.');
      }
      return readAtSync(reads.fd, offset, length);
    } catch (error) {
      if (!(error instanceof FileSafetyError)) throw error;
      this.schedulePoll();
      if (error.reason === 'changed') throw fileChangedUnderneath();
      throw fileErrorToAppError(error);
    }
  }

  /**
   * The verified descriptor the reads of one synchronous operation share (a context reads back every
   * entry of a branch: one open and check each would cost more than the reads). It is opened and
   * verified by the first read and closed on the next turn of the event loop, so every operation
   * still checks the file at the moment it happens.
   */
  private descriptorForReads(): { fd: number; size: number } {
    if (this.reads) return this.reads;
    const { fd, stat } = openConfinedSync(this.file, fs.constants.O_RDONLY);
    if (!sameFile(stateOf(stat), this.tail.fileState)) {
      fs.closeSync(fd);
      throw new FileSafetyError('changed', 'The session file is no longer the one that was read.');
    }
    const reads = { fd, size: stat.size };
    this.reads = reads;
    setImmediate(() => {
      if (this.reads === reads) this.reads = undefined;
      fs.closeSync(fd);
    });
    return reads;
  }

  /**
   * (Re)reads the whole file through one verified descriptor, piece by piece: each piece is parsed,
   * hashed and dropped before the next is read, so neither the file nor its text is ever held
   * whole (an archive, read-only, is decompressed piece by piece too, and kept as entries). The manager keeps only its index and reads
   * an entry back from the file when it is asked for (see docs/architecture.md#state); the tree
   * model gets every entry once through onEntries. The new manager, tree, list facts and tail
   * replace the current ones together at the end, so nothing reads a half-loaded state. The tail
   * records the file as it was before the first piece: a change made while reading shows at the
   * next look (the caller looks at once). A file that vanished or left the roots throws
   * FileSafetyError.
   */
  private async loadFromFile(initial: boolean, progress?: LoadProgress): Promise<void> {
    const { fd, stat } = openConfinedSync(this.file, fs.constants.O_RDONLY);
    const state = stateOf(stat);
    const tail = new FileTail(this.file, this.options.pieceBytes);
    const view = { tree: new TreeModel(this.options.home), facts: emptyRowFacts() };
    progress?.started(view.tree, state.size);
    let sm: SessionManager;
    try {
      // A cut-off last line stays buffered in the manager until its newline arrives.
      sm = await SessionManager.fromJsonlChunks(this.wholeRead(fd, state.size, tail, progress), {
        storage: this.storage(),
        storageProvider: this.options.storageProvider,
        // An archive is not the bytes on disk, so it keeps its entries whole.
        retain: isArchive(this.file) ? 'all' : 'index',
        readRange: (offset, length) => this.readRange(offset, length),
        onEntries: (entries, firstIndex) => {
          if (firstIndex === 0) view.facts = emptyRowFacts();
          view.tree.receive(entries, firstIndex);
          countEntries(view.facts, entries);
        },
      });
    } finally {
      fs.closeSync(fd);
    }
    tail.loaded(state, sm.getTitleSlot() !== undefined);
    const previousLeaf = initial ? undefined : this.sm.getLeafId();
    this.sm = sm;
    this.tail = tail;
    this.view = view;
    // Reads from now on are of the file just loaded (the old descriptor closes on the next turn).
    this.reads = undefined;
    this.syncTree();
    const notice = restoreLeaf(
      sm,
      this.tree.all,
      this.options.state.getLeaf(this.id),
      initial ? undefined : previousLeaf,
    );
    if (notice) this.pendingNotice = notice;
    this.persistLeaf();
    void this.prepareChildIndexLater(sm);
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

  /**
   * The file's `size` bytes in pieces, each parsed and told to `tail` a slice at a time. Every piece is
   * read into the same buffer, so a piece is valid only until the next is asked for: the parser copies
   * what it keeps (a cut-off line), the tail copies its window and title line, the hash takes the bytes at once.
   * Between two pieces the read lets the event loop run, so that a snapshot streaming the nodes
   * received so far (`progress`) gets them onto its socket while the rest is read.
   */
  private async *wholeRead(
    fd: number,
    size: number,
    tail: FileTail,
    progress: LoadProgress | undefined,
  ): AsyncGenerator<Buffer> {
    if (isArchive(this.file)) {
      // Decompressed piece by piece, with its limits (an error says why it cannot be read).
      for await (const piece of archivePiecesOf(fd, size)) {
        tail.took(piece);
        yield piece;
      }
      progress?.advanced(size);
      return;
    }
    const buffer = Buffer.allocUnsafe(Math.min(this.pieceBytes, size));
    for (let at = 0; at < size;) {
      const piece = readIntoSync(fd, at, buffer, Math.min(buffer.length, size - at));
      if (piece.length === 0) return; // shrank while reading: the next look sees it
      // Parsed a slice per turn of the event loop: a whole piece is ~50 ms of parsing, and a
      // request served meanwhile (the page's script, its API calls) waited that long per turn.
      for (let from = 0; from < piece.length; from += PARSE_SLICE_BYTES) {
        if (from > 0) await new Promise<void>((resolve) => setImmediate(resolve));
        const slice = piece.subarray(from, from + PARSE_SLICE_BYTES);
        // Told to the tail slice by slice: the hash takes a slice into one slot of its thread's
        // ring, which has hashed it long before the next slice is parsed (running-hash.ts).
        tail.took(slice);
        yield slice;
      }
      at += piece.length;
      progress?.advanced(at);
      await this.options.afterPiece?.(at);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private persistLeaf(): void {
    if (this.sm)
      this.options.state.setLeaf(
        this.id,
        leafRecord(this.sm, this.tree.all.length, this.tail.offset, this.tail.fileState),
      );
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
        const reason = withConfinedSync(this.file, (fd, stat) =>
          this.tail.look(fd, stateOf(stat), this.tailEvents),
        );
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

  private readonly tailEvents: TailEvents = {
    grew: (fresh) => this.ingestExternal(fresh),
    titleRewritten: (slot) => {
      // The name is updated and the list row republished; no reload happens.
      this.sm.replaceTitleSlot(slot);
      this.options.onChange?.();
    },
  };

  private ingestExternal(fresh: Buffer): void {
    const { entries } = this.sm.ingest(fresh);
    this.lastGrowthAt = this.options.clock.now();
    const change: SessionChange = {};
    if (this.markExternalWriter()) change.writerActive = true;
    if (entries.length > 0) {
      const previousId = this.sm.getLeafId();
      if (followLeaf(this.sm, entries)) change.leaf = { id: this.sm.getLeafId(), previousId };
      change.delta = this.syncTree();
      this.persistLeaf();
    }
    this.publishChange('external', change);
    if (entries.length > 0) this.options.onChange?.();
  }

  /** Brings the tree model up to date with the manager and answers what changed. */
  private syncTree(): TreeDelta {
    return this.tree.sync(this.sm);
  }

  private publishChange(source: ChangeSource, change: SessionChange): void {
    const event = sessionChanged(this.id, source, change);
    if (event) this.options.publish(event);
  }

  /** Reads the file again whole (it was replaced, truncated or rewritten) and says so. */
  private async reload(reason: ReloadReason): Promise<void> {
    const previousLeaf = this.sm.getLeafId();
    this.pendingNotice = undefined;
    this.lastGrowthAt = this.options.clock.now();
    await this.loadFromFile(false);
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
  private async resync(reason: 'rewritten'): Promise<void> {
    try {
      await this.reload(reason);
    } catch {
      // Unreadable now: the next poll reports it; the write error is what the caller sees.
    }
  }

  /** Why a write must wait now, if it must (a held lock in its own words). */
  private writeBlocker(): { reason: 'mid-write' | 'busy' | 'locked'; message: string } | undefined {
    const now = this.options.clock.now();
    if (this.sm.pendingBytes > 0) return { reason: 'mid-write', message: 'mid-write' };
    if (now - this.lastGrowthAt < this.options.quietWindowMs) return { reason: 'busy', message: 'busy' };
    const lock = lockStateOf(this.file, now);
    if (lock.held) return { reason: 'locked', message: lock.message };
    if (lock.ignored) this.reportIgnoredLock(lock);
    return undefined;
  }

  /**
   * Says (log and a notice on the page) that a lock file beside the session was ignored and why,
   * once per lock file as it is.
   */
  private reportIgnoredLock(lock: Extract<LockState, { ignored: string }>): void {
    if (this.ignoredLock === lock.key) return;
    this.ignoredLock = lock.key;
    this.options.log?.(`${this.file}: ${lock.ignored}`);
    this.options.publish({ type: 'error', code: 'LOCK_IGNORED', sessionId: this.id, message: lock.ignored });
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
        if (blocker.reason === 'busy') {
          throw new AppError(
            'FILE_BUSY',
            'Another program keeps appending to the session file; nothing was written. Try again when it pauses.',
          );
        }
        const waited = `Canopy waited ${(this.options.midWriteWaitMs / 1000).toFixed(1)} s for it.`;
        throw fileErrorToAppError(new FileSafetyError(blocker.reason, `${blocker.message}. ${waited}`));
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
        this.publishChange('canopy', { delta: this.syncTree() });
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
      const delta = this.syncTree();
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
    const result = appendConfinedSync(this.file, data, this.tail.fileState, {
      now: this.options.clock.now(),
      write: this.options.write,
      journal: this.options.journal,
    });
    if (result.before.length > 0) this.landedAfterOthers = true;
    this.tail.appended(result.start, result.before, data, result.state);
  }

  /**
   * The migration rewrite of a legacy file before its first write (docs/safety.md#migration-rewrite),
   * with the file never held whole: through one verified descriptor, the file must still be exactly
   * what was read (hashed again piece by piece), an exact backup is copied beside it piece by piece
   * (see backupExactSync), then `content` (the v3 lines, serialised batch by batch as they are
   * written) goes to a temporary file renamed over it (replaceConfinedSync). A new tail takes the
   * pieces as they are written; a failure anywhere leaves the file, the tail and the manager as they were.
   */
  private rewrite(content: Iterable<Buffer>): void {
    const { fd, stat } = openConfinedSync(this.file, fs.constants.O_RDONLY);
    try {
      const state = stateOf(stat);
      if (!this.tail.isExactly(fd, state)) {
        throw new FileSafetyError('changed', 'the file changed before the migration rewrite');
      }
      const lock = lockStateOf(this.file, this.options.clock.now());
      if (lock.held) throw new FileSafetyError('locked', `${lock.message}.`);
      const backup = backupExactSync(
        this.file,
        this.sm.version ?? 1,
        this.tail.contentIn(fd),
        state.mode,
        this.options.confined,
        this.pieceBytes,
      );
      const tail = new FileTail(this.file, this.options.pieceBytes);
      const written = seenSync(content, (piece) => tail.took(piece));
      const replaced = replaceConfinedSync(this.file, written, state, this.options.confined);
      tail.loaded(replaced, this.sm.getTitleSlot() !== undefined);
      this.migration = { backup, droppedLines: droppedLinesOf(this.sm.issues) };
      this.tail = tail;
      this.reads = undefined;
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Says which lines a migration left out and where they are kept. */
  private reportMigration(): void {
    const migration = this.migration;
    this.migration = undefined;
    if (!migration || migration.droppedLines.length === 0) return;
    const message = droppedLinesMessage(migration.droppedLines, migration.backup);
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
      facts: { ...this.view.facts },
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
