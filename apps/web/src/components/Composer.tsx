// The composer: the text prefilled by a jump to a user message (or custom_message), appendable as a
// new user message under the current leaf. Esc with text in it hands the keyboard back to the tree
// (the text stays); double Escape in an empty composer runs the `doubleEscapeAction` setting, as in
// the terminal.

import { useEffect, useRef } from 'react';
import { useApp, useAppStore } from '../store/context';
import { leafIdOf } from '../store/selectors';

const DOUBLE_ESCAPE_MS = 500;

export function Composer() {
  const store = useAppStore();
  const text = useApp((s) => s.composerText);
  const busy = useApp((s) => s.busy);
  const leafId = useApp(leafIdOf);
  const doubleEscape = useApp((s) => s.settings.doubleEscapeAction);
  const readOnly = useApp((s) => s.session?.item.readOnly);
  // While the snapshot streams in, the leaf is not known yet (it comes with the closing line):
  // nothing is sent under a leaf the page cannot show.
  const streaming = useApp((s) => s.snapshot !== null);
  const lastEscape = useRef(0);
  const focusTick = useApp((s) => s.composerFocusTick);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  // Only requests made while mounted count (not one left over from before the composer appeared).
  const seenTick = useRef(focusTick);

  // A jump to a user message put its text here: bring the composer into view, focused, caret at
  // the end, ready to edit and send.
  useEffect(() => {
    const input = inputRef.current;
    if (focusTick === seenTick.current || !input) return;
    seenTick.current = focusTick;
    input.scrollIntoView({ block: 'nearest' });
    input.focus({ preventScroll: true });
    input.setSelectionRange(input.value.length, input.value.length);
  }, [focusTick]);

  return (
    <div className="composer" data-testid="composer">
      <textarea
        ref={inputRef}
        data-testid="composer.input"
        aria-label="Message to append under the current leaf"
        placeholder={
          readOnly
            ? `Read-only: ${readOnly}`
            : 'Write a user message to append under the current leaf (Ctrl+Enter sends)…'
        }
        disabled={readOnly !== undefined}
        value={text}
        onChange={(e) => store.getState().setComposerText(e.target.value)}
        onKeyDown={(e) => {
          e.stopPropagation();
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            void store.getState().sendComposer();
          } else if (e.key === 'Escape') {
            e.preventDefault();
            const now = Date.now();
            if (text === '' && now - lastEscape.current < DOUBLE_ESCAPE_MS) {
              lastEscape.current = 0;
              if (doubleEscape === 'tree') document.getElementById('tree-outline')?.focus();
              else if (doubleEscape === 'branch') store.getState().openBranchPicker(true);
            } else {
              lastEscape.current = now;
              // With text (a jump put a message here): back to the tree, the text kept for later.
              if (text !== '') document.getElementById('tree-outline')?.focus();
              else (e.target as HTMLTextAreaElement).blur();
            }
          }
        }}
      />
      <div className="composer-row">
        <span>
          {streaming ? (
            <span data-testid="composer.leaf">Appends under the leaf, known once the session has loaded</span>
          ) : (
            <span data-testid="composer.leaf">
              Appends under the leaf <span className="mono">{leafId ?? '(new root)'}</span>
            </span>
          )}
        </span>
        <button
          type="button"
          className="primary"
          data-testid="composer.send"
          disabled={!text.trim() || busy !== null || readOnly !== undefined || streaming}
          title={readOnly}
          onClick={() => void store.getState().sendComposer()}
        >
          Append message
        </button>
      </div>
    </div>
  );
}
