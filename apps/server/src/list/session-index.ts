// The index of the session list: one file because scanning, watch events for one path, adopting
// an open session's row and building a list item all keep the same two maps (by id, by real path)
// and the same rule for when a file is read again; the row facts themselves are in list-row.ts.

import path from 'node:path';
import type { ListingProgress, SessionListItem } from '@canopy/protocol';
import {
  getSessionVersion,
  isKnownSessionVersion,
  ompSessionName,
  parseTitleSlot,
  SessionLineParser,
  sessionIdFromFileName,
  type SessionHeader,
  type TitleSlot,
} from '@canopy/session-core';
import { sessionIdOf } from '../files/ids';
import { countEntries, emptyRowFacts, type OpenRow, type RowFacts } from './list-row';
import { ArchiveError, archivePieces } from '../files/archive';
import { isArchive, readOnlyReason, subagentParentCandidates } from '../files/omp-files';
import { readIntoSync, readRangeConfinedSync, statConfinedSync } from '../files/confined';
import { closeDescriptorSync, openForReadSync } from '../files/descriptors';
import {
  isInside,
  listJsonlFiles,
  realpathOrUndefined,
  realpathSyncOrUndefined,
  type FileIdentity,
} from '../files/files';

export interface Root {
  /** Display name (home shown as ~). */
  name: string;
  /** Real path of the folder (or single file). */
  path: string;
}

/** Rows a scan or a watch event changed: ids upserted and ids removed. */
export interface ListDelta {
  upserted: Set<string>;
  removed: Set<string>;
}

/** What the index knows about one file, kept between scans. */
export interface IndexedSession extends RowFacts {
  id: string;
  file: string;
  root: Root;
  identity: FileIdentity;
  /** Bytes read; a cut-off last line stays buffered in the parser until it is complete. */
  offset: number;
  parser: SessionLineParser;
  header?: Record<string, unknown>;
  /** [oh-my-pi] The title line before the header, re-read whenever the file changes. */
  titleSlot?: TitleSlot;
  /** [oh-my-pi] Bytes of the title line, its newline included. */
  titleSlotBytes?: number;
  issueCount: number;
  /**
   * Found by a scan that has not read it yet: not listed, but its id resolves (a deep link opens
   * it at once) and an open session can adopt it.
   */
  pending?: boolean;
  /** Set from an open session: whether its header's version as written is known (see readOnlyReason). */
  versionKnown?: boolean;
  /** [oh-my-pi] Why an archive cannot be opened (corrupt, cut off, over the limits), if so. */
  problem?: ArchiveError;
  /**
   * The file is open: its row comes from the open session (see {@link SessionIndex.adopt}) and the
   * index does not read it. After it closes, `offset` and `parser` are behind: the next change is
   * read from the start.
   */
  adopted?: 'open' | 'released';
}

/** Bytes per read of a listed file (the whole file is read in such pieces, into one buffer). */
const PIECE_BYTES = 1 << 20;
/** Pieces read between two turns of the event loop: a large file never holds the server long. */
const PIECES_PER_TURN = 8;
/** Rows handed to `onRows` together while a scan runs (and every file of more than a few pieces). */
const ROWS_PER_FLUSH = 32;
const EMPTY = Buffer.alloc(0);

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A parser for counting a file's row facts. The index keeps no entry, only counts, the first user
 * message (300 characters) and the names, so long strings may be cut before decoding (session-core's
 * skeleton scan): the counts and texts are exactly those of a full parse.
 */
function listingParser(): SessionLineParser {
  const parser = new SessionLineParser();
  parser.abridgeLongStrings = true;
  return parser;
}

/**
 * The list of every session file under the roots. A file is re-read only when its size, mtime or
 * identity changed, and a file that only grew is read from where the last scan stopped, so
 * listing a thousand sessions costs a thousand stats, not a thousand parses.
 */
