import type {
  BringBackInfo,
  BringBackPreview,
  BringBackPreviewRequest,
  BringBackRequest,
  BringBackResult,
  BringBackUndoResult,
} from '@canopy/protocol';
import {
  appendBringBack,
  BRING_BACK_PREAMBLE,
  bringBackExcerpt,
  bringBackProvenance,
  bringBackUndoState,
  estimateTextTokens,
  formatFileListsSuffix,
  selectionLayout,
  undoBringBack,
  type BringBackExcerpt,
  type SessionEntry,
} from '@canopy/session-core';
import { AppError } from '../errors';
import type { OpenSession } from '../live/open-session';
import type { SessionStore } from '../session-store';
import type { SummarizerRegistry } from '../summarizer';
import type { SummaryService } from './summaries';
import { orderSelection, sessionSummaryOptions } from './summary-input';
import type { SummaryRunner } from './summary-runner';

export interface BringBackServiceDeps {
  store: SessionStore;
  summarizers: SummarizerRegistry;
  runner: SummaryRunner;
  summaries: SummaryService;
  preferredSummarizerId: () => string | undefined;
}

/** The condensed form's default length when the user sets none. */
export const DEFAULT_CONDENSED_TOKENS = 1_000;

/** What the summariser is asked for in the condensed form (it replaces the summary prompt). */
export function condenseInstructions(tokenBudget: number): string {
  return [
    `Rewrite the conversation above as a condensed excerpt of at most ${tokenBudget.toLocaleString('en')} tokens.`,
    'Keep what worked and what was found: the plan, the exact error messages, commands, code, file paths and results, quoted verbatim where they matter.',
    'Leave out dead ends, chatter and anything repeated. Keep the branch and gap notes only where they change the meaning.',
    'Write it as notes for the assistant that continues on another branch; do not continue the conversation.',
  ].join('\n');
}

export const WRITER_ACTIVE_MESSAGE =
  'Another program is writing to this session right now (an agent is working on it); nothing was written. Bring the entries in once it pauses, so that they land where you expect.';

function excerptFields(excerpt: BringBackExcerpt, selectedCount: number) {
  return {
    selectedCount,
    addedCalls: excerpt.addedCalls,
    addedResults: excerpt.addedResults,
    branches: excerpt.branches,
    gaps: excerpt.gaps,
  };
}

/**
 * Bringing entries of other branches into the current one (docs/bring-back.md): the preview in each
 * form (the excerpt at once; condensed and summary through the summary runner, one abortable
 * summary per session, streamed as summary_progress), the write of the previewed text as one
 * custom_message through the session's write path, the provenance of a written one and its undo.
 */
export class BringBackService {
  constructor(private readonly deps: BringBackServiceDeps) {}

  async preview(
    sessionId: string,
    request: BringBackPreviewRequest,
    linked?: AbortSignal,
  ): Promise<BringBackPreview> {
    const session = await this.deps.store.open(sessionId);
    await session.refresh();
    const sm = session.sm;
    // Names unknown ids (BAD_SELECTION) before anything is read.
    orderSelection(sm, request.entryIds);
    const selectedCount = new Set(request.entryIds).size;
    const { form } = request;

    if (form === 'excerpt') {
      const excerpt = bringBackExcerpt(sm, request.entryIds, { tokenBudget: request.tokenBudget ?? 0 });
      return {
        form,
        aborted: false,
        text: excerpt.text,
        tokens: excerpt.tokens,
        sourceEntryIds: excerpt.entryIds,
        leftOut: excerpt.leftOut,
        ...(excerpt.notice !== undefined ? { notice: excerpt.notice } : {}),
        ...excerptFields(excerpt, selectedCount),
      };
    }

    if (form === 'summary') {
      // The selection summary as the summary dialog makes it, with the files read and modified.
      const summary = await this.deps.summaries.preview(
        sessionId,
        {
          source: { kind: 'selection', entryIds: request.entryIds },
          ...(request.summarizerId !== undefined ? { summarizerId: request.summarizerId } : {}),
          ...(request.clientId !== undefined ? { clientId: request.clientId } : {}),
        },
        linked,
      );
      const details = summary.details as Record<string, unknown>;
      const readFiles = stringList(details.readFiles);
      const modifiedFiles = stringList(details.modifiedFiles);
      const text =
        summary.summary.includes('<read-files>') || summary.summary.includes('<modified-files>')
          ? summary.summary
          : summary.summary + formatFileListsSuffix(readFiles, modifiedFiles);
      const excerpt = bringBackExcerpt(sm, request.entryIds);
      return {
        form,
        aborted: summary.aborted,
        text: summary.aborted ? '' : text,
        tokens: summary.aborted ? 0 : estimateTextTokens(text),
        sourceEntryIds: stringList(details.selectedEntryIds, excerpt.entryIds),
        leftOut: Math.max(0, summary.selectedCount - summary.entryCount),
        ...(summary.notice !== undefined ? { notice: summary.notice } : {}),
        summarizerId: summary.summarizerId,
        details: { readFiles, modifiedFiles },
        ...excerptFields(excerpt, selectedCount),
      };
    }

    // condensed: the summariser rewrites the selection's conversation within the user's budget.
    const budget = request.tokenBudget ?? DEFAULT_CONDENSED_TOKENS;
    const excerpt = bringBackExcerpt(sm, request.entryIds);
    const summarizer = this.deps.summarizers.resolve(request.summarizerId, this.deps.preferredSummarizerId());
    const entries = excerpt.entryIds
      .map((id) => sm.getEntry(id))
      .filter((entry): entry is SessionEntry => entry !== undefined);
    const slot = this.deps.runner.begin(sessionId, request.clientId, linked);
    let generated;
    try {
      generated = await this.deps.runner.generate(
        summarizer,
        entries,
        {
          ...sessionSummaryOptions(sm),
          marks: selectionLayout(sm, excerpt.entryIds).marks,
          preamble: `${BRING_BACK_PREAMBLE}\n\n[Condensed from ${excerpt.entryIds.length.toLocaleString('en')} entries]\n\n`,
          customInstructions: condenseInstructions(budget),
          replaceInstructions: true,
        },
        slot,
        { sessionId, targetId: excerpt.entryIds.at(-1) ?? '', kind: 'selection' },
      );
    } finally {
      slot.release();
    }
    const text = generated?.summary ?? '';
    return {
      form,
      aborted: generated === undefined,
      text,
      tokens: estimateTextTokens(text),
      sourceEntryIds: excerpt.entryIds,
      leftOut: 0,
      summarizerId: summarizer.id,
      ...excerptFields(excerpt, selectedCount),
    };
  }

