// The server's one view of the session files: the list (the index and its watches) and the open
// sessions (their lifecycle, and the repair of a crashed append before one opens). One file because
// every open, close and listing change goes through the same maps of open sessions and the same
// index; the parts live in list/ (session-index.ts), live/ (open-session.ts) and files/
// (append-journal.ts). It sits above them, beside app.ts, because it wires them together.
import path from 'node:path';
import type {
  ListingProgress,
  ServerEvent,
  SessionListChangedEvent,
  SessionListItem,
} from '@canopy/protocol';
import { AppError } from './errors';
import type { AppendJournal, RepairOutcome } from './files/append-journal';
import type { WriteOnce } from './files/confined';
import { NewFileStorageProvider } from './files/file-storage';
import { isInside, realpathOrUndefined, watchPath, type Watcher } from './files/files';
import { FolderWatches, ignoredWatchName, NATIVE_RECURSIVE_WATCH } from './list/folder-watches';
import { OpenSession, REAL_CLOCK, type Clock } from './live/open-session';
import { sessionListChanged } from './live/session-events';
import { SessionIndex, type IndexedSession, type ListDelta, type Root } from './list/session-index';
import type { StateStore } from './files/state';

export interface SessionStoreOptions {
  roots: Root[];
  state: StateStore;
  home: string;
  publish: (event: ServerEvent) => void;
  /** Does any browser follow this session? Asked for each open session by releaseIdle. */
  hasSubscribers: (id: string) => boolean;
  pollMs?: number;
  rescanMs?: number;
  midWriteWaitMs?: number;
  /** Open sessions without subscribers are closed after this long (by `clock`), see releaseIdle. */
  idleCloseMs?: number;
  /**
   * Runs a little after a sweep closed sessions (their last promise jobs and timers have run by
   * then): the server gives their memory back with a full collection (see memory.ts).
   */
  afterRelease?: () => void;
  /** A write waits until the file has not grown for this long. */
  quietWindowMs?: number;
  clock?: Clock;
  /** Test seam: the one write() of an append. */
  write?: WriteOnce;
  /** Records each append before its write; its leftovers are repaired (append-journal.ts). */
  journal?: AppendJournal;
  /** Test seam: runs after each piece of a session's whole read; the read waits for it (OpenSession). */
  afterPiece?: (readSoFar: number) => void | Promise<void>;
  /** Test seam: bytes per read of a session file (OpenSession). */
  pieceBytes?: number;
  log?: (message: string) => void;
}

/** An open session nobody follows is closed after this long without use. */
export const DEFAULT_IDLE_CLOSE_MS = 60_000;

/** Different paths named by watch events that are looked at one by one; more at once: one rescan. */
export const MAX_QUEUED_PATHS = 64;
/** How long after a flood of watch events the rescan that replaces them runs. */
export const FLOODED_RESCAN_DELAY_MS = 1000;

/** Default quiet window: an agent streaming lines writes them closer together than this. */
export const QUIET_WINDOW_MS = 250;

/**
 * The server's view of the session files: the index of every session under the roots, kept
 * current by watching them, and the open (tailed, writable) sessions with their lifecycle (opened
 * on first use, closed when idle). Reads and writes of a session go through `SessionReads` and
 * `SessionWrites` (operations/); every file access of the server goes through files/.
 */
export class SessionStore {
  readonly index: SessionIndex;
  private readonly opened = new Map<string, Promise<OpenSession>>();
  /** Each session of `opened` as soon as it exists (before its first read ends; see begin). */
  private readonly created = new Map<string, Promise<OpenSession>>();
  /** When (by the clock) each open session was last used or seen followed by a browser. */
  private readonly lastUse = new Map<string, number>();
  private idleTimer: NodeJS.Timeout | undefined;
  private watchers: Watcher[] = [];
  private rescanTimer: NodeJS.Timeout | undefined;
  private scanTimer: NodeJS.Timeout | undefined;
  private pathTimer: NodeJS.Timeout | undefined;
  private readonly changedPaths = new Set<string>();
  /** The delay of the rescan scheduled now. */
  private scanDelay = 0;
  private closed = false;

  constructor(private readonly options: SessionStoreOptions) {
    this.index = new SessionIndex(
      options.roots,
      options.log,
      (delta) => this.publishRows(delta),
      (folders, whole) => this.watchFolders(folders, whole),
    );
  }

  /** Folder watches (Linux), kept to the folders the listing walks; see folder-watches.ts. */
  private folderWatches: FolderWatches | undefined;