export class SessionIndex {
  private readonly byId = new Map<string, IndexedSession>();
  private readonly byFile = new Map<string, IndexedSession>();
  private scanning: Promise<ListDelta> | undefined;
  private rescanRequested = false;
  /** The running scan's files: found, and read so far (see `progress`). */
  private scanned: ListingProgress | undefined;
  /** Resolves when the running scan has found every file (its ids resolve from then on). */
  private found: Promise<void> | undefined;
  /** Each file's read in progress: reads of one file (a scan, a watch event) run one after another. */
  private readonly reading = new Map<string, Promise<void>>();
  private stopped = false;

  /** Warnings (a symlink loop, an unreadable folder) are given once per path. */
  private readonly warned = new Set<string>();

  /**
   * `onRows` receives the rows a scan has changed so far, while it runs (newest files first), so a
   * list shown during a long first scan fills in; what it was given is not in the scan's answer.
   */
  constructor(
    readonly roots: Root[],
    private readonly log: (message: string) => void = () => undefined,
    private readonly onRows: (delta: ListDelta) => void = () => undefined,
    /**
     * The folders a listing walks (real paths): each as it is reached, before it is read (to add),
     * and after a whole scan every folder under the roots at once (`whole`).
     */
    private readonly onFolders: (folders: ReadonlySet<string>, whole: boolean) => void = () => undefined,
  ) {}

  private warnOnce(where: string, message: string): void {
    if (this.warned.has(where)) return;
    this.warned.add(where);
    this.log(message);
  }

  get(id: string): IndexedSession | undefined {
    return this.byId.get(id);
  }

  getByFile(realFile: string): IndexedSession | undefined {
    return this.byFile.get(realFile);
  }

  /** Every listed session (not the files a running scan has found and not read yet). */
  all(): IndexedSession[] {
    return [...this.byId.values()].filter((session) => !session.pending);
  }

  /** The server is closing: a running scan stops at its next turn. */
  stop(): void {
    this.stopped = true;
  }

  /** How far the running scan is (files read of files found), or undefined when none runs. */
  progress(): ListingProgress | undefined {
    return this.scanned ? { ...this.scanned } : undefined;
  }

  /** Resolves once the running scan (if any) has found every file under the roots. */
  async whenFound(): Promise<void> {
    await this.found;
  }

  /** The root a real path lies in, if any. */
  rootOf(realFile: string): Root | undefined {
    return this.roots.find((root) => isInside(root.path, realFile));
  }

  /**
   * Rescans every root (at start, and as the fallback when a watch event names no file); concurrent
   * calls share one scan and a call made during a scan triggers one more afterwards. Resolves to
   * the rows that changed.
   */
  scan(): Promise<ListDelta> {
    if (this.scanning) {
      this.rescanRequested = true;
      return this.scanning;
    }
    const run = async (): Promise<ListDelta> => {
      const delta = emptyDelta();
      do {
        this.rescanRequested = false;
        await this.scanOnce(delta);
      } while (this.rescanRequested);
      return delta;
    };
    this.scanning = run().finally(() => {
      this.scanning = undefined;
      this.scanned = undefined;
      this.found = undefined;
    });
    return this.scanning;
  }

  /** Re-reads one file now (a file Canopy created). True when it is listed now. */
  async refreshFile(realFile: string): Promise<boolean> {
    const root = this.rootOf(realFile);
    if (!root) return false;
    await this.update(realFile, root, emptyDelta());
    this.dropUnread(realFile, emptyDelta());
    return this.byFile.has(realFile);
  }

  /**
   * A watch event for one path under a root: that file, or the session files in that folder, are
   * looked at, and listed files at or under the path that are gone are dropped. Nothing else is read.
   */
  async refreshPath(changed: string): Promise<ListDelta> {
    const delta = emptyDelta();
    const root = this.rootOf(changed);
    if (!root) return delta;
    const listed = await listJsonlFiles(
      changed,
      (where, message) => this.warnOnce(where, message),
      // Watched before it is read: a file created meanwhile is an event, not missed.
      (folder) => {
        if (isInside(root.path, folder)) this.onFolders(new Set([folder]), false);
      },
    );
    // A link from inside a root to a file elsewhere lists the real path outside: never indexed.
    const present = new Set(listed.filter((file) => isInside(root.path, file)));
    for (const file of present) await this.update(file, root, delta);
    const prefix = changed.endsWith(path.sep) ? changed : `${changed}${path.sep}`;
    for (const [file, session] of this.byFile) {
      if ((file === changed || file.startsWith(prefix)) && !present.has(file)) this.drop(session, delta);
    }
    return delta;
  }

