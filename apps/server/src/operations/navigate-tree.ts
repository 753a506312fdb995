import type { NavigateResult, ProvidedSummary } from '@canopy/protocol';
import {
  collectIdsForBranchSummary,
  entriesOf,
  planNavigation,
  type SessionEntry,
  type Usage,
} from '@canopy/session-core';
import { AppError } from '../errors';
import type { ExtensionHost } from '../extensions/host';
import type { SessionStore } from '../session-store';
import type { SummarizerRegistry } from '../summarizer';
import {
  narrowToSelection,
  sessionSummaryOptions,
  summaryInput,
  summaryInputOfEntries,
} from './summary-input';
import type { AbortOutcome, SummaryRunner } from './summary-runner';

export interface NavigateOptions {
  summarize?: boolean;
  customInstructions?: string;
  replaceInstructions?: boolean;
  label?: string;
  /** A summariser id; the settings' choice, else the default, when absent. */
  summarizerId?: string;
  /** Summarise only these entries of the abandoned path. */
  onlyIds?: string[];
  /** A previewed (possibly edited) summary to write instead of generating one; implies summarize. */
  summary?: ProvidedSummary;
  /** The requesting browser's WebSocket connection: its closing aborts the summary. */
  clientId?: string;
  /** Aborts the summary too (the HTTP request was dropped). */
  signal?: AbortSignal;
}

export interface NavigatorDeps {
  store: SessionStore;
  extensions: ExtensionHost;
  summarizers: SummarizerRegistry;
  runner: SummaryRunner;
  /** The summariser the user chose in the settings, if any. */
  preferredSummarizerId: () => string | undefined;
}

/**
 * navigateTree (docs/tree-and-context.md#navigate-tree): the in-file leaf move with an optional branch
 * summary of the abandoned path. One summary at a time per session, abortable through the runner.
 */
export class Navigator {
  constructor(private readonly deps: NavigatorDeps) {}

  /** Aborts the running summary of a session, unless its write has started (docs/summaries.md#abort). */
  abort(sessionId: string): AbortOutcome {
    return this.deps.runner.abort(sessionId);
  }

