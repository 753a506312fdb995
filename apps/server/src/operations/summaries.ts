import type {
  SelectionShape,
  SelectionSummaryRequest,
  SelectionSummaryResult,
  SummaryPreview,
  SummaryPreviewRequest,
} from '@canopy/protocol';
import {
  collectIdsForBranchSummary,
  type SessionEntry,
  type SessionManager,
  type Usage,
} from '@canopy/session-core';
import { AppError } from '../errors';
import type { SessionStore } from '../session-store';
import type { SummarizerRegistry, SummaryResult } from '../summarizer';
import {
  narrowToSelection,
  newestOf,
  orderSelection,
  pairToolCalls,
  selectionLayout,
  sessionSummaryOptions,
  summaryInput,
  type PairedSelection,
  type SelectionLayout,
  type SummaryInput,
} from './summary-input';
import type { SummaryContext, SummaryRequestOptions, SummaryRunner, SummarySlot } from './summary-runner';

export interface SummaryServiceDeps {
  store: SessionStore;
  summarizers: SummarizerRegistry;
  runner: SummaryRunner;
  preferredSummarizerId: () => string | undefined;
}

const NO_FILES = { readFiles: [], modifiedFiles: [] };

/** A selection made ready to summarise: paired, ordered, laid out, and the entries read back. */
interface PreparedSelection {
  input: SummaryInput;
  newestId: string;
  layout: SelectionLayout;
  paired: PairedSelection;
}

function prepareSelection(sm: SessionManager, entryIds: readonly string[]): PreparedSelection {
  const paired = pairToolCalls(sm, entryIds);
  const ordered = orderSelection(sm, paired.ids);
  const layout = selectionLayout(sm, newestOf(ordered.ids));
  return {
    input: summaryInput(sm, ordered.ids, 'The selection'),
    newestId: ordered.newestId,
    layout,
    paired,
  };
}

