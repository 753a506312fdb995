// "Bring into the current branch" (docs/bring-back.md): the selection's entries in one of three
// forms (excerpt, condensed by the summariser within a budget, summary with the files), each
// previewed and editable, its token count shown, written as one entry under the leaf.

import type { BringBackForm } from '@canopy/protocol';
import { useApp, useAppStore } from '../store/context';
import type { BringBackDialogState } from '../store/slices/bringBack';
import { focusDialog, useEscape } from './useEscape';

const FORMS: ReadonlyArray<{ form: BringBackForm; label: string; help: string }> = [
  {
    form: 'excerpt',
    label: 'Excerpt',
    help: 'The entries as text, in order: tool calls with their results, thinking left out, branches and gaps marked.',
  },
  {
    form: 'condensed',
    label: 'Condensed',
    help: 'The excerpt rewritten shorter by the summariser, within the token budget you set.',
  },
  {
    form: 'summary',
    label: 'Summary + files',
    help: 'The selection summary, with the files read and modified.',
  },
];

const tokensOf = (text: string) => Math.ceil(text.length / 4);

function FormBody({ dialog }: { dialog: BringBackDialogState }) {
  const store = useAppStore();
  const state = dialog.forms[dialog.form];
  const actions = store.getState();
  const preview = state.preview;
  const needsButton = dialog.form !== 'excerpt' || preview === null;
  return (
    <>
      {dialog.form !== 'summary' && (
        <label className="summary-field">
          {dialog.form === 'excerpt' ? 'Keep within' : 'Condense to about'}{' '}
          <input
            type="number"
            min={50}
            step={100}
            value={dialog.tokenBudget}
            data-testid="bringback.budget"
            onChange={(e) => actions.setBringBackBudget(Number(e.target.value))}
          />{' '}
          tokens
        </label>
      )}
      {(needsButton || dialog.form === 'excerpt') && (
        <div className="summary-actions">
          <button
            type="button"
            data-testid="bringback.preview"
            disabled={state.loading}
            onClick={() => void actions.previewBringBack()}
          >
            {preview ? 'Preview again' : 'Preview'}
          </button>
          {state.loading && (
            <>
              <span className="spinner" aria-hidden="true" />
              <span role="status" data-testid="bringback.loading">
                {dialog.form === 'excerpt' ? 'Reading the entries…' : 'The summariser is writing…'}
              </span>
              {dialog.form !== 'excerpt' && (
                <button
                  type="button"
                  data-testid="bringback.abort"
                  onClick={() => void actions.abortBringBackPreview()}
                >
                  Abort
                </button>
              )}
            </>
          )}
        </div>
      )}
      {state.error && (
        <p className="notice error" role="alert" data-testid="bringback.error">
          {state.error}
        </p>
      )}
      {preview && !preview.aborted && (
        <>
          <p className="help" data-testid="bringback.facts">
            {preview.sourceEntryIds.length.toLocaleString()} entries from {preview.branches.toLocaleString()}{' '}
            {preview.branches === 1 ? 'branch' : 'branches'}
            {preview.addedCalls + preview.addedResults > 0 &&
              `; ${preview.addedCalls + preview.addedResults} added to keep tool calls with their results`}
            {preview.gaps > 0 && `; ${preview.gaps} ${preview.gaps === 1 ? 'gap' : 'gaps'} marked`}
          </p>
          {preview.notice && (
            <p className="notice warn" data-testid="bringback.notice">
              {preview.notice}
            </p>
          )}
          <label className="summary-field column">
            What the model will get (edit freely):
            <textarea
              className="summary-edit"
              data-testid="bringback.text"
              value={state.text}
              rows={14}
              onChange={(e) => actions.editBringBackText(e.target.value)}
            />
          </label>
        </>
      )}
    </>
  );
}

export function BringBackDialog() {
  const store = useAppStore();
  const dialog = useApp((s) => s.bringBackDialog);
  useEscape(dialog !== null, () => store.getState().closeBringBack());
  if (!dialog) return null;
  const state = dialog.forms[dialog.form];
  const actions = store.getState();
  const canWrite =
    state.preview !== null && !state.preview.aborted && state.text.trim() !== '' && !dialog.writing;
  return (
    <div className="dialog-backdrop">
      <div
        className="dialog summary-dialog bringback-dialog"
        role="dialog"
        aria-modal="true"
        aria-label="Bring into the current branch"
        data-testid="dialog.bringback"
        data-form={dialog.form}
        tabIndex={-1}
        ref={focusDialog}
        onKeyDown={(e) => e.stopPropagation()}
      >
        <h2>Bring into the current branch</h2>
        <div className="summary-body">
          <p className="summary-lead">
            {dialog.entryIds.length.toLocaleString()} selected{' '}
            {dialog.entryIds.length === 1 ? 'entry' : 'entries'} become one message under the current leaf,
            shown in the conversation and sent to the model. Nothing is written until you choose Bring in.
          </p>
          <div className="summary-choices" role="tablist" aria-label="Form">
            {FORMS.map(({ form, label, help }) => (
              <button
                key={form}
                type="button"
                role="tab"
                aria-selected={dialog.form === form}
                className={dialog.form === form ? 'primary' : undefined}
                title={help}
                data-testid={`bringback.form-${form}`}
                onClick={() => actions.setBringBackForm(form)}
              >
                {label}
              </button>
            ))}
          </div>
          <p className="help">{FORMS.find((f) => f.form === dialog.form)?.help}</p>
          <FormBody dialog={dialog} />
          {dialog.error && (
            <p className="notice error" role="alert" data-testid="bringback.write-error">
              {dialog.error}
            </p>
          )}
          <div className="summary-actions">
            <span className="help" data-testid="bringback.tokens">
              {state.preview && !state.preview.aborted
                ? `≈ ${tokensOf(state.text).toLocaleString()} tokens`
                : ''}
            </span>
            <button type="button" data-testid="bringback.cancel" onClick={() => actions.closeBringBack()}>
              Cancel
            </button>
            <button
              type="button"
              className="primary"
              data-testid="bringback.write"
              disabled={!canWrite}
              onClick={() => void actions.writeBringBack()}
            >
              {dialog.writing ? 'Bringing in…' : 'Bring in'}
            </button>
          </div>
        </div>
        <div className="dialog-foot">
          <span />
          <span>
            <kbd>Esc</kbd> close (nothing is written)
          </span>
        </div>
      </div>
    </div>
  );
}