  async navigate(sessionId: string, targetId: string, options: NavigateOptions): Promise<NavigateResult> {
    const { store, extensions, runner } = this.deps;
    const session = await store.open(sessionId);
    await session.refresh();
    const sm = session.sm;
    const oldLeafId = sm.getLeafId();
    const wantsSummary = options.summarize === true || options.summary !== undefined;

    // 1. The current leaf: nothing to do, nothing written, no events.
    if (targetId === oldLeafId) {
      return { alreadyAtTarget: true, cancelled: false, oldLeafId, newLeafId: oldLeafId };
    }
    // 2. Validate and compute the abandoned path.
    const target = sm.getEntry(targetId);
    if (!target) throw new AppError('ENTRY_NOT_FOUND', `Entry ${targetId} not found.`);
    // Only a summary (the user's or an extension's) walks the abandoned path: both paths from the
    // root, by their ids in the index, which a plain jump does not pay for. Its entries are read back
    // from the file only where they are used: whole for an extension (as pi gives them), the newest
    // MAX_SUMMARY_ENTRIES for the summariser, none for a previewed text.
    const hasTreeHandlers = extensions.hasHandlers('session_before_tree');
    const { ids: abandonedIds, commonAncestorId } =
      wantsSummary || hasTreeHandlers
        ? collectIdsForBranchSummary(sm, oldLeafId, targetId)
        : { ids: [], commonAncestorId: null };
    const summarizedIds = narrowToSelection(abandonedIds, options.onlyIds);
    const needsSummarizer = wantsSummary && options.summary === undefined && summarizedIds.length > 0;
    const resolveSummarizer = () =>
      this.deps.summarizers.resolve(options.summarizerId, this.deps.preferredSummarizerId());
    // A named summariser is checked before anything runs, so an unknown one changes nothing.
    if (needsSummarizer && options.summarizerId !== undefined) resolveSummarizer();

    // Only a navigation that may produce a summary holds the session's slot: plain jumps are
    // serialized by the session's write queue and must not refuse each other.
    const maySummarize = wantsSummary || hasTreeHandlers;
    const slot = maySummarize
      ? runner.begin(sessionId, options.clientId, options.signal)
      : runner.unclaimed(sessionId, options.signal);
    try {
      let customInstructions = options.customInstructions;
      let replaceInstructions = options.replaceInstructions;
      let label = options.label;
      let extensionSummary: { summary: string; details?: unknown } | undefined;
      // What the extensions were given, read back whole once: the summariser takes its newest part.
      let extensionEntries: SessionEntry[] | undefined;

      // 3. Extensions may cancel or supply the summary.
      if (hasTreeHandlers) {
        extensionEntries = entriesOf(sm, summarizedIds);
        const result = await extensions.beforeTree({
          sessionId,
          signal: slot.signal,
          preparation: {
            targetId,
            oldLeafId,
            commonAncestorId,
            entriesToSummarize: extensionEntries,
            userWantsSummary: wantsSummary,
            customInstructions,
            replaceInstructions,
            label,
          },
        });
        if (result.cancel)
          return { alreadyAtTarget: false, cancelled: true, oldLeafId, newLeafId: oldLeafId };
        if (slot.signal.aborted) return aborted(oldLeafId);
        if (wantsSummary && result.summary) extensionSummary = result.summary;
        if (result.customInstructions !== undefined) customInstructions = result.customInstructions;
        if (result.replaceInstructions !== undefined) replaceInstructions = result.replaceInstructions;
        if (result.label !== undefined) label = result.label;
      }

      // 4. The extension's summary wins; then a previewed one; else the summariser, when there is
      //    something to summarise.
      let summary: { text: string; details?: unknown; usage?: Usage; fromExtension: boolean } | undefined;
      if (extensionSummary) {
        summary = { text: extensionSummary.summary, details: extensionSummary.details, fromExtension: true };
      } else if (options.summary) {
        summary = {
          text: options.summary.text,
          details: options.summary.details,
          // A previewed summary carries back the usage its request reported (a JSON object, kept verbatim).
          ...(options.summary.usage !== undefined ? { usage: options.summary.usage as Usage } : {}),
          fromExtension: false,
        };
      } else if (needsSummarizer) {
        const summarizer = resolveSummarizer();
        const input =
          extensionEntries !== undefined
            ? summaryInputOfEntries(extensionEntries, 'The abandoned path')
            : summaryInput(sm, summarizedIds, 'The abandoned path');
        const generated = await runner.generate(
          summarizer,
          input.entries,
          { customInstructions, replaceInstructions, ...sessionSummaryOptions(sm) },
          slot,
          { sessionId, targetId, kind: 'navigate' },
        );
        if (!generated) return aborted(oldLeafId);
        const details: Record<string, unknown> = { ...generated.details };
        if (options.onlyIds !== undefined) details.selectedEntryIds = input.entries.map((entry) => entry.id);
        summary = {
          text: generated.summary,
          details,
          ...(generated.usage !== undefined ? { usage: generated.usage } : {}),
          fromExtension: false,
        };
      }
      if (slot.signal.aborted) return aborted(oldLeafId);

      // 5. New leaf, and the editor text for a user message or custom_message.
      const plan = planNavigation(target);
      const trimmedLabel = label?.trim() || undefined;

      // 6. Apply; a pure leaf move writes nothing, so it does not wait on another writer's cut-off line.
      //    The session publishes the move (and the entries written) to every subscribed browser.
      const writes = summary !== undefined || trimmedLabel !== undefined;
      const summaryDetail = (summaryId: string | undefined | typeof ABORTED) =>
        summaryId === ABORTED
          ? undefined
          : summaryId
            ? {
                summaryEntry: session.sm.getEntry(summaryId) as unknown as Record<string, unknown>,
                fromExtension: summary?.fromExtension ?? false,
              }
            : {};
      const summaryId = await session.mutate(
        (manager): string | undefined | typeof ABORTED => {
          // The write starts here, in the session's queue, after any wait for another writer (an
          // abort during that wait still stops it); from now on an abort answers "too late".
          if (!slot.commit()) return ABORTED;
          let written: string | undefined;
          if (summary) {
            written = manager.branchWithSummary(
              plan.newLeafId,
              summary.text,
              summary.details,
              summary.fromExtension,
              summary.usage,
            );
            if (trimmedLabel) manager.appendLabelChange(written, trimmedLabel);
          } else {
            if (plan.newLeafId === null) manager.resetLeaf();
            else manager.branch(plan.newLeafId);
            if (trimmedLabel) manager.appendLabelChange(targetId, trimmedLabel);
          }
          return written;
        },
        writes,
        summaryDetail,
      );
      if (summaryId === ABORTED) return aborted(oldLeafId);

      const newLeafId = session.sm.getLeafId();
      const summaryEntry = summaryId ? (session.sm.getEntry(summaryId) as SessionEntry) : undefined;

      // 7. Tell the extensions.
      await extensions.tree({
        sessionId,
        newLeafId,
        oldLeafId,
        ...(summaryEntry ? { summaryEntry, fromExtension: summary?.fromExtension ?? false } : {}),
      });

      const result: NavigateResult = {
        alreadyAtTarget: false,
        cancelled: false,
        oldLeafId,
        newLeafId,
      };
      if (plan.editorText !== undefined) result.editorText = plan.editorText;
      if (summaryEntry) result.summaryEntry = summaryEntry as unknown as Record<string, unknown>;
      return result;
    } finally {
      slot.release();
    }
  }
}

/** What the write step answers when the abort came before it: nothing was written. */
const ABORTED = Symbol('aborted before the write');

function aborted(oldLeafId: string | null): NavigateResult {
  return {
    alreadyAtTarget: false,
    cancelled: true,
    aborted: true,
    oldLeafId,
    newLeafId: oldLeafId,
  };
}
