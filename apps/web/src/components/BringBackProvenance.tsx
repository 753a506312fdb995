// A bring-back entry's provenance in the detail panel (docs/bring-back.md#provenance): the entries
// it was brought from, as links that select them, the file when it was another, and the undo (a
// context_edit in pi 1.x files) or the reason there is none.

import { useEffect } from 'react';
import { useApp, useAppStore } from '../store/context';
import { BRING_BACK_ROW_PREFIX } from '../store/slices/bringBack';

const FORM_NAMES = {
  excerpt: 'an excerpt',
  condensed: 'a condensed rewrite',
  summary: 'a summary with its files',
};

export function BringBackProvenance({
  entryId,
  type,
  text,
}: {
  entryId: string;
  type: string;
  text: string;
}) {
  const store = useAppStore();
  const isBringBack = type === 'custom_message' && text.startsWith(BRING_BACK_ROW_PREFIX);
  const info = useApp((s) => (isBringBack ? s.bringBackInfo[entryId] : undefined));
  const tree = useApp((s) => s.treeView?.tree ?? null);
  const readOnly = useApp((s) => s.session?.item.readOnly ?? false);
  useEffect(() => {
    if (isBringBack) void store.getState().loadBringBackInfo(entryId);
  }, [isBringBack, entryId, store]);
  if (!isBringBack || !info) return null;
  return (
    <div data-testid="detail.bringback">
      <div className="section-title">Brought from</div>
      <p className="help">
        {FORM_NAMES[info.form]} of {info.sourceEntryIds.length.toLocaleString()}{' '}
        {info.sourceEntryIds.length === 1 ? 'entry' : 'entries'}
        {info.sameFile ? ' of this session' : ` of ${info.sourceFile}`}.
      </p>
      <ul className="bringback-sources">
        {info.sourceEntryIds.map((id) => {
          const source = info.sameFile ? tree?.get(id) : undefined;
          return (
            <li key={id}>
              {source ? (
                <button
                  type="button"
                  className="link"
                  data-testid="detail.bringback-source"
                  data-entry-id={id}
                  onClick={() => store.getState().select(id)}
                >
                  {source.text.slice(0, 80) || id}
                </button>
              ) : (
                <span className="mono">{id}</span>
              )}
            </li>
          );
        })}
      </ul>
      {info.undo.possible && !readOnly ? (
        <button
          type="button"
          data-testid="detail.bringback-undo"
          title="Appends a context_edit that leaves this message out of what the model is sent on this branch"
          onClick={() => void store.getState().undoBringBack(entryId)}
        >
          Undo bring-back
        </button>
      ) : (
        <p className="help" data-testid="detail.bringback-no-undo">
          {info.undo.reason ?? 'Undo is not possible in a file Canopy does not write to.'}
        </p>
      )}
    </div>
  );
}
