// The summary slice: the summary dialog, after a navigation or for the multi-entry selection
// (slices/multiSelection.ts).
// A summary is always generated first as a preview that writes nothing; the user may edit it, and
// only "Write summary" sends it to the server (navigate with `summary`, or summarize-selection).

import type { NavigateRequest, ServerEvent, SummaryPreview, SummaryPreviewRequest } from '@canopy/protocol';
import type { Api } from '../../net/api';
import { ApiError, messageOf as message } from '../../net/errors';
import type { MultiSelectionSlice } from './multiSelection';

export type SummaryStep = 'choice' | 'prompt' | 'generating' | 'preview';

export interface SummaryDialogState {
  kind: 'navigate' | 'selection';
  /** The navigation target (navigate only). */
  targetId: string | null;
  /** The selected entries (selection only), as chosen when the dialog opened. */
  entryIds: string[];
  step: SummaryStep;
  summarizerId: string | null;
  customInstructions: string;
  replaceInstructions: boolean;
  /** Navigate: summarise only the selected entries of the abandoned path. */
  onlySelection: boolean;
  progress: SummaryProgressState;
  preview: SummaryPreview | null;
  /** The preview's text as the user edits it. */
  text: string;
  error: string | null;
}

/** What the generating step shows: the phase, the text so far, its tokens, and when it started. */
export interface SummaryProgressState {
  step?: string;
  fraction?: number;
  text: string;
  /** Tokens of the answer so far (the server's count). */
  tokens?: number;
  /** The model waited for (`provider/model`). */
  model?: string;
  /** The last retry announced. */
  retry?: { attempt: number; maxAttempts: number; delayMs: number; message: string };
  /** Date.now() when generating started, for the elapsed time. */
  startedAt?: number;
}

export interface SummaryState {
  summaryDialog: SummaryDialogState | null;
  /** This page's WebSocket connection id (from hello): its closing aborts our summaries. */
  clientId: string | null;
}

export interface SummaryActions {
  /** Opens the summary dialog on its choice step. */
  openSummaryDialog(target: { kind: 'navigate'; targetId: string } | { kind: 'selection' }): void;
  closeSummaryDialog(): void;
  updateSummaryDialog(
    patch: Partial<
      Pick<
        SummaryDialogState,
        'summarizerId' | 'customInstructions' | 'replaceInstructions' | 'onlySelection' | 'text'
      >
    >,
  ): void;
  /** "No summary": navigate without one (navigate) or close (selection). */
  chooseNoSummary(): Promise<void>;
  /** "Summarize with custom prompt": to the prompt step. */
  chooseCustomPrompt(): void;
  /** Back from the prompt (or a preview) to the three choices. */
  backToChoice(): void;
  /** Generates the preview (with the custom prompt when `custom`). */
  generateSummary(custom: boolean): Promise<void>;
  /** Esc while generating: aborts on the server; nothing is written. */
  abortSummary(): Promise<void>;
  /** Writes the (edited) preview. */
  applySummary(): Promise<void>;
  /** Esc in the dialog: one step back, or out of it. */
  summaryEscape(): void;
  /** hello and summary_progress events. */
  handleSummaryEvent(event: ServerEvent): void;
}

/** What the slice needs from the rest of the store. */
export interface SummaryHost {
  api: Api;
  sessionId(): string | null;
  defaultSummarizerId(): string | null;
  jump(id: string, options: Omit<NavigateRequest, 'targetId'>): Promise<void>;
  /** Resolves once the entry is in the tree (true), or false if the session went away first. */
  whenEntry(id: string): Promise<boolean>;
  select(id: string): void;
  toast(text: string, kind?: 'info' | 'error'): void;
}

type SetState<T> = (partial: Partial<T>) => void;

export function initialSummaryState(): SummaryState {
  return { summaryDialog: null, clientId: null };
}