  /** An open session's state becomes its row; its file is not read while it is open. */
  adopt(id: string, row: OpenRow): void {
    const session = this.byId.get(id);
    if (!session) return;
    Object.assign(session, emptyRowFacts(), row.facts);
    session.pending = undefined;
    session.header = row.header;
    session.titleSlot = row.titleSlot;
    session.identity = row.identity;
    session.issueCount = row.issueCount;
    session.versionKnown = row.versionKnown;
    session.adopted = 'open';
  }

  /**
   * The session starts opening: from now on its file is the open session's to read (a scan reading
   * it stops at its next piece); its row stays as it is (or unlisted, if not read yet) until `adopt`.
   * If the open fails, `release` gives the file back.
   */
  claim(id: string): void {
    const session = this.byId.get(id);
    if (session) session.adopted = 'open';
  }

  /** The session closed: the index looks at its file again, from the start on its next change. */
  release(id: string): void {
    const session = this.byId.get(id);
    if (session?.adopted === 'open') session.adopted = 'released';
  }

  /**
   * Finds every file under the roots, then reads the new and changed ones newest first (the top of
   * the list comes first), handing rows to `onRows` as it goes and letting the event loop run
   * between files and within a large one.
   */
  private async scanOnce(delta: ListDelta): Promise<void> {
    let foundEvery: () => void = () => undefined;
    this.found = new Promise<void>((resolve) => (foundEvery = resolve));
    const found: { file: string; root: Root; mtimeMs: number }[] = [];
    const seen = new Set<string>();
    const folders = new Set<string>();
    try {
      for (const root of this.roots) {
        for (const file of await listJsonlFiles(
          root.path,
          (where, message) => this.warnOnce(where, message),
          (folder) => {
            folders.add(folder);
            this.onFolders(new Set([folder]), false);
          },
        )) {
          if (seen.has(file)) continue; // nested or duplicate roots
          seen.add(file);
          found.push({ file, root, mtimeMs: this.notePending(file, root) });
        }
      }
    } finally {
      foundEvery();
    }
    if (!this.stopped) this.onFolders(folders, true);
    for (const [file, session] of this.byFile) {
      if (!seen.has(file)) this.drop(session, delta);
    }
    found.sort((a, b) => b.mtimeMs - a.mtimeMs);
    this.scanned = { read: 0, total: found.length };
    let sinceFlush = 0;
    for (const { file, root } of found) {
      if (this.stopped) return;
      const pieces = await this.update(file, root, delta);
      this.dropUnread(file, delta);
      this.scanned.read++;
      sinceFlush += 1 + pieces;
      if (sinceFlush >= ROWS_PER_FLUSH) {
        sinceFlush = 0;
        this.flush(delta);
      }
      await nextTurn();
    }
  }

  /**
   * After a read of `file`: if it went away or could not be read, it is not listed and stays no
   * one's pending row (unless a session is opening it: its row comes with the open, see claim).
   */
  private dropUnread(file: string, delta: ListDelta): void {
    const session = this.byFile.get(file);
    if (session?.pending && session.adopted !== 'open') this.drop(session, delta);
  }

  /** Hands the rows changed so far to `onRows`; they leave the scan's answer. */
  private flush(delta: ListDelta): void {
    if (delta.upserted.size === 0 && delta.removed.size === 0) return;
    this.onRows({ upserted: new Set(delta.upserted), removed: new Set(delta.removed) });
    delta.upserted.clear();
    delta.removed.clear();
  }

