import type {
  SelectionSummaryRequest,
  SelectionSummaryResult,
  SummaryPreview,
  SummaryPreviewRequest,
} from '@canopy/protocol';
import { collectIdsForBranchSummary, type SessionEntry } from '@canopy/session-core';
import { AppError } from '../errors';
import type { SessionStore } from '../store/session-store';
import type { SummarizerRegistry, SummaryResult } from '../summarizer';
import {
  narrowToSelection,
  newestOf,
  orderSelection,
  summaryInput,
  type SummaryInput,
} from './summary-input';
import type { SummaryContext, SummaryRunner } from './summary-runner';

export interface SummaryServiceDeps {
  store: SessionStore;
  summarizers: SummarizerRegistry;
  runner: SummaryRunner;
  preferredSummarizerId: () => string | undefined;
}

const NO_FILES = { readFiles: [], modifiedFiles: [] };

/**
 * The summary preview (generate without writing) and summarize-selection (a summary of entries
 * from anywhere in the tree, appended under the current leaf). Navigations with a summary are
 * the Navigator's.
 */
export class SummaryService {
  constructor(private readonly deps: SummaryServiceDeps) {}

  async preview(
    sessionId: string,
    request: SummaryPreviewRequest,
    linked?: AbortSignal,
  ): Promise<SummaryPreview> {
    const session = await this.deps.store.open(sessionId);
    await session.refresh();
    const sm = session.sm;
    const { source } = request;
    let input: SummaryInput;
    let context: SummaryContext;
    if (source.kind === 'navigate') {
      if (!sm.getEntry(source.targetId))
        throw new AppError('ENTRY_NOT_FOUND', `Entry ${source.targetId} not found.`);
      const leafId = sm.getLeafId();
      const abandoned =
        source.targetId === leafId ? [] : collectIdsForBranchSummary(sm, leafId, source.targetId).ids;
      input = summaryInput(sm, narrowToSelection(abandoned, source.onlyIds), 'The abandoned path');
      context = { sessionId, targetId: source.targetId, kind: 'navigate' };
    } else {
      const ordered = orderSelection(sm, source.entryIds);
      input = summaryInput(sm, ordered.ids, 'The selection');
      context = { sessionId, targetId: ordered.newestId, kind: 'selection' };
    }

    const summarizer = this.deps.summarizers.resolve(request.summarizerId, this.deps.preferredSummarizerId());
    const base = {
      summarizerId: summarizer.id,
      entryCount: input.entries.length,
      selectedCount: input.selectedCount,
      tokenEstimate: input.tokenEstimate,
      ...(input.notice !== undefined ? { notice: input.notice } : {}),
    };
    if (input.entries.length === 0) {
      return { ...base, aborted: false, nothingToSummarize: true, summary: '', details: { ...NO_FILES } };
    }
    const generated = await this.generate(sessionId, summarizer.id, input.entries, request, context, linked);
    if (!generated)
      return { ...base, aborted: true, nothingToSummarize: false, summary: '', details: { ...NO_FILES } };
    const details: Record<string, unknown> = { ...generated.details };
    if (source.kind === 'selection' || source.onlyIds !== undefined)
      details.selectedEntryIds = input.entries.map((entry) => entry.id);
    return { ...base, aborted: false, nothingToSummarize: false, summary: generated.summary, details };
  }

  async summarizeSelection(
    sessionId: string,
    request: SelectionSummaryRequest,
    linked?: AbortSignal,
  ): Promise<SelectionSummaryResult> {
    const session = await this.deps.store.open(sessionId);
    await session.refresh();
    const ordered = orderSelection(session.sm, request.entryIds);
    // What the summary covers; a previewed text needs no entry read back, a generated one reads these.
    const selectedEntryIds = newestOf(ordered.ids);
    const oldLeafId = session.sm.getLeafId();

    let text: string;
    let details: Record<string, unknown>;
    if (request.summary) {
      text = request.summary.text;
      details = { ...NO_FILES, ...request.summary.details, selectedEntryIds };
    } else {
      const summarizer = this.deps.summarizers.resolve(
        request.summarizerId,
        this.deps.preferredSummarizerId(),
      );
      const input = summaryInput(session.sm, ordered.ids, 'The selection');
      const generated = await this.generate(
        sessionId,
        summarizer.id,
        input.entries,
        request,
        { sessionId, targetId: ordered.newestId, kind: 'selection' },
        linked,
      );
      if (!generated) return { aborted: true, oldLeafId, newLeafId: oldLeafId };
      text = generated.summary;
      details = { ...generated.details, selectedEntryIds };
    }

    const summaryId = await session.mutate(
      (manager) => manager.appendBranchSummary(ordered.newestId, text, details, false),
      true,
    );
    return {
      aborted: false,
      oldLeafId,
      newLeafId: session.sm.getLeafId(),
      summaryEntry: session.sm.getEntry(summaryId) as SessionEntry as unknown as Record<string, unknown>,
    };
  }

  private async generate(
    sessionId: string,
    summarizerId: string,
    entries: readonly SessionEntry[],
    request: { customInstructions?: string; replaceInstructions?: boolean; clientId?: string },
    context: SummaryContext,
    linked: AbortSignal | undefined,
  ): Promise<SummaryResult | undefined> {
    const summarizer = this.deps.summarizers.resolve(summarizerId);
    const slot = this.deps.runner.begin(sessionId, request.clientId, linked);
    try {
      return await this.deps.runner.generate(
        summarizer,
        entries,
        { customInstructions: request.customInstructions, replaceInstructions: request.replaceInstructions },
        slot,
        context,
      );
    } finally {
      slot.release();
    }
  }
}
