// The toolbar's archive controls (docs/archive-and-family.md#archive): what the folded view hides,
// the switch that shows archived branches dimmed (Alt+R), how many search matches are in archived
// branches, and the Tidy list.

import { archivedCounts, archivedMatchCount } from '@canopy/session-core';
import { useMemo } from 'react';
import { countOf } from '../lib/format';
import { useApp, useAppStore } from '../store/context';
import { treeVersionOf } from '../store/selectors';

export function ArchiveControls() {
  const store = useAppStore();
  const tree = useApp((s) => s.treeView?.tree ?? null);
  const version = useApp(treeVersionOf);
  const revealed = useApp((s) => s.treeView?.tree.archivedRevealed ?? false);
  const query = useApp((s) => s.treeView?.query ?? '');
  // O(entries), once per tree version (and query): not per render.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const counts = useMemo(() => (tree ? archivedCounts(tree) : { branches: 0, entries: 0 }), [tree, version]);
  const archivedMatches = useMemo(
    () => (tree && query.trim() ? archivedMatchCount(tree, query) : 0),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [tree, version, query],
  );

  return (
    <div className="toolbar-group archive-controls" data-testid="archive.controls">
      {counts.branches > 0 && (
        <button
          type="button"
          aria-pressed={revealed}
          data-testid="archive.reveal"
          data-hidden-entries={counts.entries}
          title={`${revealed ? 'Fold' : 'Show'} the archived branches (Alt+R): ${countOf(
            counts.branches,
            'branch',
            'branches',
          )}, ${countOf(counts.entries, 'entry', 'entries')}${revealed ? '' : ' hidden'}`}
          onClick={() => store.getState().toggleArchivedRevealed()}
        >
          {revealed
            ? `Archived shown (${counts.entries})`
            : `${countOf(counts.entries, 'entry', 'entries')} archived`}
        </button>
      )}
      {query.trim() !== '' && archivedMatches > 0 && !revealed && (
        <span className="search-count" data-testid="search.archived-count">
          +{archivedMatches} in archived branches
        </span>
      )}
      <button
        type="button"
        data-testid="action.tidy"
        title="Branches worth archiving: nothing is archived until you click"
        onClick={() => void store.getState().openTidy()}
      >
        Tidy…
      </button>
    </div>
  );
}