  private watchFolders(folders: ReadonlySet<string>, whole: boolean): void {
    const watches = this.folderWatches;
    if (!watches) return;
    if (!whole) return watches.add(folders);
    // A root that is a single file is watched itself.
    watches.sync(new Set([...this.options.roots.map((root) => root.path), ...folders]));
  }

  /** Is a real path inside one of the roots? Checked again at every file operation. */
  readonly confined = (real: string): boolean => this.options.roots.some((root) => isInside(root.path, real));

  /**
   * Starts the first reading of the folders and watching them. The server listens before that
   * reading ends (a user with gigabytes of sessions gets the URL at once): rows are published as
   * they are read, newest first, `listing` says how far it is, and the last event of the reading
   * says the list is whole. `firstScan` resolves then.
   */
  start(): void {
    this.firstScan = this.index.scan().then(
      (delta) => this.endFirstScan(delta),
      (error: unknown) => {
        this.options.log?.(`listing the sessions failed: ${(error as Error).message}`);
        this.endFirstScan({ upserted: new Set(), removed: new Set() });
      },
    );
    const onChange = (changed: string | undefined) =>
      changed ? this.queuePath(changed) : this.scheduleScan();
    if (NATIVE_RECURSIVE_WATCH) {
      for (const root of this.options.roots) this.watchers.push(watchPath(root.path, true, onChange));
    } else {
      this.folderWatches = new FolderWatches(onChange);
      this.folderWatches.add(this.options.roots.map((root) => root.path));
    }
    this.rescanTimer = setInterval(() => this.scheduleScan(), this.options.rescanMs ?? 5000);
    this.rescanTimer.unref();
    // Looked at four times per period, so a session closes within 1.25 periods of its last use.
    this.idleTimer = setInterval(() => this.releaseIdle(), Math.max(1, this.idleCloseMs / 4));
    this.idleTimer.unref();
  }

  /** Resolves when the first reading of the folders has ended (see start). */
  firstScan: Promise<void> = Promise.resolve();
  private firstScanDone = false;

  private endFirstScan(delta: ListDelta): void {
    this.firstScanDone = true;
    if (this.closed) return;
    this.options.publish({ ...this.listChanged(delta), listing: null });
  }

  /** How far the first reading of the folders is while it runs (the list is not whole yet). */
  listing(): ListingProgress | undefined {
    if (this.firstScanDone) return undefined;
    return this.index.progress() ?? { read: 0, total: 0 };
  }

  private get idleCloseMs(): number {
    return this.options.idleCloseMs ?? DEFAULT_IDLE_CLOSE_MS;
  }

  private get clock(): Clock {
    return this.options.clock ?? REAL_CLOCK;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.index.stop();
    for (const watcher of this.watchers) watcher.close();
    this.folderWatches?.close();
    if (this.rescanTimer) clearInterval(this.rescanTimer);
    if (this.scanTimer) clearTimeout(this.scanTimer);
    if (this.pathTimer) clearTimeout(this.pathTimer);
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.lastUse.clear();
    for (const pending of this.opened.values()) {
      const session = await pending.catch(() => undefined);
      session?.close();
    }
    this.opened.clear();
    this.created.clear();
  }

  /**
   * A watch event that names no path, or the periodic timer (the fallback for watch events a file
   * system does not deliver): rescan every root soon, coalescing bursts. Open files are not read.
   */
  scheduleScan(delayMs = 50): void {
    if (this.closed || this.scanTimer) return;
    this.scanDelay = delayMs;
    this.scanTimer = setTimeout(() => {
      this.scanTimer = undefined;
      void this.index.scan().then(
        (delta) => this.publishRows(delta),
        (error: unknown) => this.options.log?.(`rescan failed: ${(error as Error).message}`),
      );
    }, delayMs);
  }

  /**
   * A watch event for one path: only that path is looked at, soon, coalescing bursts. A name that
   * is never a session nor a folder of sessions (a tool output, a lock, a temporary file) is ignored;
   * past MAX_QUEUED_PATHS different paths in one burst (a program renaming files over and over), the
   * paths are dropped and one rescan, a while later, looks at everything instead.
   */
  private queuePath(changed: string): void {
    if (this.closed || ignoredWatchName(changed)) return;
    if (this.changedPaths.size >= MAX_QUEUED_PATHS && !this.changedPaths.has(changed)) {
      this.changedPaths.clear();
      if (this.pathTimer) clearTimeout(this.pathTimer);
      this.pathTimer = undefined;
      this.scheduleScan(FLOODED_RESCAN_DELAY_MS);
      return;
    }
    if (this.scanTimer && this.scanDelay === FLOODED_RESCAN_DELAY_MS) return; // the rescan will see it
    this.changedPaths.add(changed);
    if (this.pathTimer) return;
    this.pathTimer = setTimeout(() => {
      this.pathTimer = undefined;
      const paths = [...this.changedPaths];
      this.changedPaths.clear();
      void (async () => {
        for (const changedPath of paths) this.publishRows(await this.index.refreshPath(changedPath));
      })().catch((error: unknown) => this.options.log?.(`refresh failed: ${(error as Error).message}`));
    }, 50);
  }

