// The summary dialog: after a navigation (when summaries are on) or for "Summarize selection".
// Steps: the three choices → (custom prompt) → generating, with streamed text and Esc to abort →
// an editable preview → written. Esc goes one step back: from the choices to the tree, from the
// prompt or the preview to the choices, and while generating it aborts (nothing is written).
// One component per step would share all of the dialog's state; the steps stay together.

import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { SummarizerInfo, SummaryPreview } from '@canopy/protocol';

type LeftOutReason = NonNullable<SummaryPreview['sent']>['leftOut'][number]['reason'];
import { useApp, useAppStore } from '../store/context';
import type { SummaryDialogState } from '../store/slices/summary';
import { focusDialog, useEscape } from './useEscape';

/** A stable empty list: a new [] per read would re-render forever. */
const NO_SUMMARIZERS: readonly SummarizerInfo[] = [];

function SummarizerPicker({ dialog }: { dialog: SummaryDialogState }) {
  const store = useAppStore();
  const offered = useApp((s) => s.info?.summarizers ?? NO_SUMMARIZERS);
  if (offered.length <= 1) return null;
  return (
    <label className="summary-field">
      Summariser{' '}
      <select
        data-testid="summary.summarizer"
        value={dialog.summarizerId ?? ''}
        onChange={(e) => store.getState().updateSummaryDialog({ summarizerId: e.target.value || null })}
      >
        {offered.map((s) => (
          <option key={s.id} value={s.id}>
            {s.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Which model will summarise and where it came from; with only the offline one, where to get a model. */
function SummarizerSource({ dialog }: { dialog: SummaryDialogState }) {
  const offered = useApp((s) => s.info?.summarizers ?? NO_SUMMARIZERS);
  const current = offered.find((s) => s.id === dialog.summarizerId);
  if (offered.length <= 1)
    return (
      <p className="help" data-testid="summary.model">
        Only the offline summariser (no model) is offered: ⚙ Settings → Summary models sets one up, and says
        why a configured one is not offered.
      </p>
    );
  if (!current?.source) return null;
  return (
    <p className="help" data-testid="summary.model">
      {current.label}, from {current.source}
    </p>
  );
}

function ChoiceStep({ dialog }: { dialog: SummaryDialogState }) {
  const store = useAppStore();
  const selected = useApp((s) => s.multiSelection.size);
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => first.current?.focus(), []);
  const navigate = dialog.kind === 'navigate';
  return (
    <>
      <p className="summary-lead">
        {navigate
          ? 'A summary of the path you abandon is written where the branch continues, so the model keeps what was learnt there.'
          : `Summarise the ${dialog.entryIds.length.toLocaleString()} selected ${dialog.entryIds.length === 1 ? 'entry' : 'entries'} into one branch summary under the current leaf.`}
      </p>
      <div className="summary-choices" role="group" aria-label="Summary choice">
        {navigate && (
          <button
            type="button"
            ref={first}
            data-testid="summary.none"
            onClick={() => void store.getState().chooseNoSummary()}
          >
            No summary
          </button>
        )}
        <button
          type="button"
          ref={navigate ? undefined : first}
          className="primary"
          data-testid="summary.summarize"
          onClick={() => void store.getState().generateSummary(false)}
        >
          Summarize
        </button>
        <button
          type="button"
          data-testid="summary.custom"
          onClick={() => store.getState().chooseCustomPrompt()}
        >
          Summarize with custom prompt
        </button>
      </div>
      <SummarizerPicker dialog={dialog} />
      <SummarizerSource dialog={dialog} />
      {navigate && selected > 0 && (
        <label className="summary-field">
          <input
            type="checkbox"
            data-testid="summary.only-selection"
            checked={dialog.onlySelection}
            onChange={(e) => store.getState().updateSummaryDialog({ onlySelection: e.target.checked })}
          />{' '}
          Only the selected entries of the abandoned path ({selected.toLocaleString()} selected)
        </label>
      )}
    </>
  );
}

function PromptStep({ dialog }: { dialog: SummaryDialogState }) {
  const store = useAppStore();
  return (
    <>
      <label className="summary-field column">
        Custom instructions
        <textarea
          autoFocus
          data-testid="summary.prompt"
          rows={5}
          value={dialog.customInstructions}
          placeholder="e.g. Focus on the failed approaches and why they failed"
          onChange={(e) => store.getState().updateSummaryDialog({ customInstructions: e.target.value })}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              void store.getState().generateSummary(true);
            }
          }}
        />
      </label>
      <label className="summary-field">
        <input
          type="checkbox"
          data-testid="summary.replace"
          checked={dialog.replaceInstructions}
          onChange={(e) => store.getState().updateSummaryDialog({ replaceInstructions: e.target.checked })}
        />{' '}
        Replace the default prompt instead of adding this as an extra focus
      </label>
      <div className="summary-actions">
        <button
          type="button"
          data-testid="summary.prompt-cancel"
          onClick={() => store.getState().backToChoice()}
        >
          Cancel
        </button>
        <button
          type="button"
          className="primary"
          data-testid="summary.prompt-submit"
          disabled={dialog.customInstructions.trim() === ''}
          onClick={() => void store.getState().generateSummary(true)}
        >
          Summarize
        </button>
      </div>
    </>
  );
}

/** Seconds since `since`, refreshed twice a second while shown. */
function useElapsed(since: number | undefined): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, []);
  return since === undefined ? 0 : Math.max(0, Math.floor((now - since) / 1000));
}

