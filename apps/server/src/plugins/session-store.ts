import path from 'node:path';
import type {
  BranchResult,
  ContextResponse,
  EntryDetail,
  ForkResult,
  LabelResult,
  MessageResult,
  ServerEvent,
  SessionListItem,
  SessionSnapshotHead,
} from '@canopy/protocol';
import {
  buildSessionContext,
  convertToLlm,
  estimateContextTokens,
  SessionManager,
  userMessageText,
  type SessionEntry,
} from '@canopy/session-core';
import { AppError } from '../errors';
import type { ExtensionHost } from '../extensions/host';
import { createConfinedSync, FileSafetyError, type WriteOnce } from '../store/confined';
import { isInside, realpathOrUndefined, statFileSync, watchPath, type Watcher } from '../store/files';
import { NewFileStorageProvider, ReadOnlyStorage } from '../store/file-storage';
import {
  blobDirOf,
  readArtifact,
  readBlob,
  type ArtifactContent,
  type BlobContent,
} from '../store/omp-files';
import { fileErrorToAppError, OpenSession, REAL_CLOCK, type Clock } from '../store/open-session';
import { SessionIndex, type IndexedSession, type ListDelta, type Root } from '../store/session-index';
import { sessionListChanged } from '../store/session-events';
import type { StateStore } from '../store/state';

export interface SessionStoreOptions {
  roots: Root[];
  state: StateStore;
  home: string;
  publish: (event: ServerEvent) => void;
  extensions: ExtensionHost;
  pollMs?: number;
  rescanMs?: number;
  midWriteWaitMs?: number;
  /** Open sessions without subscribers are closed after this long. */
  idleCloseMs?: number;
  /** A write waits until the file has not grown for this long. */
  quietWindowMs?: number;
  clock?: Clock;
  /** Test seam: the one write() of an append. */
  write?: WriteOnce;
  log?: (message: string) => void;
}

/** Default quiet window: an agent streaming lines writes them closer together than this. */
export const QUIET_WINDOW_MS = 250;

/**
 * The server's view of the session files: the index of every session under the roots, kept
 * current by watching them, and the open (tailed, writable) sessions. Every file access of the
 * server goes through here and the store/ modules below it.
 */
export class SessionStore {
  readonly index: SessionIndex;
  private readonly opened = new Map<string, Promise<OpenSession>>();
  private readonly idleTimers = new Map<string, NodeJS.Timeout>();
  private watchers: Watcher[] = [];
  private rescanTimer: NodeJS.Timeout | undefined;
  private scanTimer: NodeJS.Timeout | undefined;
  private pathTimer: NodeJS.Timeout | undefined;
  private readonly changedPaths = new Set<string>();
  private closed = false;

  constructor(private readonly options: SessionStoreOptions) {
    this.index = new SessionIndex(options.roots, options.log);
  }

  /** Is a real path inside one of the roots? Checked again at every file operation. */
  private readonly confined = (real: string): boolean =>
    this.options.roots.some((root) => isInside(root.path, real));