  /**
   * Writes the previewed text as one custom_message under the current leaf (it becomes the leaf),
   * through the session's write path: one whole line in one write(), verified. Refused while another
   * writer is active, and nothing is written when the request was dropped first.
   */
  async write(sessionId: string, request: BringBackRequest, linked?: AbortSignal): Promise<BringBackResult> {
    const session = await this.writable(sessionId);
    orderSelection(session.sm, request.sourceEntryIds);
    if (request.text.trim() === '') throw new AppError('BAD_REQUEST', 'The text to bring in is empty.');
    const oldLeafId = session.sm.getLeafId();
    const entryId = await session.mutate((sm) => {
      // Checked again in the write queue: what another writer appended meanwhile has been read.
      if (session.writerActive) throw new AppError('FILE_BUSY', WRITER_ACTIVE_MESSAGE);
      if (linked?.aborted) throw new AppError('BAD_REQUEST', 'The request was dropped; nothing was written.');
      return appendBringBack(sm, request.text, {
        sourceFile: session.file,
        sourceEntryIds: request.sourceEntryIds,
        form: request.form,
      });
    }, true);
    return {
      entryId,
      tokens: estimateTextTokens(request.text),
      oldLeafId,
      newLeafId: session.sm.getLeafId(),
    };
  }

  async info(sessionId: string, entryId: string): Promise<BringBackInfo> {
    const session = await this.deps.store.open(sessionId);
    await session.refresh();
    const entry = session.sm.getEntry(entryId);
    if (!entry) throw new AppError('ENTRY_NOT_FOUND', `No entry ${entryId} in this session.`);
    const provenance = bringBackProvenance(entry);
    if (!provenance) throw new AppError('INVALID_TARGET', 'This entry is not a bring-back.');
    const undo = bringBackUndoState(session.sm, entryId);
    return {
      entryId,
      sourceFile: provenance.sourceFile,
      sameFile: provenance.sourceFile === session.file,
      sourceEntryIds: provenance.sourceEntryIds,
      form: provenance.form,
      undo: undo.possible
        ? { possible: true }
        : { possible: false, reason: undo.reason, ...(undo.undone ? { undone: true } : {}) },
    };
  }

  /** The undo: a context_edit omitting the entry (pi 1.x files only; otherwise refused with the reason). */
  async undo(sessionId: string, entryId: string): Promise<BringBackUndoResult> {
    const session = await this.writable(sessionId);
    const state = bringBackUndoState(session.sm, entryId);
    if (!state.possible) throw new AppError('INVALID_TARGET', state.reason);
    const editEntryId = await session.mutate((sm) => {
      if (session.writerActive) throw new AppError('FILE_BUSY', WRITER_ACTIVE_MESSAGE);
      const now = bringBackUndoState(sm, entryId);
      if (!now.possible) throw new AppError('INVALID_TARGET', now.reason);
      return undoBringBack(sm, entryId);
    }, true);
    return { editEntryId, leafId: session.sm.getLeafId() };
  }

  private async writable(sessionId: string): Promise<OpenSession> {
    const session = await this.deps.store.open(sessionId);
    await session.refresh();
    const readOnly = session.readOnly;
    if (readOnly) throw new AppError('READ_ONLY', `Nothing was written. ${readOnly}`);
    if (session.writerActive) throw new AppError('FILE_BUSY', WRITER_ACTIVE_MESSAGE);
    return session;
  }
}

function stringList(value: unknown, fallback: string[] = []): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : fallback;
}
