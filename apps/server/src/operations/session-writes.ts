import path from 'node:path';
import type {
  BranchResult,
  ForkResult,
  LabelResult,
  MessageResult,
  ServerEvent,
  SessionListItem,
} from '@canopy/protocol';
import { userMessageText, type SessionManager, type SessionStorageProvider } from '@canopy/session-core';
import { AppError } from '../errors';
import type { ExtensionHost } from '../extensions/host';
import { FileSafetyError } from '../files/confined';
import { NewFileStorageProvider } from '../files/file-storage';
import { realpathOrUndefined, statFileSync } from '../files/files';
import { fileErrorToAppError } from '../files/file-errors';
import type { OpenSession } from '../live/open-session';
import { sessionListChanged } from '../live/session-events';
import type { SessionStore } from '../session-store';

export interface SessionWritesDeps {
  store: SessionStore;
  extensions: ExtensionHost;
  publish: (event: ServerEvent) => void;
}

/**
 * Canopy's writes: a label or a message appended to an open session (through its one write path,
 * which publishes the change), and /branch and /fork, which write a new file beside the session
 * and never touch the original.
 */
export class SessionWrites {
  constructor(private readonly deps: SessionWritesDeps) {}

  async setLabel(id: string, entryId: string, label: string | undefined): Promise<LabelResult> {
    const session = await this.deps.store.open(id);
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
    const session = await this.deps.store.open(id);
    const entryId = await session.mutate(
      (sm) => sm.appendMessage({ role: 'user', content: [{ type: 'text', text }], timestamp: Date.now() }),
      true,
    );
    return { entryId, leafId: session.sm.getLeafId() };
  }

  /**
   * /branch from a user message (docs/tree-and-context.md#branch-and-fork): a root message starts an
   * empty session whose parentSession is this file; otherwise the root→parent path goes to a new
   * file. The original file is never written.
   */
  async branch(id: string, entryId: string): Promise<BranchResult> {
    const session = await this.writableSession(id);
    const entry = session.sm.getEntry(entryId);
    if (!entry) throw new AppError('ENTRY_NOT_FOUND', `No entry ${entryId} in this session.`);
    const editorText = entry.type === 'message' ? userMessageText(entry.message) : '';
    if (entry.type !== 'message' || (entry.message as { role?: unknown }).role !== 'user') {
      throw new AppError('INVALID_TARGET', 'Only a user message can be branched from.');
    }
    const before = await this.deps.extensions.beforeBranch({ sessionId: id, entryId });
    if (before.cancel) return { cancelled: true, editorText };

    const created = await this.newFile(
      session,
      (sm, provider) => sm.writeBranchedFile(entry.parentId ?? null, provider),
      'Could not write the branched session file.',
    );
    await this.deps.extensions.branch({
      sessionId: created.id,
      newSessionId: created.id,
      previousSessionId: id,
    });
    return { cancelled: false, sessionId: created.id, session: created, editorText };
  }

  /** /fork: the whole session copied into a new file whose parentSession is this one. */
  async fork(id: string): Promise<ForkResult> {
    const session = await this.writableSession(id);
    const created = await this.newFile(
      session,
      (sm, provider) => sm.writeForkedFile(provider),
      'Could not write the forked session file.',
    );
    return { sessionId: created.id, session: created };
  }

  /** The session, up to date with its file, refused when Canopy does not write to it. */
  private async writableSession(id: string): Promise<OpenSession> {
    const session = await this.deps.store.open(id);
    await session.refresh();
    const readOnly = session.readOnly;
    if (readOnly) throw new AppError('READ_ONLY', `Nothing was written. ${readOnly}`);
    return session;
  }

  /**
   * Writes a new session file beside `session` with `create` (new files confined, with the
   * session's mode), makes sure the file exists, indexes it and publishes its list row. The session's
   * own manager writes it (SessionManager.writeBranchedFile, writeForkedFile) and stays on its file:
   * entries are read back one by one as the new file is written line batch by line batch
   * (NewFileStorage.rewriteLines), each checked against the index, so no step holds the whole
   * session as one string and no second copy of it is loaded (a 1 GB session's /branch took 3.35 s
   * with one).
   */
  private async newFile(
    session: OpenSession,
    create: (sm: SessionManager, provider: SessionStorageProvider) => string | undefined,
    failure: string,
  ): Promise<SessionListItem> {
    const { store } = this.deps;
    const provider = new NewFileStorageProvider(
      path.dirname(session.file),
      () => session.mode,
      store.confined,
    );
    let newPath: string | undefined;
    try {
      newPath = create(session.sm, provider);
    } catch (error) {
      throw writeError(error, failure);
    }
    // The new file is written at once (its header at least).
    if (!newPath || !statFileSync(newPath))
      throw new AppError('WRITE_FAILED', 'The new session has no file.');
    const real = await realpathOrUndefined(newPath);
    if (!real || !(await store.index.refreshFile(real))) await store.index.scan();
    const indexed = real ? store.index.getByFile(real) : undefined;
    if (!indexed) throw new AppError('WRITE_FAILED', 'The new session file could not be indexed.');
    const item = store.index.toListItem(indexed, false);
    this.deps.publish(sessionListChanged([item]));
    return item;
  }
}

/** A file refusal keeps its specific code; anything else is WRITE_FAILED. */
function writeError(error: unknown, message: string): AppError {
  if (error instanceof FileSafetyError) return fileErrorToAppError(error);
  if (error instanceof AppError) return error;
  return new AppError('WRITE_FAILED', message, { cause: error });
}
