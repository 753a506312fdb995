import type { NavigateResult, ServerEvent, SkeletonNode } from '@canopy/protocol';
import { collectEntriesForBranchSummary, planNavigation, type SessionEntry } from '@canopy/session-core';
import { AppError } from '../errors';
import type { ExtensionHost } from '../extensions/host';
import type { SessionStore } from '../plugins/session-store';
import type { Summarizer } from '../summarizer';

export interface NavigateOptions {
  summarize?: boolean;
  customInstructions?: string;
  replaceInstructions?: boolean;
  label?: string;
}

export interface NavigatorDeps {
  store: SessionStore;
  extensions: ExtensionHost;
  summarizer: Summarizer | undefined;
  publish: (event: ServerEvent) => void;
}

/**
 * navigateTree (docs/tree-and-context.md#navigate-tree): the in-file leaf move, with an optional branch
 * summary of the abandoned path. One summary at a time per session; its AbortController is kept
 * so the browser (or Esc) can abort it.
 */
export class Navigator {
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly deps: NavigatorDeps) {}

  /** Aborts the running summary of a session; false when none runs. */
  abort(sessionId: string): boolean {
    const controller = this.running.get(sessionId);
    if (!controller) return false;
    controller.abort();
    return true;
  }

  async navigate(sessionId: string, targetId: string, options: NavigateOptions): Promise<NavigateResult> {
    const { store, extensions } = this.deps;
    const session = await store.open(sessionId);
    await session.refresh();
    const sm = session.sm;
    const oldLeafId = sm.getLeafId();

    // 1. The current leaf: nothing to do, nothing written, no events.
    if (targetId === oldLeafId) {
      return { alreadyAtTarget: true, cancelled: false, oldLeafId, newLeafId: oldLeafId, nodes: [] };
    }
    // 2. Validate and compute the abandoned path.
    const target = sm.getEntry(targetId);
    if (!target) throw new AppError('ENTRY_NOT_FOUND', `Entry ${targetId} not found.`);
    if (this.running.has(sessionId))
      throw new AppError('BUSY', 'A summary is already being generated for this session.');
    const { entries, commonAncestorId } = collectEntriesForBranchSummary(sm, oldLeafId, targetId);

    const controller = new AbortController();
    // Only a navigation that may produce a summary holds the session's slot: plain jumps are
    // serialized by the session's write queue and must not refuse each other.
    const maySummarize = options.summarize === true || extensions.hasHandlers('session_before_tree');
    if (maySummarize) this.running.set(sessionId, controller);
    try {
      let customInstructions = options.customInstructions;
      let replaceInstructions = options.replaceInstructions;
      let label = options.label;
      let extensionSummary: { summary: string; details?: unknown } | undefined;

      // 3. Extensions may cancel or supply the summary.
      if (extensions.hasHandlers('session_before_tree')) {
        const result = await extensions.beforeTree({
          sessionId,
          signal: controller.signal,
          preparation: {
            targetId,
            oldLeafId,
            commonAncestorId,
            entriesToSummarize: entries,
            userWantsSummary: options.summarize === true,
            customInstructions,
            replaceInstructions,
            label,
          },
        });
        if (result.cancel)
          return { alreadyAtTarget: false, cancelled: true, oldLeafId, newLeafId: oldLeafId, nodes: [] };
        if (controller.signal.aborted) return this.aborted(oldLeafId);
        if (options.summarize && result.summary) extensionSummary = result.summary;
        if (result.customInstructions !== undefined) customInstructions = result.customInstructions;
        if (result.replaceInstructions !== undefined) replaceInstructions = result.replaceInstructions;
        if (result.label !== undefined) label = result.label;
      }

      // 4. Summarise: the extension's summary first, else the summariser; nothing to summarise → none.
      let summary: { text: string; details?: unknown; fromExtension: boolean } | undefined;
      if (extensionSummary) {
        summary = { text: extensionSummary.summary, details: extensionSummary.details, fromExtension: true };
      } else if (options.summarize && entries.length > 0) {
        const generated = await this.summarize(
          sessionId,
          targetId,
          entries,
          controller.signal,
          customInstructions,
          replaceInstructions,
        );
        if (!generated) return this.aborted(oldLeafId);
        summary = { text: generated.summary, details: generated.details, fromExtension: false };
      }

      // 5. New leaf, and the editor text for a user message or custom_message.
      const plan = planNavigation(target);
      const trimmedLabel = label?.trim() || undefined;

      // 6. Apply; a pure leaf move writes nothing, so it does not wait on another writer's cut-off line.
      const writes = summary !== undefined || trimmedLabel !== undefined;
      const countBefore = { value: 0 };
      const summaryId = await session.mutate((manager) => {
        countBefore.value = manager.getEntries().length;
        let written: string | undefined;
        if (summary) {
          written = manager.branchWithSummary(
            plan.newLeafId,
            summary.text,
            summary.details,
            summary.fromExtension,
          );
          if (trimmedLabel) manager.appendLabelChange(written, trimmedLabel);
        } else {
          if (plan.newLeafId === null) manager.resetLeaf();
          else manager.branch(plan.newLeafId);
          if (trimmedLabel) manager.appendLabelChange(targetId, trimmedLabel);
        }
        return written;
      }, writes);

      const newLeafId = session.sm.getLeafId();
      const added = session.sm.getEntries().slice(countBefore.value);
      const nodes: SkeletonNode[] = added.length > 0 ? session.skeleton(added) : [];
      const summaryEntry = summaryId ? (session.sm.getEntry(summaryId) as SessionEntry) : undefined;

      // 7. Tell every subscribed browser and the extensions.
      const event: ServerEvent = {
        type: 'session_tree',
        sessionId,
        newLeafId,
        oldLeafId,
        ...(summaryEntry
          ? {
              summaryEntry: summaryEntry as unknown as Record<string, unknown>,
              fromExtension: summary?.fromExtension ?? false,
            }
          : {}),
      };
      this.deps.publish(event);
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
        nodes,
      };
      if (plan.editorText !== undefined) result.editorText = plan.editorText;
      if (summaryEntry) result.summaryEntry = summaryEntry as unknown as Record<string, unknown>;
      return result;
    } finally {
      if (this.running.get(sessionId) === controller) this.running.delete(sessionId);
    }
  }

  private aborted(oldLeafId: string | null): NavigateResult {
    return {
      alreadyAtTarget: false,
      cancelled: true,
      aborted: true,
      oldLeafId,
      newLeafId: oldLeafId,
      nodes: [],
    };
  }

  /** Runs the summariser with progress events; undefined when aborted. */
  private async summarize(
    sessionId: string,
    targetId: string,
    entries: SessionEntry[],
    signal: AbortSignal,
    customInstructions: string | undefined,
    replaceInstructions: boolean | undefined,
  ): Promise<{ summary: string; details?: unknown } | undefined> {
    const summarizer = this.deps.summarizer;
    if (!summarizer) {
      throw new AppError(
        'NO_SUMMARIZER',
        'No summariser is configured, so this branch cannot be summarised; navigate without a summary.',
      );
    }
    const progress = (
      phase: 'started' | 'progress' | 'done' | 'aborted' | 'failed',
      extra: { message?: string; fraction?: number } = {},
    ) => this.deps.publish({ type: 'summary_progress', sessionId, targetId, phase, ...extra });
    progress('started');
    try {
      const result = await summarizer.summarize(entries, {
        signal,
        customInstructions,
        replaceInstructions,
        onProgress: (p) => {
          if (!signal.aborted) progress('progress', p);
        },
      });
      if (signal.aborted) {
        progress('aborted');
        return undefined;
      }
      progress('done');
      return result;
    } catch (error) {
      if (signal.aborted) {
        progress('aborted');
        return undefined;
      }
      progress('failed', { message: error instanceof Error ? error.message : String(error) });
      throw new AppError(
        'SUMMARY_FAILED',
        `Summarisation failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }
}