  async start(): Promise<void> {
    await this.index.scan();
    for (const root of this.options.roots) {
      this.watchers.push(
        watchPath(root.path, true, (changed) => (changed ? this.queuePath(changed) : this.scheduleScan())),
      );
    }
    this.rescanTimer = setInterval(() => this.scheduleScan(), this.options.rescanMs ?? 5000);
    this.rescanTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const watcher of this.watchers) watcher.close();
    if (this.rescanTimer) clearInterval(this.rescanTimer);
    if (this.scanTimer) clearTimeout(this.scanTimer);
    if (this.pathTimer) clearTimeout(this.pathTimer);
    for (const timer of this.idleTimers.values()) clearTimeout(timer);
    for (const pending of this.opened.values()) {
      const session = await pending.catch(() => undefined);
      session?.close();
    }
    this.opened.clear();
  }

  /**
   * A watch event that names no path, or the periodic timer (the fallback for watch events a file
   * system does not deliver): rescan every root soon, coalescing bursts. Open files are not read.
   */
  scheduleScan(): void {
    if (this.closed || this.scanTimer) return;
    this.scanTimer = setTimeout(() => {
      this.scanTimer = undefined;
      void this.index.scan().then(
        (delta) => this.publishRows(delta),
        (error: unknown) => this.options.log?.(`rescan failed: ${(error as Error).message}`),
      );
    }, 50);
  }

  /** A watch event for one path: only that path is looked at, soon, coalescing bursts. */
  private queuePath(changed: string): void {
    if (this.closed) return;
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
    if (delta.upserted.size === 0 && delta.removed.size === 0) return;
    const upserted = [...delta.upserted].flatMap((id) => this.listItem(id) ?? []);
    this.options.publish(sessionListChanged(upserted, [...delta.removed]));
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
  private async resolve(id: string): Promise<IndexedSession> {
    let indexed = this.index.get(id);
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
    if (existing) return existing;
    const pending = (async () => {
      const indexed = await this.resolve(id);
      const session: OpenSession = new OpenSession({
        id,
        file: indexed.file,
        state: this.options.state,
        home: this.options.home,
        publish: this.options.publish,
        pollMs: this.options.pollMs ?? 150,
        midWriteWaitMs: this.options.midWriteWaitMs ?? 1000,
        storageProvider: new NewFileStorageProvider(
          path.dirname(indexed.file),
          (): number => session.mode,
          this.confined,
        ),
        confined: this.confined,
        quietWindowMs: this.options.quietWindowMs ?? QUIET_WINDOW_MS,
        clock: this.options.clock ?? REAL_CLOCK,
        write: this.options.write,
        onChange: () => this.publishOpenRow(session),
        log: this.options.log,
      });
      await session.open();
      this.openedNow.set(id, session);
      this.index.adopt(id, session.listRow());
      return session;
    })();
    this.opened.set(id, pending);
    pending.catch(() => this.opened.delete(id));
    const session = await pending;
    this.touchIdle(id);
    return session;
  }

  /** Subscribers keep a session open; without any it is closed after a while. */
  subscriberCount(id: string, count: number): void {
    if (count > 0) {
      const timer = this.idleTimers.get(id);
      if (timer) clearTimeout(timer);
      this.idleTimers.delete(id);
      this.subscribed.set(id, count);
    } else {
      this.subscribed.delete(id);
      this.touchIdle(id);
    }
  }

  private readonly subscribed = new Map<string, number>();

  private touchIdle(id: string): void {
    if (this.subscribed.has(id)) return;
    const old = this.idleTimers.get(id);
    if (old) clearTimeout(old);
    const timer = setTimeout(() => {
      this.idleTimers.delete(id);
      if (this.subscribed.has(id)) return;
      const session = this.openedNow.get(id);
      this.opened.delete(id);
      this.openedNow.delete(id);
      session?.close();
      this.index.release(id);
    }, this.options.idleCloseMs ?? 60_000);
    timer.unref();
    this.idleTimers.set(id, timer);
  }

  /** An open session changed: its own state becomes its list row, which is published. */
  private publishOpenRow(session: OpenSession): void {
    if (this.openedNow.get(session.id) !== session) return;
    this.index.adopt(session.id, session.listRow());
    const item = this.listItem(session.id);
    if (item) this.options.publish(sessionListChanged([item]));
  }

  /** One row of the list. */
  private listItem(id: string): SessionListItem | undefined {
    const indexed = this.index.get(id);
    if (!indexed) return undefined;
    const item = this.index.toListItem(indexed, this.isWriterActive(id));
    // The index counts the lines it could not parse; an open session also knows the issues only
    // the whole tree shows (duplicate ids, orphans, cycles). The list must say what the session says.
    const open = this.openedNow.get(id);
    if (open) item.issueCount = open.sm.issues.length;
    return item;
  }

  // ------------------------------------------------------------------ reads

  /** The snapshot's head and its node chunks (JSON lines, cached by the session's tree model). */
  async snapshotParts(id: string): Promise<{ head: SessionSnapshotHead; chunks: string[] }> {
    const session = await this.open(id);
    await session.refresh();
    const sm = session.sm;
    const listItem = this.listItem(id);
    if (!listItem) throw new AppError('SESSION_NOT_FOUND', `No session with id ${id}.`);
    const head: SessionSnapshotHead = {
      session: listItem,
      header: (sm.getHeader() ?? {}) as unknown as Record<string, unknown>,
      version: sm.version ?? 1,
      dialect: sm.dialect,
      leafId: sm.getLeafId(),
      nodeCount: session.tree.all.length,
      issues: [...sm.issues],
      writerActive: session.writerActive,
      needsMigration: sm.needsRewrite,
      pendingBytes: sm.pendingBytes,
    };
    const name = sm.getSessionName();
    if (name) head.name = name;
    return { head, chunks: session.snapshotChunks() };
  }

  async entryDetail(id: string, entryId: string): Promise<EntryDetail> {
    const session = await this.open(id);
    await session.refresh();
    const sm = session.sm;
    const entry = sm.getEntry(entryId);
    if (!entry) throw new AppError('ENTRY_NOT_FOUND', `No entry ${entryId} in this session.`);
    const children = [...sm.getChildren(entryId)].sort(
      (a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp),
    );
    const detail: EntryDetail = {
      entry: entry as unknown as Record<string, unknown>,
      childIds: children.map((child) => child.id),
    };
    const label = sm.getLabel(entryId);
    if (label !== undefined) detail.label = label;
    if (entry.type === 'message') {
      const message = entry.message as Record<string, unknown>;
      if (message.role === 'assistant' && message.usage && typeof message.usage === 'object') {
        detail.usage = message.usage as Record<string, unknown>;
      }
      if (message.role === 'toolResult' && typeof message.toolCallId === 'string') {
        const call = findToolCall(sm, entry, message.toolCallId);
        if (call) detail.toolCall = call;
      }
    }
    return detail;
  }

  async context(id: string, at: string | undefined): Promise<ContextResponse> {
    const session = await this.open(id);
    await session.refresh();
    const sm = session.sm;
    if (at !== undefined && !sm.getEntry(at))
      throw new AppError('ENTRY_NOT_FOUND', `No entry ${at} in this session.`);
    const leaf = at ?? sm.getLeafId();
    const dialect = sm.dialect;
    const context = buildSessionContext(sm.getEntries(), leaf, undefined, { dialect });
    const llm = convertToLlm(context.messages, { dialect }).map((message) => ({
      role: message.role,
      text: llmText(message),
    }));
    return {
      at: leaf,
      messages: context.messages as unknown as Record<string, unknown>[],
      llm,
      thinkingLevel: context.thinkingLevel,
      model: context.model,
      models: context.models,
      mode: context.mode,
      tokens: estimateContextTokens(context.messages, dialect),
    };
  }

  /** [oh-my-pi] An image blob of the session's agent folder (hash validated, confined, checked, capped). */
  async blob(id: string, hash: string): Promise<BlobContent> {
    const indexed = await this.resolve(id);
    return readBlob(await blobDirOf(indexed.file, indexed.root.path), hash);
  }

  /** [oh-my-pi] Artifact N of a session (`<session file without .jsonl>/N.<tool>.log`). */
  async artifact(id: string, artifactId: string): Promise<ArtifactContent> {
    const indexed = await this.resolve(id);
    return readArtifact(indexed.file, artifactId);
  }

  // ------------------------------------------------------------------ writes

  private assertWritable(session: OpenSession): void {
    const readOnly = session.readOnly;
    if (readOnly) throw new AppError('READ_ONLY', `Nothing was written. ${readOnly}`);
  }

  async setLabel(id: string, entryId: string, label: string | undefined): Promise<LabelResult> {
    const session = await this.open(id);
    const trimmed = label?.trim() || undefined;
    const labelEntryId = await session.mutate((sm) => {
      if (!sm.getEntry(entryId))
        throw new AppError('ENTRY_NOT_FOUND', `No entry ${entryId} in this session.`);
      return sm.appendLabelChange(entryId, trimmed);
    }, true);
    const result: LabelResult = { targetId: entryId, labelEntryId, leafId: session.sm.getLeafId() };
    if (trimmed !== undefined) result.label = trimmed;
    return result;
  }

  async appendMessage(id: string, text: string): Promise<MessageResult> {
    const session = await this.open(id);
    const entryId = await session.mutate(
      (sm) => sm.appendMessage({ role: 'user', content: [{ type: 'text', text }], timestamp: Date.now() }),
      true,
    );
    return { entryId, leafId: session.sm.getLeafId() };
  }

  /**
   * /branch from a user message (docs/tree-and-context.md#branch-and-fork): a root message starts an empty session whose
   * parentSession is this file; otherwise the root→parent path goes to a new file. The original
   * file is never written.
   */
  async branch(id: string, entryId: string): Promise<BranchResult> {
    const session = await this.open(id);
    await session.refresh();
    this.assertWritable(session);
    const entry = session.sm.getEntry(entryId);
    if (!entry) throw new AppError('ENTRY_NOT_FOUND', `No entry ${entryId} in this session.`);
    const editorText = entry.type === 'message' ? userMessageText(entry.message) : '';
    if (entry.type !== 'message' || (entry.message as { role?: unknown }).role !== 'user') {
      throw new AppError('INVALID_TARGET', 'Only a user message can be branched from.');
    }
    const before = await this.options.extensions.beforeBranch({ sessionId: id, entryId });
    if (before.cancel) return { cancelled: true, editorText };

    const copy = this.copyOf(session);
    let newPath: string | undefined;
    try {
      newPath =
        entry.parentId == null
          ? copy.newSession({ parentSession: session.file })
          : copy.createBranchedSession(entry.parentId);
    } catch (error) {
      throw writeError(error, 'Could not write the branched session file.');
    }
    const created = await this.materialize(copy, newPath, session);
    await this.options.extensions.branch({
      sessionId: created.id,
      newSessionId: created.id,
      previousSessionId: id,
    });
    return { cancelled: false, sessionId: created.id, session: created, editorText };
  }

  /** /fork: the whole session copied into a new file whose parentSession is this one. */
  async fork(id: string): Promise<ForkResult> {
    const session = await this.open(id);
    await session.refresh();
    this.assertWritable(session);
    const copy = this.copyOf(session);
    let newPath: string | undefined;
    try {
      newPath = copy.forkSession();
    } catch (error) {
      throw writeError(error, 'Could not write the forked session file.');
    }
    const created = await this.materialize(copy, newPath, session);
    return { sessionId: created.id, session: created };
  }

  /** A throwaway copy of the session whose new files go beside it, confined, with its mode. */
  private copyOf(session: OpenSession): SessionManager {
    return SessionManager.fromJsonl(session.sm.toJsonl(), {
      storage: new ReadOnlyStorage(session.file),
      storageProvider: new NewFileStorageProvider(
        path.dirname(session.file),
        () => session.mode,
        this.confined,
      ),
    });
  }

  /** Makes sure a new session file exists (the manager may defer writing it) and indexes it. */
  private async materialize(
    copy: SessionManager,
    newPath: string | undefined,
    source: OpenSession,
  ): Promise<SessionListItem> {
    if (!newPath) throw new AppError('WRITE_FAILED', 'The new session has no file.');
    if (!statFileSync(newPath)) {
      try {
        createConfinedSync(newPath, Buffer.from(copy.toJsonl(), 'utf8'), source.mode, this.confined);
      } catch (error) {
        throw writeError(error, 'Could not write the new session file.');
      }
    }
    const real = await realpathOrUndefined(newPath);
    if (!real || !(await this.index.refreshFile(real))) {
      await this.index.scan();
    }
    const indexed = real ? this.index.getByFile(real) : undefined;
    if (!indexed) throw new AppError('WRITE_FAILED', 'The new session file could not be indexed.');
    const item = this.index.toListItem(indexed, false);
    this.options.publish(sessionListChanged([item]));
    return item;
  }
}

