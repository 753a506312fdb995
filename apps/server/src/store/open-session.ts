import type { ServerEvent, SkeletonNode } from '@canopy/protocol';
import {
  SessionManager,
  SessionWriteError,
  ToolCallIndex,
  type SessionEntry,
  type SessionHeader,
  type SessionStorage,
  type SessionStorageProvider,
} from '@canopy/session-core';
import { AppError } from '../errors';
import {
  appendLinesSync,
  atomicWriteSync,
  backupOnceSync,
  ChangedUnderneathError,
  MidWriteError,
  readChunks,
  readRange,
  READ_CHUNK_BYTES,
  statFile,
  statFileSync,
  watchPath,
  type Watcher,
} from './files';
import { buildSkeletonNodes, SkeletonCache } from './skeleton';
import type { StateStore } from './state';

/** Bytes kept from just before our read offset; if they change, the file was rewritten underneath. */
const WINDOW_BYTES = 64;
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
  onGrow?: () => void;
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
  private ino = 0;
  private dev = 0;
  private toolCalls = new ToolCallIndex();
  private readonly skeletonCache: SkeletonCache;
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
    this.skeletonCache = new SkeletonCache(options.home);
  }

  get writerActive(): boolean {
    return this.writerActiveFlag;
  }

  get pendingBytes(): number {
    return this.sm.pendingBytes;
  }

  /** Loads the file and starts tailing it. */
  async open(): Promise<void> {
    await this.load(true);
    this.watcher = watchPath(this.file, false, () => this.schedulePoll());
    this.pollTimer = setInterval(() => this.schedulePoll(), this.options.pollMs);
    this.pollTimer.unref();
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.writerTimer) clearTimeout(this.writerTimer);
    this.skeletonCache.clear();
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

  /** Brings the in-memory session up to date with the file (in the queue). */
  refresh(): Promise<void> {
    return this.enqueue(() => this.poll());
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

  /** (Re)reads the whole file. */
  private async load(initial: boolean): Promise<void> {
    const before = await statFile(this.file);
    if (!before) throw new AppError('SESSION_NOT_FOUND', 'The session file no longer exists.');
    // Read in pieces: a file over the runtime's longest string (about 512 MB) must still open.
    let size = 0;
    let window: Buffer = Buffer.alloc(0);
    const file = this.file;
    async function* counted(): AsyncGenerator<Buffer> {
      for await (const chunk of readChunks(file)) {
        size += chunk.length;
        window = lastBytes(window, chunk, WINDOW_BYTES);
        yield chunk;
      }
    }
    // A cut-off last line stays buffered in the manager until its newline arrives.
    const sm = await SessionManager.fromJsonlChunks(counted(), {
      storage: this.storage(),
      storageProvider: this.options.storageProvider,
    });
    const previousLeaf = initial ? undefined : this.sm.getLeafId();
    this.sm = sm;
    this.offset = size;
    this.window = window;
    this.ino = before.ino;
    this.dev = before.dev;
    this.toolCalls = new ToolCallIndex();
    this.toolCalls.addEntries(sm.getEntries());
    this.skeletonCache.clear();
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
      ino: this.ino,
      dev: this.dev,
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

  private async poll(): Promise<void> {
    if (this.closed) return;
    const stat = await statFile(this.file);
    if (!stat) return; // deleted: the index drops it; keep the last state for open tabs
    if (stat.ino !== this.ino || stat.dev !== this.dev) return this.reload('replaced');
    if (stat.size < this.offset) return this.reload('truncated');
    // In pieces, like the first read: what another writer appended can be large too.
    while (stat.size > this.offset && !this.closed) {
      const start = Math.max(0, this.offset - this.window.length);
      const end = Math.min(stat.size, this.offset + READ_CHUNK_BYTES);
      const bytes = await readRange(this.file, start, end - start);
      const before = bytes.subarray(0, this.offset - start);
      if (!before.equals(this.window)) return this.reload('rewritten');
      const fresh = bytes.subarray(this.offset - start);
      if (fresh.length === 0) return; // shrank while reading: the next poll sees it
      this.ingestExternal(fresh);
    }
  }

  private ingestExternal(fresh: Buffer): void {
    const { entries } = this.sm.ingest(fresh);
    this.offset += fresh.length;
    this.window = lastBytes(this.window, fresh, WINDOW_BYTES);
    this.markExternalWriter();
    if (entries.length === 0) return;
    const oldLeafId = this.sm.getLeafId();
    const moved = this.followLeaf(entries);
    this.emitAppended(entries, 'external');
    if (moved) {
      this.options.publish({
        type: 'session_tree',
        sessionId: this.id,
        newLeafId: this.sm.getLeafId(),
        oldLeafId,
      });
    }
    this.persistLeaf();
    this.options.onGrow?.();
  }

  private async reload(reason: 'replaced' | 'truncated' | 'rewritten'): Promise<void> {
    const previousLeaf = this.sm.getLeafId();
    this.pendingNotice = undefined;
    try {
      await this.load(false);
    } catch (error) {
      if (error instanceof AppError) return; // no longer a session; keep the last good state
      throw error;
    }
    this.options.publish({ type: 'session_reloaded', sessionId: this.id, reason });
    const notice = this.pendingNotice as LeafNotice | undefined;
    if (notice || previousLeaf !== this.sm.getLeafId()) {
      this.options.publish({
        type: 'leaf_notice',
        sessionId: this.id,
        leafId: this.sm.getLeafId(),
        previousLeafId: previousLeaf,
        reason: 'file-changed',
        message: notice?.message ?? 'The file changed underneath; the leaf is back at the last entry.',
      });
      this.pendingNotice = undefined;
    }
    this.options.onGrow?.();
  }

  private markExternalWriter(): void {
    this.lastExternalAppend = Date.now();
    if (!this.writerActiveFlag) {
      this.writerActiveFlag = true;
      this.options.publish({ type: 'writer_active', sessionId: this.id, active: true });
    }
    if (this.writerTimer) clearTimeout(this.writerTimer);
    this.writerTimer = setTimeout(() => {
      this.writerTimer = undefined;
      if (Date.now() - this.lastExternalAppend >= WRITER_ACTIVE_MS - 10 && this.writerActiveFlag) {
        this.writerActiveFlag = false;
        this.options.publish({ type: 'writer_active', sessionId: this.id, active: false });
      }
    }, WRITER_ACTIVE_MS);
    this.writerTimer.unref();
  }

  // ------------------------------------------------------------------ writing

  /**
   * Runs `mutate` on the session manager with the file up to date. When `writes` is set, it first
   * waits (up to midWriteWaitMs) for another writer's cut-off line to complete and refuses with
   * FILE_MID_WRITE if it stays cut off. New entries are published as entries_appended (and
   * label_changed for label entries); the leaf is persisted.
   */
  mutate<T>(mutate: (sm: SessionManager) => T, writes: boolean): Promise<T> {
    return this.enqueue(async () => {
      await this.poll();
      if (writes && this.sm.pendingBytes > 0) {
        const deadline = Date.now() + this.options.midWriteWaitMs;
        while (this.sm.pendingBytes > 0 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          await this.poll();
        }
        if (this.sm.pendingBytes > 0) {
          throw new AppError(
            'FILE_MID_WRITE',
            'The last line of the session file is cut off (another program is writing it, or it crashed mid-write); nothing was written. Try again in a moment.',
          );
        }
      }
      const countBefore = this.sm.getEntries().length;
      let result: T;
      try {
        result = mutate(this.sm);
      } catch (error) {
        if (error instanceof ChangedUnderneathError || error instanceof MidWriteError) {
          // Our in-memory state may hold an entry the file does not: start over from the file.
          await this.reload('rewritten').catch(() => undefined);
          throw new AppError(
            error instanceof MidWriteError ? 'FILE_MID_WRITE' : 'FILE_CHANGED',
            'Another program wrote to the session file at the same moment; nothing was written. Try again.',
          );
        }
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
      const added = this.sm.getEntries().slice(countBefore);
      if (added.length > 0) this.emitAppended(added, 'canopy');
      this.persistLeaf();
      if (added.length > 0) this.options.onGrow?.();
      return result;
    });
  }

  private appendLines(lines: readonly string[]): void {
    if (lines.length === 0) return;
    const newSize = appendLinesSync(this.file, lines, this.offset);
    const written = Buffer.from(lines.map((line) => `${line}\n`).join(''), 'utf8');
    this.offset = newSize;
    const tail = Buffer.concat([this.window, written]);
    this.window = Buffer.from(tail.subarray(Math.max(0, tail.length - WINDOW_BYTES)));
  }

  /**
   * The migration rewrite of a legacy file before its first write: a byte-for-byte backup beside
   * it (never overwritten), then an atomic replace. The file must still be exactly what we read.
   */
  private rewrite(text: string): void {
    const current = this.readCurrentSync();
    if (current.size !== this.offset || current.ino !== this.ino) {
      throw new ChangedUnderneathError('the file changed before the migration rewrite');
    }
    const version = this.sm.version;
    backupOnceSync(this.file, `${this.file}.v${version}.bak`);
    atomicWriteSync(this.file, text);
    const after = this.readCurrentSync();
    const bytes = Buffer.from(text, 'utf8');
    this.offset = bytes.length;
    this.window = Buffer.from(bytes.subarray(Math.max(0, bytes.length - WINDOW_BYTES)));
    this.ino = after.ino;
    this.dev = after.dev;
  }

  private readCurrentSync(): { size: number; ino: number; dev: number } {
    const stat = statFileSyncOrThrow(this.file);
    return { size: stat.size, ino: stat.ino, dev: stat.dev };
  }

  // ------------------------------------------------------------------ views

  /** Nodes of `entries` (appended ones, for events and write results), tool calls from the whole session. */
  skeleton(entries: readonly SessionEntry[]): SkeletonNode[] {
    return buildSkeletonNodes(entries, (id) => this.sm.getLabel(id), this.toolCalls, this.options.home);
  }

  /** Every entry's node in file order, from the cache kept up to date with the manager. */
  allNodes(): readonly SkeletonNode[] {
    return this.skeletonCache.nodesOf(this.sm);
  }

  /** `JSON.stringify(allNodes())`, cached between requests. */
  allNodesJson(): string {
    return this.skeletonCache.jsonOf(this.sm);
  }

  private emitAppended(entries: readonly SessionEntry[], source: 'external' | 'canopy'): void {
    const nodes = this.skeleton(entries);
    this.options.publish({
      type: 'entries_appended',
      sessionId: this.id,
      nodes,
      leafId: this.sm.getLeafId(),
      source,
    });
    for (const entry of entries) {
      if (entry.type !== 'label' || typeof entry.targetId !== 'string') continue;
      const label = this.sm.getLabel(entry.targetId);
      this.options.publish({
        type: 'label_changed',
        sessionId: this.id,
        targetId: entry.targetId,
        labelEntryId: entry.id,
        ...(label !== undefined ? { label } : {}),
      });
    }
  }
}

function statFileSyncOrThrow(file: string): { size: number; ino: number; dev: number } {
  const stat = statFileSync(file);
  if (!stat) throw new ChangedUnderneathError('the session file disappeared');
  return stat;
}

/** The last `count` bytes of `before` followed by `after`, copied (the inputs may be reused). */
function lastBytes(before: Buffer, after: Buffer, count: number): Buffer {
  if (after.length >= count) return Buffer.from(after.subarray(after.length - count));
  const tail = Buffer.concat([before, after]);
  return Buffer.from(tail.subarray(Math.max(0, tail.length - count)));
}