  /**
   * A file the scan found: a new one is noted as pending (its id resolves before it is read).
   * Answers its modification time (0 when it cannot be looked at now; `update` decides).
   */
  private notePending(file: string, root: Root): number {
    let identity: FileIdentity;
    try {
      identity = statConfinedSync(file);
    } catch {
      return 0;
    }
    if (!this.byFile.has(file)) {
      const session: IndexedSession = { ...this.unread(file, root, identity), pending: true };
      this.byFile.set(file, session);
      this.byId.set(session.id, session);
    }
    return identity.mtimeMs;
  }

  private unread(file: string, root: Root, identity: FileIdentity): IndexedSession {
    return {
      id: sessionIdOf(file),
      file,
      root,
      identity,
      offset: 0,
      parser: listingParser(),
      entryCount: 0,
      messageCount: 0,
      firstMessage: '',
      issueCount: 0,
    };
  }

  private drop(session: IndexedSession, delta: ListDelta): void {
    this.byFile.delete(session.file);
    this.byId.delete(session.id);
    delta.upserted.delete(session.id);
    delta.removed.add(session.id);
  }

  /**
   * Looks at one file and reads what is new in it, after any read of the same file still running.
   * Answers how many pieces it read.
   */
  private update(file: string, root: Root, delta: ListDelta): Promise<number> {
    const before = this.reading.get(file) ?? Promise.resolve();
    const run = before.then(() => this.updateNow(file, root, delta));
    const done = run.then(
      () => undefined,
      () => undefined,
    );
    this.reading.set(file, done);
    void done.then(() => {
      if (this.reading.get(file) === done) this.reading.delete(file);
    });
    return run;
  }

  private async updateNow(file: string, root: Root, delta: ListDelta): Promise<number> {
    let identity: FileIdentity | undefined;
    try {
      identity = statConfinedSync(file);
    } catch {
      identity = undefined; // gone, or no longer this path (swapped for a link): not listed
    }
    const known = this.byFile.get(file);
    if (!identity) {
      if (known) this.drop(known, delta);
      return 0;
    }
    // Open: the session tails the file and keeps the row (adopt); a second parser never reads it.
    if (known?.adopted === 'open') return 0;
    if (
      known &&
      !known.pending &&
      known.identity.size === identity.size &&
      known.identity.mtimeMs === identity.mtimeMs &&
      known.identity.ctimeMs === identity.ctimeMs &&
      known.identity.ino === identity.ino
    ) {
      return 0;
    }
    let session = known;
    // An archive is read whole every time it changes (it is compressed, so it cannot be tailed). A
    // touch without growth may be an in-place rewrite of the same size: read again in full, unless
    // the file has an oh-my-pi title line, whose same-size rewrites are re-read in place below.
    const grewInPlace =
      known !== undefined &&
      known.adopted === undefined &&
      !isArchive(file) &&
      known.identity.ino === identity.ino &&
      (identity.size > known.offset ||
        (identity.size === known.offset && known.titleSlotBytes !== undefined));
    if (!session || !grewInPlace) session = this.unread(file, root, identity);
    let pieces = 0;
    try {
      if (isArchive(file)) await this.readArchive(session);
      else {
        // oh-my-pi rewrites its title line in place (same size) on every rename.
        if (session.titleSlotBytes !== undefined) await this.rereadTitleSlot(session);
        pieces = await this.readFrom(session, identity.size);
      }
    } catch {
      return pieces; // vanished or unreadable mid-read: the next scan retries
    }
    // Opened while it was read: the open session's row is the one (see adopt).
    if (session.adopted === 'open' || this.byFile.get(file)?.adopted === 'open') return pieces;
    session.pending = undefined;
    session.identity = identity;
    this.byFile.set(file, session);
    this.byId.set(session.id, session);
    delta.upserted.add(session.id);
    delta.removed.delete(session.id);
    return pieces;
  }