function phaseText(progress: SummaryDialogState['progress'], summarizerLabel: string | undefined): string {
  switch (progress.step) {
    case 'preparing':
      return 'Preparing the entries…';
    case 'waiting':
      return `Waiting for ${progress.model ?? summarizerLabel ?? 'the model'}…`;
    case 'retrying':
      return progress.retry
        ? `Retrying (${progress.retry.attempt} of ${progress.retry.maxAttempts}) in ${(progress.retry.delayMs / 1000).toLocaleString()} s: ${progress.retry.message}`
        : 'Retrying…';
    case 'finishing':
      return 'Finishing…';
    case 'generating':
      return `Generating with ${progress.model ?? summarizerLabel ?? 'the model'}…`;
    default:
      return 'Starting…';
  }
}

function GeneratingStep({ dialog }: { dialog: SummaryDialogState }) {
  const store = useAppStore();
  const { progress } = dialog;
  const label = useApp((s) => s.info?.summarizers.find((x) => x.id === dialog.summarizerId)?.label);
  const elapsed = useElapsed(progress.startedAt);
  const stream = useRef<HTMLPreElement>(null);
  // Follows the newest text unless the user scrolled up to read; scrolling back down follows again.
  const following = useRef(true);
  useLayoutEffect(() => {
    const element = stream.current;
    if (element && following.current) element.scrollTop = element.scrollHeight;
  }, [progress.text]);
  const percent = progress.fraction !== undefined ? Math.round(progress.fraction * 100) : undefined;
  return (
    <div className="summary-generating" data-testid="summary.generating" aria-busy="true">
      <div className="summary-status" role="status">
        <span className="spinner" aria-hidden="true" />
        <span data-testid="summary.phase" data-step={progress.step ?? 'starting'}>
          {phaseText(progress, label)}
        </span>
      </div>
      <div className="summary-meter" data-testid="summary.meter">
        {(progress.tokens ?? 0).toLocaleString()} tokens · {elapsed} s
        {percent !== undefined && progress.step !== 'generating' && (
          <span data-testid="summary.percent"> · {percent}%</span>
        )}
      </div>
      {progress.text && (
        <pre
          className="summary-stream"
          data-testid="summary.stream"
          ref={stream}
          onScroll={(event) => {
            const element = event.currentTarget;
            following.current = element.scrollTop + element.clientHeight >= element.scrollHeight - 8;
          }}
        >
          {progress.text}
        </pre>
      )}
      <div className="summary-actions">
        <button
          type="button"
          data-testid="summary.abort"
          onClick={() => void store.getState().abortSummary()}
        >
          Abort (Esc)
        </button>
      </div>
    </div>
  );
}

const LEFT_OUT_TEXT: Record<LeftOutReason, (entries: number, tokens: number) => string> = {
  budget: (entries, tokens) =>
    `${entries.toLocaleString()} older ${entries === 1 ? 'entry' : 'entries'} (≈ ${tokens.toLocaleString()} tokens) did not fit the model's window; the newest were kept`,
  'context-edit': (entries) =>
    `${entries.toLocaleString()} ${entries === 1 ? 'message' : 'messages'} omitted from the model's context by a context edit`,
  'tool-result': (entries) =>
    `${entries.toLocaleString()} tool ${entries === 1 ? 'result' : 'results'}: the calls that made them say what was done`,
  'no-content': (entries) =>
    `${entries.toLocaleString()} ${entries === 1 ? 'entry' : 'entries'} without conversation (labels, model and settings changes)`,
};

