// The Tidy list (docs/archive-and-family.md#tidy): branches off the active path worth archiving,
// each with why and how big, and its own Archive button. Nothing is archived without a click;
// archiving never deletes (Alt+R shows archived branches again, Restore brings one back).

import { countOf } from '../lib/format';
import { useApp, useAppStore } from '../store/context';

const REASONS = {
  unanswered: 'no answered reply in it',
  summarized: 'a branch summary covers it',
} as const;

export function TidyDialog() {
  const store = useAppStore();
  const tidy = useApp((s) => s.tidy);
  if (!tidy) return null;
  const close = () => store.getState().closeTidy();
  const list = tidy.suggestions;
  return (
    <div className="dialog-backdrop" onClick={close}>
      <div
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="tidy-title"
        data-testid="dialog.tidy"
        onClick={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          e.stopPropagation();
          if (e.key === 'Escape') {
            e.preventDefault();
            close();
          }
        }}
      >
        <h2 id="tidy-title">Tidy the tree</h2>
        <div className="dialog-body">
          <p>
            Branches off the current path that you may not need. Archiving hides a branch behind one row; the
            file keeps every line, and pi and oh-my-pi read the same conversation.
          </p>
          {list === null ? (
            <p data-testid="tidy.loading">Looking for branches…</p>
          ) : list.suggestions.length === 0 ? (
            <p data-testid="tidy.empty">Nothing to tidy: every branch off the path holds an answer.</p>
          ) : (
            <ul className="tidy-list">
              {list.suggestions.map((s) => (
                <li
                  key={s.targetId}
                  data-testid="tidy.item"
                  data-entry-id={s.targetId}
                  data-reason={s.reason}
                >
                  <button
                    type="button"
                    className="link tidy-text"
                    title="Show it in the tree"
                    onClick={() => store.getState().select(s.targetId)}
                  >
                    {s.text}
                  </button>
                  <span className="tidy-why">
                    {countOf(s.entries, 'entry', 'entries')}, {REASONS[s.reason]}
                  </span>
                  <button
                    type="button"
                    data-testid="tidy.archive"
                    onClick={() => void store.getState().setArchived(s.targetId, true)}
                  >
                    Archive
                  </button>
                </li>
              ))}
            </ul>
          )}
          {list && list.unknownTargets.length > 0 && (
            <p className="tidy-note" data-testid="tidy.unknown">
              {countOf(list.unknownTargets.length, 'archive record names', 'archive records name')} an entry
              this file does not have: ignored.
            </p>
          )}
        </div>
        <div className="dialog-actions">
          <button type="button" data-testid="tidy.close" onClick={close}>
            Close
          </button>
        </div>
      </div>
    </div>
  );
}