function selectionShape(prepared: PreparedSelection): SelectionShape {
  return {
    addedCalls: prepared.paired.addedCalls,
    addedResults: prepared.paired.addedResults,
    branches: prepared.layout.branches,
    gaps: prepared.layout.gaps,
    onCurrentPath: prepared.layout.onCurrentPath,
  };
}

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
    let options: SummaryRequestOptions = sessionSummaryOptions(sm);
    let selection: PreparedSelection | undefined;
    if (source.kind === 'navigate') {
      if (!sm.getEntry(source.targetId))
        throw new AppError('ENTRY_NOT_FOUND', `Entry ${source.targetId} not found.`);
      const leafId = sm.getLeafId();
      const abandoned =
        source.targetId === leafId ? [] : collectIdsForBranchSummary(sm, leafId, source.targetId).ids;
      const narrowed = narrowToSelection(abandoned, source.onlyIds);
      input = summaryInput(sm, narrowed, 'The abandoned path');
      // Only part of the path: say where the unselected entries lie between the selected ones.
      if (source.onlyIds !== undefined)
        options = { ...options, marks: selectionLayout(sm, newestOf(narrowed)).marks };
      context = { sessionId, targetId: source.targetId, kind: 'navigate' };
    } else {
      selection = prepareSelection(sm, source.entryIds);
      input = selection.input;
      options = { ...options, marks: selection.layout.marks, preamble: selection.layout.preamble };
      context = { sessionId, targetId: selection.newestId, kind: 'selection' };
    }

    const summarizer = this.deps.summarizers.resolve(request.summarizerId, this.deps.preferredSummarizerId());
    const base = {
      summarizerId: summarizer.id,
      entryCount: input.entries.length,
      // What the user chose; entries added to keep calls with their results are in `selection`.
      selectedCount: source.kind === 'selection' ? new Set(source.entryIds).size : input.selectedCount,
      tokenEstimate: input.tokenEstimate,
      ...(input.notice !== undefined ? { notice: input.notice } : {}),
      ...(selection ? { selection: selectionShape(selection) } : {}),
    };
    if (input.entries.length === 0) {
      return { ...base, aborted: false, nothingToSummarize: true, summary: '', details: { ...NO_FILES } };
    }
    const slot = this.deps.runner.begin(sessionId, request.clientId, linked);
    let generated: SummaryResult | undefined;
    try {
      generated = await this.generate(summarizer.id, input.entries, request, options, context, slot);
    } finally {
      slot.release();
    }
    if (!generated)
      return { ...base, aborted: true, nothingToSummarize: false, summary: '', details: { ...NO_FILES } };
    const details: Record<string, unknown> = { ...generated.details };
    if (source.kind === 'selection' || source.onlyIds !== undefined)
      details.selectedEntryIds = input.entries.map((entry) => entry.id);
    return {
      ...base,
      aborted: false,
      nothingToSummarize: false,
      summary: generated.summary,
      details,
      ...(generated.sent ? { sent: generated.sent } : {}),
      ...(generated.usage ? { usage: generated.usage } : {}),
    };
  }

  async summarizeSelection(
    sessionId: string,
    request: SelectionSummaryRequest,
    linked?: AbortSignal,
  ): Promise<SelectionSummaryResult> {
    const session = await this.deps.store.open(sessionId);
    await session.refresh();
    const oldLeafId = session.sm.getLeafId();
    // The slot is held to the end of the write: an abort answered "aborted" means nothing is
    // written, and one that comes after the write started is answered "too late"
    // (docs/summaries.md#abort).
    const slot = this.deps.runner.begin(sessionId, request.clientId, linked);
    try {
      let text: string;
      let details: Record<string, unknown>;
      let usage: Usage | undefined;
      let newestId: string;
      if (request.summary) {
        const paired = pairToolCalls(session.sm, request.entryIds);
        const ordered = orderSelection(session.sm, paired.ids);
        newestId = ordered.newestId;
        text = request.summary.text;
        // The usage the preview's request reported, carried back by the page (a JSON object, kept verbatim).
        usage = request.summary.usage as Usage | undefined;
        // What the summary covers; a previewed text needs no entry read back.
        details = { ...NO_FILES, ...request.summary.details, selectedEntryIds: newestOf(ordered.ids) };
      } else {
        const summarizer = this.deps.summarizers.resolve(
          request.summarizerId,
          this.deps.preferredSummarizerId(),
        );
        const selection = prepareSelection(session.sm, request.entryIds);
        newestId = selection.newestId;
        const generated = await this.generate(
          summarizer.id,
          selection.input.entries,
          request,
          {
            ...sessionSummaryOptions(session.sm),
            marks: selection.layout.marks,
            preamble: selection.layout.preamble,
          },
          { sessionId, targetId: newestId, kind: 'selection' },
          slot,
        );
        if (!generated) return { aborted: true, oldLeafId, newLeafId: oldLeafId };
        text = generated.summary;
        usage = generated.usage;
        details = {
          ...generated.details,
          selectedEntryIds: selection.input.entries.map((entry) => entry.id),
        };
      }

      const summaryId = await session.mutate(
        (manager) =>
          slot.commit() ? manager.appendBranchSummary(newestId, text, details, false, usage) : undefined,
        true,
      );
      if (summaryId === undefined) return { aborted: true, oldLeafId, newLeafId: oldLeafId };
      return {
        aborted: false,
        oldLeafId,
        newLeafId: session.sm.getLeafId(),
        summaryEntry: session.sm.getEntry(summaryId) as SessionEntry as unknown as Record<string, unknown>,
      };
    } finally {
      slot.release();
    }
  }

  private async generate(
    summarizerId: string,
    entries: readonly SessionEntry[],
    request: { customInstructions?: string; replaceInstructions?: boolean },
    options: SummaryRequestOptions,
    context: SummaryContext,
    slot: SummarySlot,
  ): Promise<SummaryResult | undefined> {
    const summarizer = this.deps.summarizers.resolve(summarizerId);
    return this.deps.runner.generate(
      summarizer,
      entries,
      {
        ...options,
        customInstructions: request.customInstructions,
        replaceInstructions: request.replaceInstructions,
      },
      slot,
      context,
    );
  }
}