  /**
   * An archive is read whole, decompressed in pieces with their limits (see archive.ts); one that
   * cannot be read is still listed, with why (`problem`), and cannot be opened.
   */
  private async readArchive(session: IndexedSession): Promise<void> {
    session.offset = 0;
    try {
      for await (const piece of archivePieces(session.file)) {
        this.absorb(session, session.parser.push(piece), session.offset === 0 ? piece : EMPTY);
        session.offset += piece.length;
        if (session.adopted === 'open' || this.stopped) return;
      }
      session.parser.end();
    } catch (error) {
      if (!(error instanceof ArchiveError)) throw error;
      // What was read before the archive failed is not the session: the row says only why.
      Object.assign(session, emptyRowFacts());
      session.header = undefined;
      session.titleSlot = undefined;
      session.issueCount = 0;
      session.parser = listingParser();
      session.problem = error;
    }
  }

  private async rereadTitleSlot(session: IndexedSession): Promise<void> {
    const length = session.titleSlotBytes as number;
    const line = readRangeConfinedSync(session.file, 0, length).toString('utf8');
    // Mid-rewrite or no longer a title line: keep the last good title.
    const slot = parseTitleSlot(line);
    if (slot) session.titleSlot = slot;
  }

  private absorb(session: IndexedSession, batch: ReturnType<SessionLineParser['push']>, chunk: Buffer): void {
    if (batch.titleSlot) {
      session.titleSlot = batch.titleSlot.slot;
      const newline = chunk.indexOf(0x0a);
      if (batch.titleSlot.line === 1 && newline >= 0) session.titleSlotBytes = newline + 1;
    }
    if (batch.header) session.header = batch.header.header;
    session.issueCount += batch.issues.length;
    countEntries(
      session,
      batch.entries.map(({ entry }) => entry),
    );
  }

  /**
   * Reads the file from where the last read stopped up to `size`, through one verified descriptor
   * and into one buffer reused for every piece (as an open session's load does, see
   * docs/architecture.md#state): a fresh allocation per piece made the kernel map and zero new pages
   * on every read. Nothing keeps a view of a piece: the parser copies the cut-off line it buffers,
   * and `absorb` reads the title line's length at once. Every few pieces the event loop runs (the
   * server answers meanwhile); a session opened meanwhile stops the read (its row is the open one's).
   * Answers the pieces read.
   */
  private async readFrom(session: IndexedSession, size: number): Promise<number> {
    if (session.offset >= size) return 0;
    const { fd } = openForReadSync(session.file);
    let pieces = 0;
    try {
      const buffer = Buffer.allocUnsafe(Math.min(PIECE_BYTES, size - session.offset));
      while (session.offset < size && session.adopted !== 'open' && !this.stopped) {
        const chunk = readIntoSync(
          fd,
          session.offset,
          buffer,
          Math.min(buffer.length, size - session.offset),
        );
        if (chunk.length === 0) break;
        const atStart = session.offset === 0;
        session.offset += chunk.length;
        const batch = session.parser.push(chunk);
        this.absorb(session, batch, atStart ? chunk : EMPTY);
        if (++pieces % PIECES_PER_TURN === 0) await nextTurn();
      }
    } finally {
      closeDescriptorSync(fd);
    }
    return pieces;
  }

