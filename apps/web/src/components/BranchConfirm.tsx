// Asks before /branch writes a new session file: which message it branches from, what the new file
// holds, and that the original is left as it is. Enter (or "Create branch") writes; Esc, "Cancel"
// or a click outside writes nothing.

import { useEffect, useRef } from 'react';
import { useApp, useAppStore } from '../store/context';

export function BranchConfirm() {
  const store = useAppStore();
  const entryId = useApp((s) => s.branchConfirmId);
  const text = useApp((s) =>
    s.branchConfirmId ? (s.treeView?.tree.get(s.branchConfirmId)?.text ?? '') : '',
  );
  const createRef = useRef<HTMLButtonElement>(null);
  // The default action has the focus: Enter creates the branch, Tab reaches Cancel.
  useEffect(() => {
    if (entryId) createRef.current?.focus();
  }, [entryId]);
  if (!entryId) return null;
  const message = text.replace(/^user:\s*/, '');
  const cancel = () => store.getState().cancelBranch();
  const create = () => void store.getState().branchFrom(entryId);
  return (
    <div className="dialog-backdrop" onClick={cancel}>
      <div
        className="dialog dialog-narrow"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="branch-confirm-title"
        aria-describedby="branch-confirm-text"
        data-testid="dialog.branch-confirm"
        onClick={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          e.stopPropagation();
          if (e.key === 'Escape') {
            e.preventDefault();
            cancel();
          }
        }}
      >
        <h2 id="branch-confirm-title">Branch into a new session?</h2>
        <div className="dialog-body" id="branch-confirm-text">
          <p>
            A new session file is written beside this one, with the conversation up to the message before{' '}
            <q className="branch-quote">{message}</q>; the message goes into the composer. This session’s file
            is not changed.
          </p>
        </div>
        <div className="dialog-actions">
          <button type="button" data-testid="branch.cancel" onClick={cancel}>
            Cancel
          </button>
          <button
            type="button"
            className="primary"
            data-testid="branch.confirm"
            ref={createRef}
            onClick={create}
          >
            Create branch
          </button>
        </div>
      </div>
    </div>
  );
}