/** A file refusal keeps its specific code; anything else is WRITE_FAILED. */
function writeError(error: unknown, message: string): AppError {
  if (error instanceof FileSafetyError) return fileErrorToAppError(error);
  if (error instanceof AppError) return error;
  return new AppError('WRITE_FAILED', message, { cause: error });
}

function findToolCall(sm: SessionManager, entry: SessionEntry, toolCallId: string): EntryDetail['toolCall'] {
  // The call is normally in the nearest assistant ancestor; walk up a bounded distance.
  let current = entry.parentId ? sm.getEntry(entry.parentId) : undefined;
  for (let steps = 0; current && steps < 1000; steps++) {
    if (current.type === 'message') {
      const message = current.message as { role?: unknown; content?: unknown };
      if (message.role === 'assistant' && Array.isArray(message.content)) {
        for (const block of message.content as Array<Record<string, unknown>>) {
          if (block?.type === 'toolCall' && block.id === toolCallId) {
            return {
              id: toolCallId,
              name: String(block.name ?? ''),
              arguments: block.arguments,
              entryId: current.id,
            };
          }
        }
      }
    }
    current = current.parentId ? sm.getEntry(current.parentId) : undefined;
  }
  return undefined;
}

function llmText(message: { role: string; content?: unknown }): string {
  if (typeof message.content === 'string') return message.content;
  if (!Array.isArray(message.content)) return '';
  const parts: string[] = [];
  for (const block of message.content as Array<Record<string, unknown>>) {
    if (block?.type === 'text' && typeof block.text === 'string') parts.push(block.text);
    else if (block?.type === 'thinking' && typeof block.thinking === 'string')
      parts.push(`[thinking] ${block.thinking}`);
    else if (block?.type === 'toolCall')
      parts.push(`[tool call] ${String(block.name)}(${JSON.stringify(block.arguments ?? {})})`);
    else if (block?.type === 'image') parts.push('[image]');
  }
  return parts.join('\n');
}