  /** The protocol's list item; `writerActive` comes from the open sessions. */
  toListItem(session: IndexedSession, writerActive: boolean): SessionListItem {
    const header = session.header;
    const parentSession = typeof header?.parentSession === 'string' ? header.parentSession : undefined;
    const name = session.infoName ?? ompSessionName(session.titleSlot, session.titleChange, header?.title);
    const version = header ? getSessionVersion(header as { version?: number }) : 0;
    const subagent = this.subagentParent(session);
    const item: SessionListItem = {
      id: session.id,
      headerId: typeof header?.id === 'string' ? header.id : '',
      root: session.root.name,
      path: relativeDisplayPath(session.root, session.file),
      firstMessage: session.firstMessage,
      cwd: typeof header?.cwd === 'string' ? header.cwd : '',
      entryCount: session.entryCount,
      messageCount: session.messageCount,
      size: session.identity.size,
      mtime: session.identity.mtimeMs,
      created: typeof header?.timestamp === 'string' ? header.timestamp : '',
      version,
      parentId:
        subagent?.parentId ??
        (parentSession !== undefined ? this.resolveParent(session, parentSession) : null),
      issueCount: session.issueCount + (session.parser.remainderIssue() ? 1 : 0),
      writerActive,
    };
    if (name !== undefined) item.name = name;
    if (parentSession !== undefined) item.parentSession = parentSession;
    if (!header) item.invalid = true;
    if (session.problem) {
      item.invalid = true;
      item.problem = session.problem.message;
    }
    if (subagent) item.kind = subagent.kind;
    const readOnly = readOnlyReason(
      session.file,
      header as Pick<SessionHeader, 'version'> | undefined,
      session.versionKnown ?? isKnownSessionVersion(header as Pick<SessionHeader, 'version'> | undefined),
    );
    if (readOnly) item.readOnly = readOnly;
    return item;
  }

  /** [oh-my-pi] A subagent or advisor transcript in a listed session's folder, and that session. */
  private subagentParent(
    session: IndexedSession,
  ): { kind: 'subagent' | 'advisor'; parentId: string } | undefined {
    const { kind, parents } = subagentParentCandidates(session.file);
    for (const candidate of parents) {
      const parent = this.byFile.get(candidate);
      if (parent && parent !== session) return { kind, parentId: parent.id };
    }
    return undefined;
  }

  /** `parentSession` is a path (pi, createBranchedSession) or a header id (oh-my-pi forkFrom). */
  private resolveParent(session: IndexedSession, parentSession: string): string | null {
    if (parentSession.includes('/') || parentSession.includes('\\') || parentSession.endsWith('.jsonl')) {
      const candidate = path.resolve(path.dirname(session.file), parentSession);
      const direct = this.byFile.get(candidate);
      if (direct) return direct.id;
      // The path may go through a symlink; the index is keyed by real paths.
      const real = realpathSyncOrUndefined(candidate);
      const resolved = real === undefined ? undefined : this.byFile.get(real);
      if (resolved) return resolved.id;
      // A moved (or `omp gc`-archived) parent: pi names a file after its session id.
      const movedId = sessionIdFromFileName(candidate);
      if (movedId === undefined) return null;
      for (const other of this.byId.values()) {
        if (other !== session && other.header?.id === movedId) return other.id;
      }
      return null;
    }
    for (const other of this.byId.values()) {
      if (other !== session && other.header?.id === parentSession) return other.id;
    }
    return null;
  }
}

function emptyDelta(): ListDelta {
  return { upserted: new Set(), removed: new Set() };
}

function relativeDisplayPath(root: Root, file: string): string {
  const relative = path.relative(root.path, file);
  return relative === '' ? path.basename(file) : relative;
}

/** Resolves configured root paths to real paths; missing ones (and symlink loops) are dropped. */
export async function resolveRoots(
  paths: string[],
  home: string,
  warn: (message: string) => void = () => undefined,
): Promise<Root[]> {
  const roots: Root[] = [];
  home = (await realpathOrUndefined(home).catch(() => undefined)) ?? home;
  for (const p of paths) {
    let real: string | undefined;
    try {
      real = await realpathOrUndefined(p);
    } catch (error) {
      warn(`skipping ${p}: ${(error as Error).message}`);
      continue;
    }
    if (!real) {
      // Left out: nothing to read or watch. Said, or a mistyped folder only shows as an empty list.
      warn(`${p} does not exist; no sessions are read from it`);
      continue;
    }
    if (roots.some((root) => root.path === real)) continue;
    const name =
      real === home
        ? '~'
        : real.startsWith(home + path.sep)
          ? `~${path.sep}${path.relative(home, real)}`
          : real;
    roots.push({ name, path: real });
  }
  return roots;
}
