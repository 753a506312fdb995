import path from 'node:path';
import type { SessionListItem } from '@canopy/protocol';
import {
  getSessionVersion,
  ompSessionName,
  SessionLineParser,
  titleChangeTitle,
  userMessageText,
  type SessionEntry,
  sessionInfoName,
  type TitleSlot,
} from '@canopy/session-core';
import { sessionIdOf } from './ids';
import { isArchive, readOnlyReason, readSessionBytes, subagentParentCandidates } from './omp-files';
import { readRangeConfinedSync, statConfinedSync } from './confined';
import {
  isInside,
  listJsonlFiles,
  realpathOrUndefined,
  realpathSyncOrUndefined,
  type FileIdentity,
} from './files';

export interface Root {
  /** Display name (home shown as ~). */
  name: string;
  /** Real path of the folder (or single file). */
  path: string;
}

/** What the index knows about one file, kept between scans. */
export interface IndexedSession {
  id: string;
  file: string;
  root: Root;
  identity: FileIdentity;
  /** Bytes read; a cut-off last line stays buffered in the parser until it is complete. */
  offset: number;
  parser: SessionLineParser;
  header?: Record<string, unknown>;
  entryCount: number;
  messageCount: number;
  /** The name set by the latest session_info (pi); a blank one clears it. */
  infoName?: string;
  /** [oh-my-pi] The title line before the header, re-read whenever the file changes. */
  titleSlot?: TitleSlot;
  /** [oh-my-pi] Bytes of the title line, its newline included. */
  titleSlotBytes?: number;
  /** [oh-my-pi] The title of the latest title_change entry. */
  titleChange?: string;
  firstMessage: string;
  issueCount: number;
}

const CHUNK_BYTES = 1 << 20;

/**
 * The list of every session file under the roots. A file is re-read only when its size, mtime or
 * identity changed, and a file that only grew is read from where the last scan stopped, so
 * listing a thousand sessions costs a thousand stats, not a thousand parses.
 */
export class SessionIndex {
  private readonly byId = new Map<string, IndexedSession>();
  private readonly byFile = new Map<string, IndexedSession>();
  private scanning: Promise<boolean> | undefined;
  private rescanRequested = false;

  /** Warnings (a symlink loop, an unreadable folder) are given once per path. */
  private readonly warned = new Set<string>();