  private publishRows(delta: ListDelta): void {
    if (this.closed || (delta.upserted.size === 0 && delta.removed.size === 0)) return;
    const event = this.listChanged(delta);
    const listing = this.listing();
    this.options.publish(listing ? { ...event, listing } : event);
  }

  /** The `session_list_changed` of the rows a delta names. */
  private listChanged(delta: ListDelta): SessionListChangedEvent {
    const upserted = [...delta.upserted].flatMap((id) => this.listItem(id) ?? []);
    return sessionListChanged(upserted, [...delta.removed]);
  }

  list(): SessionListItem[] {
    const items = this.index.all().map((session) => this.listItem(session.id)!);
    items.sort((a, b) => b.mtime - a.mtime);
    return items;
  }

  private isWriterActive(id: string): boolean {
    return this.openedNow.get(id)?.writerActive ?? false;
  }

  private readonly openedNow = new Map<string, OpenSession>();

  /** Resolves an opaque id to its indexed file, re-checking that the real path is still inside a root. */
  async resolve(id: string): Promise<IndexedSession> {
    let indexed = this.index.get(id);
    if (!indexed) {
      // A scan running now knows every file's id once it has found them, long before it has read them.
      await this.index.whenFound();
      indexed = this.index.get(id);
    }
    if (!indexed) {
      this.publishRows(await this.index.scan());
      indexed = this.index.get(id);
    }
    if (!indexed) throw new AppError('SESSION_NOT_FOUND', `No session with id ${id}.`);
    const real = await realpathOrUndefined(indexed.file);
    if (!real) throw new AppError('SESSION_NOT_FOUND', 'The session file no longer exists.');
    if (real !== indexed.file || !this.confined(real)) {
      throw new AppError('OUTSIDE_ROOTS', 'The session file now resolves outside the configured folders.');
    }
    return indexed;
  }

  /** The open session for an id, opening (and tailing) it on first use. */
  async open(id: string): Promise<OpenSession> {
    const existing = this.opened.get(id);
    if (existing) {
      if (this.openedNow.has(id)) this.touchIdle(id);
      return existing;
    }
    let createdNow: (session: OpenSession) => void = () => undefined;
    const created = new Promise<OpenSession>((resolve) => (createdNow = resolve));
    const pending = (async () => {
      const indexed = await this.resolve(id);
      // An archive the listing could not read says why, before anything is sent.
      if (indexed.problem) throw indexed.problem;
      // A crash in the middle of Canopy's own append to it is repaired before it is read.
      this.repairLeftover(id);
      // The first reading of the folders may be reading this very file: it stops, the open reads it.
      this.index.claim(id);
      const session: OpenSession = new OpenSession({
        id,
        file: indexed.file,
        state: this.options.state,
        home: this.options.home,
        // The session's one listener: its events go to the hub, and its own state becomes its list row.
        listener: (events, rowChanged) => {
          for (const event of events) this.options.publish(event);
          if (rowChanged) this.publishOpenRow(session);
        },
        pollMs: this.options.pollMs ?? 150,
        midWriteWaitMs: this.options.midWriteWaitMs ?? 1000,
        storageProvider: new NewFileStorageProvider(
          path.dirname(indexed.file),
          (): number => session.mode,
          this.confined,
        ),
        confined: this.confined,
        quietWindowMs: this.options.quietWindowMs ?? QUIET_WINDOW_MS,
        clock: this.clock,
        write: this.options.write,
        journal: this.options.journal,
        log: this.options.log,
        ...(this.options.afterPiece ? { afterPiece: this.options.afterPiece } : {}),
        ...(this.options.pieceBytes ? { pieceBytes: this.options.pieceBytes } : {}),
      });
      const opening = session.open();
      createdNow(session);
      await opening;
      this.openedNow.set(id, session);
      this.index.adopt(id, session.listRow());
      return session;
    })();
    this.opened.set(id, pending);
    // A session that failed before it existed is only its failure (handled here: maybe nobody asks).
    const createdOrFailed = Promise.race([created, pending]);
    createdOrFailed.catch(() => undefined);
    this.created.set(id, createdOrFailed);
    pending.catch(() => {
      this.opened.delete(id);
      this.created.delete(id);
      this.index.release(id);
    });
    const session = await pending;
    if (this.openedNow.get(id) === session) this.touchIdle(id);
    return session;
  }