/** What was selected beside what the summariser read: the honest account of a summary. */
function PreviewInfo({ preview }: { preview: SummaryPreview }) {
  const { sent, selection } = preview;
  const selectedText = `${preview.selectedCount.toLocaleString()} ${preview.selectedCount === 1 ? 'entry' : 'entries'}${
    selection
      ? `${selection.branches > 1 ? ` on ${selection.branches} branches` : ''}${
          selection.gaps > 0
            ? `, ${selection.gaps} ${selection.gaps === 1 ? 'gap' : 'gaps'} of unselected entries`
            : ''
        }${selection.onCurrentPath ? ', all on the current path' : ''}`
      : ''
  }`;
  const added =
    selection && selection.addedCalls + selection.addedResults > 0
      ? [
          selection.addedCalls > 0
            ? `${selection.addedCalls} tool ${selection.addedCalls === 1 ? 'call' : 'calls'} of selected results`
            : '',
          selection.addedResults > 0
            ? `${selection.addedResults} tool ${selection.addedResults === 1 ? 'result' : 'results'} of selected calls`
            : '',
        ]
          .filter(Boolean)
          .join(' and ')
      : '';
  return (
    <dl className="summary-sent" data-testid="summary.preview-info">
      <dt>Selected</dt>
      <dd data-testid="summary.selected">{selectedText}</dd>
      {added && (
        <>
          <dt>Added</dt>
          <dd data-testid="summary.added">{added}, so each call is read with its result</dd>
        </>
      )}
      <dt>Sent</dt>
      <dd data-testid="summary.sent">
        {sent
          ? `${sent.entries.toLocaleString()} ${sent.entries === 1 ? 'entry' : 'entries'}, ≈ ${sent.tokens.toLocaleString()} tokens${
              sent.budget !== null
                ? ` of a ${sent.budget.toLocaleString()}-token budget`
                : ' (read whole, no model)'
            }`
          : `${preview.entryCount.toLocaleString()} entries (≈ ${preview.tokenEstimate.toLocaleString()} tokens)`}
      </dd>
      {sent && sent.leftOut.length > 0 && (
        <>
          <dt>Left out</dt>
          <dd data-testid="summary.left-out">
            {sent.leftOut.map((item) => LEFT_OUT_TEXT[item.reason](item.entries, item.tokens)).join('; ')}
          </dd>
        </>
      )}
    </dl>
  );
}

function PreviewStep({ dialog }: { dialog: SummaryDialogState }) {
  const store = useAppStore();
  const preview = dialog.preview;
  if (!preview) return null;
  return (
    <>
      <PreviewInfo preview={preview} />
      <p className="summary-lead">
        Edit the text if you like; nothing is written until you press Write summary.
      </p>
      {preview.notice && (
        <p className="notice warn" data-testid="summary.notice">
          {preview.notice}
        </p>
      )}
      <textarea
        className="summary-edit"
        autoFocus
        aria-label="Summary text"
        data-testid="summary.text"
        value={dialog.text}
        onChange={(e) => store.getState().updateSummaryDialog({ text: e.target.value })}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            void store.getState().applySummary();
          }
        }}
      />
      <div className="summary-actions">
        <button type="button" data-testid="summary.back" onClick={() => store.getState().backToChoice()}>
          Back
        </button>
        <button
          type="button"
          className="primary"
          data-testid="summary.apply"
          disabled={dialog.text.trim() === ''}
          onClick={() => void store.getState().applySummary()}
        >
          Write summary
        </button>
      </div>
    </>
  );
}

export function SummaryDialog() {
  const store = useAppStore();
  const dialog = useApp((s) => s.summaryDialog);
  useEscape(dialog !== null, () => store.getState().summaryEscape());
  if (!dialog) return null;
  const title =
    dialog.kind === 'navigate'
      ? dialog.step === 'preview'
        ? 'Branch summary: preview'
        : 'Summarize the branch you are leaving?'
      : dialog.step === 'preview'
        ? 'Selection summary: preview'
        : 'Summarize selection';
  return (
    <div className="dialog-backdrop">
      <div
        className="dialog summary-dialog"
        role="dialog"
        aria-modal="true"
        aria-label={title}
        data-testid="dialog.summary"
        data-step={dialog.step}
        tabIndex={-1}
        ref={focusDialog}
        onKeyDown={(e) => e.stopPropagation()}
      >
        <h2>{title}</h2>
        <div className="summary-body">
          {dialog.error && (
            <p className="notice error" role="alert" data-testid="summary.error">
              {dialog.error}
            </p>
          )}
          {dialog.step === 'choice' && <ChoiceStep dialog={dialog} />}
          {dialog.step === 'prompt' && <PromptStep dialog={dialog} />}
          {dialog.step === 'generating' && <GeneratingStep dialog={dialog} />}
          {dialog.step === 'preview' && <PreviewStep dialog={dialog} />}
        </div>
        <div className="dialog-foot">
          <span />
          <span>
            <kbd>Esc</kbd>{' '}
            {dialog.step === 'choice'
              ? 'back to the tree'
              : dialog.step === 'generating'
                ? 'abort (nothing is written)'
                : 'back to the choices'}
          </span>
        </div>
      </div>
    </div>
  );
}