export function createSummaryActions<S extends SummaryState & SummaryActions & MultiSelectionSlice>(
  set: SetState<SummaryState>,
  get: () => S,
  host: SummaryHost,
): SummaryActions {
  const dialog = () => get().summaryDialog;
  // Text increments waiting for the next animation frame.
  let pendingDelta = '';
  let pendingTokens: number | undefined;
  let frameRequested = false;
  const patchDialog = (patch: Partial<SummaryDialogState>) => {
    const current = dialog();
    if (current) set({ summaryDialog: { ...current, ...patch } });
  };

  return {
    openSummaryDialog(target) {
      const entryIds = target.kind === 'selection' ? [...get().multiSelection] : [];
      set({
        summaryDialog: {
          kind: target.kind,
          targetId: target.kind === 'navigate' ? target.targetId : null,
          entryIds,
          step: 'choice',
          summarizerId: host.defaultSummarizerId(),
          customInstructions: '',
          replaceInstructions: false,
          onlySelection: false,
          progress: { text: '' },
          preview: null,
          text: '',
          error: null,
        },
      });
    },

    closeSummaryDialog() {
      set({ summaryDialog: null });
    },

    updateSummaryDialog(patch) {
      patchDialog(patch);
    },

    async chooseNoSummary() {
      const current = dialog();
      set({ summaryDialog: null });
      if (current?.kind === 'navigate' && current.targetId) await host.jump(current.targetId, {});
    },

    chooseCustomPrompt() {
      patchDialog({ step: 'prompt', error: null });
    },

    backToChoice() {
      patchDialog({ step: 'choice', preview: null, text: '', error: null, progress: { text: '' } });
    },

    async generateSummary(custom) {
      const current = dialog();
      const sessionId = host.sessionId();
      if (!current || !sessionId || current.step === 'generating') return;
      const source: SummaryPreviewRequest['source'] =
        current.kind === 'navigate'
          ? {
              kind: 'navigate',
              targetId: current.targetId as string,
              ...(current.onlySelection ? { onlyIds: [...get().multiSelection] } : {}),
            }
          : { kind: 'selection', entryIds: current.entryIds };
      const request: SummaryPreviewRequest = { source };
      if (current.summarizerId) request.summarizerId = current.summarizerId;
      if (custom && current.customInstructions.trim()) {
        request.customInstructions = current.customInstructions.trim();
        request.replaceInstructions = current.replaceInstructions;
      }
      const clientId = get().clientId;
      if (clientId) request.clientId = clientId;
      patchDialog({
        step: 'generating',
        progress: { text: '', startedAt: Date.now() },
        error: null,
        preview: null,
      });
      try {
        const preview = await host.api.previewSummary(sessionId, request);
        // Closed meanwhile: the user aborted (and was told) or left; the answer is dropped.
        if (dialog()?.step !== 'generating') return;
        if (preview.aborted) {
          set({ summaryDialog: null });
          host.toast('Summary aborted; nothing was written');
          return;
        }
        if (preview.nothingToSummarize) {
          if (current.kind === 'navigate' && current.targetId) {
            set({ summaryDialog: null });
            host.toast('Nothing to summarise on the abandoned path; navigating without a summary');
            await host.jump(current.targetId, {});
          } else patchDialog({ step: 'choice', error: 'Nothing to summarise in this selection.' });
          return;
        }
        patchDialog({ step: 'preview', preview, text: preview.summary });
      } catch (error) {
        if (dialog()) patchDialog({ step: custom ? 'prompt' : 'choice', error: message(error) });
        else host.toast(message(error), 'error');
      }
    },

    async abortSummary() {
      const sessionId = host.sessionId();
      // The tree comes back at once; the pending preview request then answers `aborted`.
      set({ summaryDialog: null });
      if (!sessionId) return;
      try {
        await host.api.abortSummary(sessionId);
      } catch (error) {
        // Finished just before the abort arrived: the preview is dropped, nothing was written.
        if (!(error instanceof ApiError && error.code === 'NO_SUMMARY_RUNNING'))
          host.toast(message(error), 'error');
      }
      host.toast('Summary aborted; nothing was written');
    },

    async applySummary() {
      const current = dialog();
      const sessionId = host.sessionId();
      if (!current || !sessionId || !current.preview) return;
      const text = current.text.trim();
      if (!text) {
        patchDialog({ error: 'The summary is empty: write something, or go back and choose No summary.' });
        return;
      }
      const summary = {
        text: current.text,
        details: current.preview.details,
        ...(current.preview.usage ? { usage: current.preview.usage } : {}),
      };
      if (current.kind === 'navigate' && current.targetId) {
        set({ summaryDialog: null });
        await host.jump(current.targetId, { summary });
        return;
      }
      try {
        const result = await host.api.summarizeSelection(sessionId, { entryIds: current.entryIds, summary });
        set({ summaryDialog: null });
        get().clearMultiSelection();
        // The summary reaches the tree through session_changed, like every write.
        const id = (result.summaryEntry as Record<string, unknown> | undefined)?.id;
        if (typeof id === 'string' && !(await host.whenEntry(id))) return;
        if (typeof id === 'string') host.select(id);
        host.toast('Summary of the selection written under the leaf');
      } catch (error) {
        patchDialog({ error: message(error) });
      }
    },

    summaryEscape() {
      const current = dialog();
      if (!current) return;
      switch (current.step) {
        case 'choice':
          set({ summaryDialog: null });
          return;
        case 'prompt':
        case 'preview':
          get().backToChoice();
          return;
        case 'generating':
          void get().abortSummary();
          return;
      }
    },

    handleSummaryEvent(event) {
      if (event.type === 'hello') {
        set({ clientId: event.clientId ?? null });
        return;
      }
      if (event.type !== 'summary_progress') return;
      const current = dialog();
      if (!current || current.step !== 'generating' || event.sessionId !== host.sessionId()) return;
      if (event.phase !== 'progress') return;
      if (event.step === 'generating' && event.delta !== undefined) {
        // Text increments are appended once per animation frame, however many arrive in it.
        pendingDelta += event.delta;
        pendingTokens = event.tokens ?? pendingTokens;
        if (!frameRequested) {
          frameRequested = true;
          nextFrame(() => {
            frameRequested = false;
            const now = dialog();
            if (!now || now.step !== 'generating') {
              pendingDelta = '';
              return;
            }
            patchDialog({
              progress: {
                ...now.progress,
                step: 'generating',
                text: now.progress.text + pendingDelta,
                ...(pendingTokens !== undefined ? { tokens: pendingTokens } : {}),
              },
            });
            pendingDelta = '';
          });
        }
        return;
      }
      patchDialog({
        progress: {
          ...current.progress,
          ...(event.step !== undefined ? { step: event.step } : {}),
          ...(event.fraction !== undefined ? { fraction: event.fraction } : {}),
          ...(event.model !== undefined ? { model: event.model } : {}),
          ...(event.step === 'retrying'
            ? {
                retry: {
                  attempt: event.attempt ?? 0,
                  maxAttempts: event.maxAttempts ?? 0,
                  delayMs: event.delayMs ?? 0,
                  message: event.message ?? '',
                },
                // A retry starts the answer over.
                text: '',
                tokens: 0,
              }
            : {}),
        },
      });
    },
  };
}

/** The next animation frame (a macrotask where there are no frames: tests in Node). */
function nextFrame(run: () => void): void {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => run());
  else setTimeout(run, 0);
}