  constructor(
    readonly roots: Root[],
    private readonly log: (message: string) => void = () => undefined,
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

  all(): IndexedSession[] {
    return [...this.byId.values()];
  }

  /** The root a real path lies in, if any. */
  rootOf(realFile: string): Root | undefined {
    return this.roots.find((root) => isInside(root.path, realFile));
  }

  /**
   * Rescans every root; concurrent calls share one scan and a call made during a scan triggers one
   * more afterwards. Resolves to whether anything changed.
   */
  scan(): Promise<boolean> {
    if (this.scanning) {
      this.rescanRequested = true;
      return this.scanning;
    }
    const run = async (): Promise<boolean> => {
      let changed = false;
      do {
        this.rescanRequested = false;
        if (await this.scanOnce()) changed = true;
      } while (this.rescanRequested);
      return changed;
    };
    this.scanning = run().finally(() => {
      this.scanning = undefined;
    });
    return this.scanning;
  }

  /** Re-reads one file now (after our own write, or a watch event for it). */
  async refreshFile(realFile: string): Promise<boolean> {
    const root = this.rootOf(realFile);
    if (!root) return false;
    return this.update(realFile, root);
  }

  private async scanOnce(): Promise<boolean> {
    const seen = new Set<string>();
    let changed = false;
    for (const root of this.roots) {
      for (const file of await listJsonlFiles(root.path, (where, message) => this.warnOnce(where, message))) {
        if (seen.has(file)) continue; // nested or duplicate roots
        seen.add(file);
        if (await this.update(file, root)) changed = true;
      }
    }
    for (const [file, session] of this.byFile) {
      if (!seen.has(file)) {
        this.byFile.delete(file);
        this.byId.delete(session.id);
        changed = true;
      }
    }
    return changed;
  }

  private async update(file: string, root: Root): Promise<boolean> {
    let identity: FileIdentity | undefined;
    try {
      identity = statConfinedSync(file);
    } catch {
      identity = undefined; // gone, or no longer this path (swapped for a link): not listed
    }
    const known = this.byFile.get(file);
    if (!identity) {
      if (!known) return false;
      this.byFile.delete(file);
      this.byId.delete(known.id);
      return true;
    }
    if (
      known &&
      known.identity.size === identity.size &&
      known.identity.mtimeMs === identity.mtimeMs &&
      known.identity.ctimeMs === identity.ctimeMs &&
      known.identity.ino === identity.ino
    ) {
      return false;
    }
    let session = known;
    // An archive is read whole every time it changes (it is compressed, so it cannot be tailed). A
    // touch without growth may be an in-place rewrite of the same size: read again in full, unless
    // the file has an oh-my-pi title line, whose same-size rewrites are re-read in place below.
    const grewInPlace =
      known !== undefined &&
      !isArchive(file) &&
      known.identity.ino === identity.ino &&
      (identity.size > known.offset ||
        (identity.size === known.offset && known.titleSlotBytes !== undefined));
    if (!session || !grewInPlace) {
      session = {
        id: sessionIdOf(file),
        file,
        root,
        identity,
        offset: 0,
        parser: new SessionLineParser(),
        entryCount: 0,
        messageCount: 0,
        firstMessage: '',
        issueCount: 0,
      };
    }
    try {
      if (isArchive(file)) await this.readArchive(session);
      else {
        // oh-my-pi rewrites its title line in place (same size) on every rename.
        if (session.titleSlotBytes !== undefined) await this.rereadTitleSlot(session);
        await this.readFrom(session, identity.size);
      }
    } catch {
      return false; // vanished or unreadable mid-read: the next scan retries
    }
    session.identity = identity;
    this.byFile.set(file, session);
    this.byId.set(session.id, session);
    return true;
  }

  private async readArchive(session: IndexedSession): Promise<void> {
    const bytes = await readSessionBytes(session.file);
    session.offset = 0;
    this.absorb(session, session.parser.push(bytes), bytes);
    session.parser.end();
  }

  private async rereadTitleSlot(session: IndexedSession): Promise<void> {
    const length = session.titleSlotBytes as number;
    const line = readRangeConfinedSync(session.file, 0, length).toString('utf8');
    try {
      const value = JSON.parse(line) as unknown;
      if (value && typeof value === 'object' && (value as { type?: unknown }).type === 'title') {
        session.titleSlot = value as TitleSlot;
      }
    } catch {
      // Mid-rewrite or no longer a title line: keep the last good title.
    }
  }

  private absorb(session: IndexedSession, batch: ReturnType<SessionLineParser['push']>, chunk: Buffer): void {
    if (batch.titleSlot) {
      session.titleSlot = batch.titleSlot.slot;
      const newline = chunk.indexOf(0x0a);
      if (batch.titleSlot.line === 1 && newline >= 0) session.titleSlotBytes = newline + 1;
    }
    if (batch.header) session.header = batch.header.header;
    session.issueCount += batch.issues.length;
    for (const { entry } of batch.entries) this.countEntry(session, entry);
  }

  private async readFrom(session: IndexedSession, size: number): Promise<void> {
    while (session.offset < size) {
      const chunk = readRangeConfinedSync(
        session.file,
        session.offset,
        Math.min(CHUNK_BYTES, size - session.offset),
      );
      if (chunk.length === 0) break;
      const atStart = session.offset === 0;
      session.offset += chunk.length;
      const batch = session.parser.push(chunk);
      this.absorb(session, batch, atStart ? chunk : Buffer.alloc(0));
    }
  }

  private countEntry(session: IndexedSession, entry: SessionEntry): void {
    session.entryCount++;
    if (entry.type === 'message') {
      session.messageCount++;
      if (session.firstMessage === '') {
        const text = userMessageText(entry.message);
        if (text) session.firstMessage = text.length > 300 ? text.slice(0, 300) : text;
      }
    } else if (entry.type === 'session_info') {
      session.infoName = sessionInfoName(entry);
    } else if (entry.type === 'title_change') {
      session.titleChange = titleChangeTitle(entry);
    }
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
    if (subagent) item.kind = subagent.kind;
    const readOnly = readOnlyReason(session.file, header ? version : undefined);
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
      return null;
    }
    for (const other of this.byId.values()) {
      if (other !== session && other.header?.id === parentSession) return other.id;
    }
    return null;
  }
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
    if (!real || roots.some((root) => root.path === real)) continue;
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
