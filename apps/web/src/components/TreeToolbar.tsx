// Filter modes, search with match stepping, view switch, the branch's files and the compare view, and
// the /branch and /fork actions.

import { FILTER_MODES, type FilterMode } from '@canopy/session-core';
import { countOf } from '../lib/format';
import { ArchiveControls } from './ArchiveControls';
import { keyCommand } from '../lib/keymap';
import { useApp, useAppStore } from '../store/context';
import { selectedIdOf, type ViewMode } from '../store/appStore';
import { filterModeOf } from '../store/selectors';

const FILTER_LABELS: Record<FilterMode, { label: string; key: string }> = {
  default: { label: 'Default', key: 'Alt+D' },
  'no-tools': { label: 'No tools', key: 'Alt+T' },
  'user-only': { label: 'User', key: 'Alt+U' },
  'labeled-only': { label: 'Labeled', key: 'Alt+L' },
  all: { label: 'All', key: 'Alt+A' },
};

const VIEWS: { view: ViewMode; label: string }[] = [
  { view: 'outline', label: 'Outline' },
  { view: 'split', label: 'Both' },
  { view: 'graph', label: 'Graph' },
];

export function TreeToolbar() {
  const store = useAppStore();
  const mode = useApp(filterModeOf);
  const query = useApp((s) => s.treeView?.query ?? '');
  const count = useApp((s) => s.treeView?.rows.length ?? 0);
  const view = useApp((s) => s.view);
  const busy = useApp((s) => s.busy);
  const doubleEscape = useApp((s) => s.settings.doubleEscapeAction);

  const branch = () => {
    const state = store.getState();
    const id = selectedIdOf(state);
    const entry = id ? state.treeView?.tree.get(id) : undefined;
    if (doubleEscape === 'tree') {
      // With doubleEscapeAction "tree", /branch works on the tree itself: the selected user message.
      if (entry && entry.type === 'message' && entry.role === 'user') state.requestBranch(entry.id);
      else state.toast('Select a user message in the tree to branch from it');
      return;
    }
    state.openBranchPicker(true);
  };

  return (
    <div className="tree-toolbar">
      <div className="segmented" role="group" aria-label="Filter" data-testid="filter.mode" data-mode={mode}>
        {FILTER_MODES.map((m) => (
          <button
            key={m}
            type="button"
            aria-pressed={m === mode}
            data-testid={`filter.${m}`}
            title={`${FILTER_LABELS[m].label} (${FILTER_LABELS[m].key}; Ctrl+O cycles)`}
            onClick={() => store.getState().setFilter(m)}
          >
            {FILTER_LABELS[m].label}
          </button>
        ))}
      </div>
      <div className="search-box">
        <input
          id="tree-search"
          type="search"
          data-testid="search.input"
          placeholder="Type to search the tree…"
          aria-label="Search the tree"
          value={query}
          onChange={(e) => store.getState().setQuery(e.target.value)}
          onKeyDown={(e) => {
            // The filter shortcuts work while typing a search too (and must not reach the browser).
            const command = keyCommand(e);
            if (
              command?.kind === 'selector' &&
              (command.action.type === 'setFilter' || command.action.type === 'cycleFilter')
            ) {
              e.preventDefault();
              e.stopPropagation();
              store.getState().dispatch(command.action);
              return;
            }
            if (e.key === 'Enter') {
              e.preventDefault();
              store.getState().stepMatch(e.shiftKey ? -1 : 1);
            } else if (e.key === 'Escape') {
              e.preventDefault();
              if (query) store.getState().setQuery('');
              document.getElementById('tree-outline')?.focus();
            } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
              e.preventDefault();
              store.getState().dispatch({ type: 'move', delta: e.key === 'ArrowDown' ? 1 : -1 });
            }
            e.stopPropagation();
          }}
        />
        {query && (
          <span className="search-count" data-testid="search.count">
            {countOf(count, 'match', 'matches')}
          </span>
        )}
        <button
          type="button"
          data-testid="search.prev"
          disabled={!query || count === 0}
          title="Previous match (Shift+Enter)"
          aria-label="Previous match"
          onClick={() => store.getState().stepMatch(-1)}
        >
          ↑
        </button>
        <button
          type="button"
          data-testid="search.next"
          disabled={!query || count === 0}
          title="Next match (Enter in the search box)"
          aria-label="Next match"
          onClick={() => store.getState().stepMatch(1)}
        >
          ↓
        </button>
      </div>
      <ArchiveControls />
      <div className="toolbar-group">
        <button
          type="button"
          data-testid="action.files"
          onClick={() => void store.getState().openBranchFiles(null)}
          title="The files the current branch changed, from its tool calls"
        >
          Files
        </button>
        <button
          type="button"
          data-testid="action.compare"
          onClick={() => void store.getState().compareSelected()}
          title="Compare the selected entry's path with the current leaf's, or the two selected entries (Shift+C)"
        >
          Compare
        </button>
      </div>
      <div className="toolbar-group">
        <button
          type="button"
          data-testid="action.branch"
          disabled={busy !== null}
          onClick={branch}
          title="/branch: a new session file from a user message"
        >
          Branch…
        </button>
        <button
          type="button"
          data-testid="action.branch-list"
          disabled={busy !== null}
          onClick={() => store.getState().openBranchPicker(true)}
          title="Pick the user message to branch from in a list"
        >
          From message…
        </button>
        <button
          type="button"
          data-testid="action.fork"
          disabled={busy !== null}
          onClick={() => void store.getState().fork()}
          title="/fork: copy the whole session into a new file"
        >
          Fork
        </button>
      </div>
      <div className="segmented" role="group" aria-label="View" data-testid="view.mode">
        {VIEWS.map(({ view: v, label }) => (
          <button
            key={v}
            type="button"
            aria-pressed={v === view}
            data-testid={`view.${v}`}
            onClick={() => store.getState().setView(v)}
          >
            {label}
          </button>
        ))}
      </div>
    </div>
  );
}
