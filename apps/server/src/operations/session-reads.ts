import type { ContextResponse, EntryDetail } from '@canopy/protocol';
import {
  buildSessionContext,
  convertToLlm,
  estimateContextTokens,
  findToolCall,
  llmText,
} from '@canopy/session-core';
import { AppError, toClientError } from '../errors';
import { boundDepth } from '../json-depth';
import {
  blobDirOf,
  readArtifact,
  readBlob,
  type ArtifactContent,
  type BlobContent,
} from '../files/omp-files';
import type { OpenSession } from '../live/open-session';
import type { SessionStore } from '../session-store';
import type { SnapshotOutcome, SnapshotSource, SnapshotState } from './snapshot-stream';

/**
 * What the REST routes read from a session: what its snapshot is made from, one entry's
 * detail, the context at an entry, and oh-my-pi's blobs and artifacts. Reads only; every session is
 * brought up to date with its file first.
 */
export class SessionReads {
  constructor(private readonly store: SessionStore) {}

  /**
   * What the snapshot of a session is made from (see snapshotLines). A session being opened is
   * streamed while its first read runs: the head goes at once, and the session is taken for the
   * closing line the moment it is open, before any subscriber hears of a later change. An open
   * session first catches up with its file and is taken at once. Rejects (an unknown id, a file
   * outside the roots) before anything is sent; a read that fails later ends the stream with an error.
   */
  async snapshot(id: string): Promise<SnapshotSource> {
    const { session, opened } = await this.store.begin(id);
    const progress = session.loading;
    if (progress) {
      const listItem = this.store.listItem(id);
      if (!listItem) throw new AppError('SESSION_NOT_FOUND', `No session with id ${id}.`);
      // Synchronously on the open's resolution: no poll or write of the session runs before it.
      const outcome = opened.then(
        (open) => this.snapshotOutcome(id, open),
        (error: unknown): SnapshotOutcome => ({ ok: false, ...toClientError(error) }),
      );
      return { head: { session: listItem, bytes: progress.bytes }, progress, outcome };
    }
    const open = await opened;
    await open.refresh();
    const outcome = this.snapshotOutcome(id, open);
    if (!outcome.ok) throw new AppError('SESSION_NOT_FOUND', outcome.message);
    const { end, nodes } = outcome.state;
    return {
      head: { session: end.session, bytes: open.listRow().identity.size, nodeCount: nodes.length },
      outcome: Promise.resolve(outcome),
    };
  }

  /** The session as it is now, for a snapshot's closing line and the nodes it must hold. */
  private snapshotOutcome(id: string, session: OpenSession): SnapshotOutcome {
    const sm = session.sm;
    const listItem = this.store.listItem(id);
    if (!listItem) return { ok: false, code: 'SESSION_NOT_FOUND', message: `No session with id ${id}.` };
    const nodes = session.snapshotNodes();
    const end: SnapshotState['end'] = {
      session: listItem,
      header: (sm.getHeader() ?? {}) as unknown as Record<string, unknown>,
      version: sm.version ?? 1,
      dialect: sm.dialect,
      leafId: sm.getLeafId(),
      nodeCount: nodes.length,
      issues: [...sm.issues],
      writerActive: session.writerActive,
      needsMigration: sm.needsRewrite,
      pendingBytes: sm.pendingBytes,
    };
    const name = sm.getSessionName();
    if (name) end.name = name;
    return { ok: true, state: { end, nodes } };
  }

  async entryDetail(id: string, entryId: string): Promise<EntryDetail> {
    const session = await this.store.open(id);
    await session.refresh();
    const sm = session.sm;
    const entry = sm.getEntry(entryId);
    if (!entry) throw new AppError('ENTRY_NOT_FOUND', `No entry ${entryId} in this session.`);
    // The children's shapes only: their content is not shown, and reading each back is O(children).
    const children = sm
      .getChildShapes(entryId)
      .sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
    const detail: EntryDetail = {
      entry: entry as unknown as Record<string, unknown>,
      childIds: children.map((child) => child.id),
    };
    const label = sm.getLabel(entryId);
    if (label !== undefined) detail.label = label;
    // The entry and the tool call are file content: bounded in depth, so that they always serialise.
    if (entry.type === 'message') {
      const message = entry.message as Record<string, unknown>;
      if (message.role === 'assistant' && message.usage && typeof message.usage === 'object') {
        detail.usage = message.usage as Record<string, unknown>;
      }
      if (message.role === 'toolResult' && typeof message.toolCallId === 'string') {
        const call = findToolCall((id) => sm.getEntry(id), entry, message.toolCallId);
        if (call) detail.toolCall = call;
      }
    }
    // What its fromId means depends on who wrote the file (docs/format.md#branch-summary-fromid).
    if (entry.type === 'branch_summary') detail.summaryOrigin = sm.branchSummaryOrigin(entry);
    return boundDepth(detail);
  }

  async context(id: string, at: string | undefined): Promise<ContextResponse> {
    const session = await this.store.open(id);
    await session.refresh();
    const sm = session.sm;
    if (at !== undefined && !sm.getEntry(at))
      throw new AppError('ENTRY_NOT_FOUND', `No entry ${at} in this session.`);
    const leaf = at ?? sm.getLeafId();
    const dialect = sm.dialect;
    // The path from the leaf is all the context is built from: only its entries are read back.
    const context = buildSessionContext(leaf === null ? [] : sm.getBranch(leaf), leaf, undefined, {
      dialect,
    });
    const llm = convertToLlm(context.messages, { dialect }).map((message) => ({
      role: message.role,
      text: llmText(message),
    }));
    return boundDepth({
      at: leaf,
      messages: context.messages as unknown as Record<string, unknown>[],
      llm,
      thinkingLevel: context.thinkingLevel,
      model: context.model,
      models: context.models,
      mode: context.mode,
      tokens: estimateContextTokens(context.messages, dialect),
    });
  }

  /** [oh-my-pi] An image blob of the session's agent folder (hash validated, confined, checked, capped). */
  async blob(id: string, hash: string): Promise<BlobContent> {
    const indexed = await this.store.resolve(id);
    return readBlob(await blobDirOf(indexed.file, indexed.root.path), hash);
  }

  /** [oh-my-pi] Artifact N of a session (`<session file without .jsonl>/N.<tool>.log`, its folder inside the roots). */
  async artifact(id: string, artifactId: string): Promise<ArtifactContent> {
    const indexed = await this.store.resolve(id);
    return readArtifact(indexed.file, artifactId, this.store.confined);
  }
}