  /**
   * The session for `id` as soon as it exists, starting to open it if it is not: while its first
   * read runs, that is before `opened` resolves (its `loading` says how far the read is). Rejects
   * like open() when it fails before that (an unknown id, a file outside the roots).
   */
  async begin(id: string): Promise<{ session: OpenSession; opened: Promise<OpenSession> }> {
    const opened = this.open(id);
    // The caller learns of a failure from `opened` or from the session's own promise below.
    opened.catch(() => undefined);
    const session = await (this.created.get(id) ?? opened);
    return { session, opened };
  }

  /** Notes a use of an open session: its idle period starts again. */
  private touchIdle(id: string): void {
    this.lastUse.set(id, this.clock.now());
  }

  /**
   * Closes every open session nobody follows that has not been used for `idleCloseMs` by the
   * clock (its watcher, timers and memory released; its list row goes back to the index). A
   * session a browser follows counts as used now, so it closes one period after its last subscriber
   * left. Runs on a timer (see start); tests call it with an injected clock. The store asks the hub
   * (through `hasSubscribers`); the hub never calls back. Answers the ids closed.
   */
  releaseIdle(): string[] {
    if (this.closed) return [];
    const now = this.clock.now();
    const released: string[] = [];
    for (const [id, session] of this.openedNow) {
      if (this.options.hasSubscribers(id)) {
        this.lastUse.set(id, now);
        continue;
      }
      if (now - (this.lastUse.get(id) ?? now) < this.idleCloseMs) continue;
      this.opened.delete(id);
      this.created.delete(id);
      this.openedNow.delete(id);
      this.lastUse.delete(id);
      session.close();
      this.index.release(id);
      released.push(id);
    }
    const afterRelease = this.options.afterRelease;
    if (released.length > 0 && afterRelease) setTimeout(afterRelease, 1000).unref();
    return released;
  }

  /**
   * Repairs what a crash mid-append left of Canopy's own writes (see append-journal.ts): every
   * leftover record at start (before the first listing reads the files), one session's when it opens.
   */
  repairLeftovers(): void {
    for (const outcome of this.options.journal?.repairAll(this.confined) ?? []) this.noteRepair(outcome);
  }

  private repairLeftover(id: string): void {
    const journal = this.options.journal;
    if (!journal?.has(id)) return;
    const outcome = journal.repair(id, this.confined);
    if (outcome) this.noteRepair(outcome);
  }

  /** Says what a repair found: in the log, and to the page that subscribes to the session next. */
  private noteRepair(outcome: RepairOutcome): void {
    this.options.log?.(`${outcome.file}: ${outcome.message}`);
    if (outcome.kind !== 'repaired' && outcome.kind !== 'left') return;
    const event: ServerEvent = {
      type: 'error',
      code: outcome.kind === 'repaired' ? 'WRITE_REPAIRED' : 'WRITE_NOT_REPAIRED',
      sessionId: outcome.sessionId,
      message: `${path.basename(outcome.file)}: ${outcome.message}`,
    };
    // Told to the page that opens the session next (a repair runs before the session is open, so
    // no page follows it yet).
    this.repairNotices.set(outcome.sessionId, event);
  }

  /** What a repair of this session found, once (its first subscriber is told). */
  takeRepairNotice(id: string): ServerEvent | undefined {
    const event = this.repairNotices.get(id);
    this.repairNotices.delete(id);
    return event;
  }

  private readonly repairNotices = new Map<string, ServerEvent>();

  /** Is the session open now (tailed, in memory)? */
  isOpen(id: string): boolean {
    return this.openedNow.has(id);
  }

  /** An open session changed: its own state becomes its list row, which is published. */
  private publishOpenRow(session: OpenSession): void {
    if (this.openedNow.get(session.id) !== session) return;
    this.index.adopt(session.id, session.listRow());
    const item = this.listItem(session.id);
    if (item) this.options.publish(sessionListChanged([item]));
  }

  /** One row of the list. */
  listItem(id: string): SessionListItem | undefined {
    const indexed = this.index.get(id);
    if (!indexed) return undefined;
    const item = this.index.toListItem(indexed, this.isWriterActive(id));
    // The index counts the lines it could not parse; an open session also knows the issues only
    // the whole tree shows (duplicate ids, orphans, cycles). The list must say what the session says.
    const open = this.openedNow.get(id);
    if (open) item.issueCount = open.sm.issueCount;
    return item;
  }
}
