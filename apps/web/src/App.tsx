import { useEffect, useRef, type CSSProperties } from 'react';
import { BranchConfirm } from './components/BranchConfirm';
import { BranchPicker } from './components/BranchPicker';
import { EntryMenu } from './components/EntryMenu';
import { TidyDialog } from './components/TidyDialog';
import { Composer } from './components/Composer';
import { DetailPanel } from './components/DetailPanel';
import { usePaintedOnceReady } from './components/graph/afterPaint';
import { GraphView } from './components/graph/GraphView';
import { OutlineView } from './components/OutlineView';
import { BringBackDialog } from './components/BringBackDialog';
import { CompareView } from './components/CompareView';
import { BranchFilesView, FileLensView } from './components/FilesReport';
import { SelectionBar } from './components/SelectionBar';
import { SessionBrowser } from './components/SessionBrowser';
import { SettingsDialog } from './components/SettingsDialog';
import { SummaryDialog } from './components/SummaryDialog';
import { Splitter } from './components/Splitter';
import { TopBar } from './components/TopBar';
import { TreeToolbar } from './components/TreeToolbar';
import { usePrepareRowsWhenIdle } from './components/usePrepareRowsWhenIdle';
import { useTreeKeys } from './components/useTreeKeys';
import { filterTag } from '@canopy/session-core';
import { parseDeepLink } from './lib/deepLink';
import { countOf, formatCount } from './lib/format';
import { MAX_DETAIL_WIDTH, MAX_SPLIT_RATIO, MIN_DETAIL_WIDTH, MIN_SPLIT_RATIO } from './layout/panes';
import { LiveSocket } from './net/socket';
import { useApp, useAppStore } from './store/context';
import type { SnapshotProgress } from './store/live';

/**
 * How far a snapshot streaming in is: by nodes when its head said how many (the server had the
 * session open), else by the bytes of the file the server has read.
 */
function snapshotProgressText(snapshot: SnapshotProgress | null): string | null {
  if (!snapshot) return null;
  if (snapshot.total !== null)
    return `loading, ${formatCount(Math.max(0, snapshot.total - snapshot.received))} more…`;
  const percent = snapshot.bytes > 0 ? Math.floor((100 * snapshot.read) / snapshot.bytes) : 0;
  return `loading, ${percent}% of the file read…`;
}

/** Every key of the tree (docs/tree-and-context.md#keys), as the keys panel lists them. */
const TREE_KEYS: readonly (readonly [string, string])[] = [
  ['↑ / ↓', 'move (wrapping)'],
  ['← / → · PgUp / PgDn', 'a page up / down'],
  ['Home / End', 'first / last row'],
  ['Ctrl+← · Alt+←', 'fold the branch segment at the selection, or go up to the previous segment start'],
  ['Ctrl+→ · Alt+→', 'unfold the selected row, or go down to the next segment start'],
  ['Enter', 'jump here (move the leaf)'],
  ['Shift+L', 'edit the label'],
  ['Shift+T', 'show / hide label times'],
  ['Ctrl+X', 'copy the selected message’s text'],
  ['Shift+A', 'archive the branch under the selection, or restore the archived one'],
  ['Alt+R', 'show / fold the archived branches'],
  ['Shift+C', 'compare the selected entry with the leaf, or the two selected entries'],
  ['Ctrl+O · Shift+Ctrl+O', 'cycle the filter forward / back'],
  ['Alt+D / T / U / L / A', 'default, no-tools, user-only, labeled-only, all'],
  ['typing · Backspace', 'search (every word must match)'],
  ['Ctrl+F · F3 / Shift+F3', 'the search box · next / previous match'],
  ['Esc', 'clear the search, the selection of entries, or close (the compare view and file lens too)'],
];

