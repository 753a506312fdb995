// The multi-entry selection (graph rectangle, shift/ctrl-clicks in the outline): how many entries,
// about how many tokens, and "Summarize selection". Esc or Clear empties it.

import { MAX_SUMMARY_ENTRIES } from '@canopy/protocol/values';
import { useMemo } from 'react';
import { useApp, useAppStore } from '../store/context';
import { treeOf, treeVersionOf } from '../store/selectors';

/** Characters per token, the estimate the summarisers use too. */
const CHARS_PER_TOKEN = 4;

export function SelectionBar() {
  const store = useAppStore();
  const selection = useApp((s) => s.multiSelection);
  const tree = useApp(treeOf);
  const treeVersion = useApp(treeVersionOf);
  const tokens = useMemo(() => {
    void treeVersion;
    let chars = 0;
    for (const id of selection) chars += tree?.get(id)?.text.length ?? 0;
    return Math.ceil(chars / CHARS_PER_TOKEN);
  }, [selection, tree, treeVersion]);
  if (selection.size === 0) return null;
  const count = selection.size;
  return (
    <div className="selection-bar" role="region" aria-label="Selected entries" data-testid="selection.bar">
      <span data-testid="selection.count">
        {count.toLocaleString()} {count === 1 ? 'entry' : 'entries'} selected
      </span>
      <span className="help" data-testid="selection.tokens" title="Estimated from the row texts">
        ≈ {tokens.toLocaleString()} tokens
      </span>
      {count > MAX_SUMMARY_ENTRIES && (
        <span className="help">the summary will cover the newest {MAX_SUMMARY_ENTRIES.toLocaleString()}</span>
      )}
      <button
        type="button"
        className="primary"
        data-testid="selection.summarize"
        onClick={() => store.getState().openSummaryDialog({ kind: 'selection' })}
      >
        Summarize selection
      </button>
      <button
        type="button"
        data-testid="selection.bring-back"
        title="Bring these entries into the branch you continue on, as one message"
        onClick={() => store.getState().openBringBack([...selection])}
      >
        Bring into the current branch
      </button>
      {count === 2 && (
        <button
          type="button"
          data-testid="selection.compare"
          title="Compare the two paths from where they split"
          onClick={() => {
            const [a, b] = [...selection] as [string, string];
            void store.getState().openCompare(a, b);
          }}
        >
          Compare
        </button>
      )}
      <button
        type="button"
        data-testid="selection.clear"
        onClick={() => store.getState().clearMultiSelection()}
      >
        Clear (Esc)
      </button>
    </div>
  );
}