function StatusBar() {
  const treeView = useApp((s) => s.treeView);
  const total = useApp((s) => s.treeView?.tree.size ?? 0);
  // The snapshot still streaming in: the rows on screen are not the whole tree yet.
  const progress = useApp((s) => snapshotProgressText(s.snapshot));
  const issues = useApp((s) => s.session?.issues.length ?? 0);
  const needsMigration = useApp((s) => s.session?.needsMigration ?? false);
  const showLabelTimes = useApp((s) => s.showLabelTimes);
  if (!treeView) return null;
  const position = treeView.rows.length === 0 ? 0 : treeView.selectedIndex + 1;
  return (
    <div className="tree-status" data-testid="tree.status">
      <span data-testid="tree.position">
        ({position}/{treeView.rows.length})<span className="filter-tag">{filterTag(treeView.mode)}</span>
      </span>
      <span>{formatCount(total)} entries</span>
      {progress && (
        <span className="help" data-testid="tree.loading-progress">
          {progress}
        </span>
      )}
      {issues > 0 && (
        <span
          style={{ color: 'var(--warning)' }}
          title="Lines skipped or entries out of place in the file (see the note above the tree)"
        >
          {countOf(issues, 'issue')} while loading
        </span>
      )}
      {needsMigration && <span>legacy format: the first write migrates it (with a backup)</span>}
      {showLabelTimes && <span className="filter-tag">[+label time]</span>}
      <span className="help keys-hint" data-testid="tree.keys">
        <kbd>↑↓</kbd> move <kbd>←→</kbd> page <kbd>Ctrl+←→</kbd> branch <kbd>Enter</kbd> jump{' '}
        <kbd>Shift+L</kbd> label <kbd>Ctrl+O</kbd> filter · type to search
      </span>
      <details className="keys-panel" data-testid="tree.keys-panel">
        <summary>All keys</summary>
        <table>
          <tbody>
            {TREE_KEYS.map(([keys, what]) => (
              <tr key={keys}>
                <td>
                  <kbd>{keys}</kbd>
                </td>
                <td>{what}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}

function TreeViews() {
  const store = useAppStore();
  usePrepareRowsWhenIdle();
  const view = useApp((s) => s.view);
  const ratio = useApp((s) => s.splitRatio);
  const ref = useRef<HTMLDivElement>(null);
  // When a session opens, its first rows are painted in the outline before the graph's first
  // render runs (its layout, viewport, canvas and cards): both in one task were the open's longest.
  const rowsShown = useApp((s) => s.treeView !== null && (s.treeView.rows.length > 0 || s.snapshot === null));
  const graphMayRender = usePaintedOnceReady(rowsShown);
  return (
    <div
      ref={ref}
      className="tree-views"
      data-view={view}
      style={
        view === 'split'
          ? { gridTemplateColumns: `minmax(0, ${ratio}fr) auto minmax(0, ${1 - ratio}fr)` }
          : undefined
      }
    >
      {view !== 'graph' && <OutlineView />}
      {view === 'split' && (
        <Splitter
          label="Outline and graph widths"
          testId="split.tree"
          value={ratio}
          min={MIN_SPLIT_RATIO}
          max={MAX_SPLIT_RATIO}
          step={0.025}
          grow={1}
          valueText={`Outline ${Math.round(ratio * 100)}%`}
          valueAt={(clientX) => {
            const box = ref.current?.getBoundingClientRect();
            return box && box.width > 0 ? (clientX - box.left) / box.width : ratio;
          }}
          onChange={(next) => store.getState().setSplitRatio(next)}
        />
      )}
      {view !== 'outline' &&
        (graphMayRender ? <GraphView /> : <div className="graph-pane" data-testid="tree.graph-pending" />)}
    </div>
  );
}

function TreeArea() {
  const store = useAppStore();
  const sidebarOpen = useApp((s) => s.sidebarOpen);
  const session = useApp((s) => s.session);
  const loading = useApp((s) => s.loading);
  // The first rows show before the last part of a large snapshot is in; the tree is busy till then.
  const streaming = useApp((s) => s.snapshot !== null);
  const loadError = useApp((s) => s.loadError);
  const unauthorized = useApp((s) => s.unauthorized);
  const issues = session?.issues ?? [];
  // The compare view, the file lens and the branch's files take the tree's place (docs/branches.md).
  const fileLensOpen = useApp((s) => s.fileLens !== null);
  const compareShown = useApp((s) => s.compare !== null);
  const compareOpen = useApp((s) => s.fileLens !== null || s.compare !== null || s.branchFiles !== null);
  if (unauthorized && !session) {
    return (
      <main className="tree-area">
        <div className="empty-note notice error" data-testid="auth.required">
          This page has no valid access token. Open the URL that Canopy printed when it started (it ends in{' '}
          <code>?token=…</code>).
        </div>
      </main>
    );
  }
  if (!session) {
    return (
      <main className="tree-area">
        <div className="empty-note" data-testid="tree.none">
          {loading ? (
            'Opening the session…'
          ) : loadError ? (
            <span className="notice error">{loadError}</span>
          ) : sidebarOpen ? (
            'Pick a session on the left to see its tree.'
          ) : (
            <button type="button" onClick={() => store.getState().toggleSidebar()}>
              Show the session list
            </button>
          )}
        </div>
      </main>
    );
  }
  return (
    <main className="tree-area" aria-busy={loading || streaming} data-testid="tree.area">
      {unauthorized && (
        <div className="notice error" data-testid="auth.required">
          The server no longer accepts this page’s access token (it was probably restarted). Open the new URL
          it printed.
        </div>
      )}
      <TreeToolbar />
      {issues.length > 0 && (
        <details className="notice warn" data-testid="session.issues">
          <summary>
            {countOf(issues.length, 'issue')} while loading this file (lines skipped, entries out of place);
            the rest of the file loaded
          </summary>
          <ul>
            {issues.slice(0, 50).map((issue, i) => (
              <li key={i}>
                {issue.message.startsWith('line ') ? issue.message : `line ${issue.line}: ${issue.message}`}
              </li>
            ))}
          </ul>
        </details>
      )}
      {compareOpen ? (
        <div className="compare-area">
          {fileLensOpen ? <FileLensView /> : compareShown ? <CompareView /> : <BranchFilesView />}
        </div>
      ) : (
        <>
          <SelectionBar />
          <TreeViews />
        </>
      )}
      <StatusBar />
    </main>
  );
}

export function App() {
  const store = useAppStore();
  const sidebarOpen = useApp((s) => s.sidebarOpen);
  const branchPickerOpen = useApp((s) => s.branchPickerOpen);
  const sessionId = useApp((s) => s.session?.id ?? null);
  const detailWidth = useApp((s) => s.detailWidth);
  const socketRef = useRef<LiveSocket | null>(null);

  useTreeKeys(store);

  useEffect(() => {
    const socket = new LiveSocket({
      onEvent: (event) => store.getState().handleEvent(event),
      onState: (state, detail) => {
        store.getState().setConnection(state, detail.retryInMs ?? null);
        // A WebSocket refused for a wrong token looks like any other drop; ask the API which it is
        // (a restarted server prints a new token, and the page cannot recover without it).
        if (state === 'reconnecting' && detail.attempt >= 2) void store.getState().checkAccess();
      },
      onReady: (reconnected) => {
        // Rows the server read while the socket was still connecting went to no one: fetch the list
        // again if it was not whole when it came.
        if (!reconnected) {
          if (store.getState().listing) void store.getState().loadSessions();
          return;
        }
        // Events sent while we were away are lost: refetch what is on screen.
        void store.getState().loadSessions();
        void store.getState().reloadSession();
      },
    });
    socketRef.current = socket;
    socket.start();
    // The first requests (the list, info, settings, a deep-linked session) went out as the page
    // started (main.tsx), before this first render.
    const onPopState = () => {
      const next = parseDeepLink(window.location.search);
      const state = store.getState();
      if (next.sessionId && next.sessionId !== state.session?.id)
        void state.openSession(next.sessionId, next.entryId);
      else if (next.sessionId && next.entryId) state.select(next.entryId);
      if (next.sessionId && next.sessionId === state.session?.id) {
        const open = state.compare;
        if (!next.compare) state.closeCompare();
        else if (open?.a !== next.compare[0] || open.b !== next.compare[1])
          void state.openCompare(next.compare[0], next.compare[1]);
        if (!next.file) state.closeFileLens();
        else if (state.fileLens?.path !== next.file) void state.openFileLens(next.file);
      } else if (!next.sessionId && state.session) state.closeSession();
    };
    window.addEventListener('popstate', onPopState);
    return () => {
      window.removeEventListener('popstate', onPopState);
      socket.stop();
    };
  }, [store]);

  useEffect(() => {
    socketRef.current?.subscribe(sessionId);
  }, [sessionId]);

  return (
    <div className="app">
      <TopBar onRetry={() => socketRef.current?.retryNow()} />
      <div
        className={`app-body${sidebarOpen ? '' : ' no-sidebar'}`}
        style={{ '--detail-width': `${detailWidth}px` } as CSSProperties}
      >
        <SessionBrowser />
        <TreeArea />
        <div className="detail-column">
          <Splitter
            className="detail-splitter"
            label="Detail panel width"
            testId="split.detail"
            value={detailWidth}
            min={MIN_DETAIL_WIDTH}
            max={MAX_DETAIL_WIDTH}
            step={20}
            grow={-1}
            valueText={`${detailWidth} pixels`}
            valueAt={(clientX) => window.innerWidth - clientX}
            onChange={(next) => store.getState().setDetailWidth(next)}
          />
          <DetailPanel />
          {sessionId && <Composer />}
        </div>
      </div>
      {branchPickerOpen && <BranchPicker />}
      <BranchConfirm />
      <TidyDialog />
      <EntryMenu />
      <SummaryDialog />
      <BringBackDialog />
      <SettingsDialog />
    </div>
  );
}
