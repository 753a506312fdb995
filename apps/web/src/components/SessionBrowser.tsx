// The session browser (/resume): every session under the roots, searchable, lineage nested.

import { useEffect, useMemo, useRef, useState } from 'react';
import { countOf, formatBytes, formatRelativeTime } from '../lib/format';
import { emptyListText, sessionRows, sessionTitle } from '../lib/sessionList';
import { useApp, useAppStore } from '../store/context';

export function SessionBrowser() {
  const store = useAppStore();
  const sessions = useApp((s) => s.sessions);
  const loaded = useApp((s) => s.sessionsLoaded);
  const listing = useApp((s) => s.listing);
  const roots = useApp((s) => s.info?.roots);
  const query = useApp((s) => s.sessionQuery);
  const openId = useApp((s) => s.session?.id ?? null);
  const pinned = useApp((s) => s.sidebarPinned);
  // The open session's count includes what only the whole tree shows (duplicate ids, orphans,
  // cycles); the list's own count is of the lines that could not be parsed. Show one number.
  const openIssues = useApp((s) => s.session?.issues.length ?? 0);
  const rows = useMemo(() => sessionRows(sessions, query), [sessions, query]);
  // The session just closed (Esc in the tree) stays marked and takes the focus, so that closing is
  // one Enter (or the browser's Back) away from undone.
  const [closing, setClosing] = useState<{ open: string | null; recent: string | null }>({
    open: openId,
    recent: null,
  });
  if (closing.open !== openId) setClosing({ open: openId, recent: openId === null ? closing.open : null });
  const recentId = closing.recent;
  const listRef = useRef<HTMLUListElement>(null);
  useEffect(() => {
    if (!recentId) return;
    const item = listRef.current?.querySelector<HTMLElement>(`[data-session-id="${CSS.escape(recentId)}"]`);
    item?.scrollIntoView({ block: 'nearest' });
    item?.focus({ preventScroll: true });
  }, [recentId]);
  // The list folds away once the session opens, taking the focus with it: hand it to the tree so
  // that the keyboard goes on where the eyes go.
  const openFromList = async (id: string) => {
    await store.getState().openSession(id);
    requestAnimationFrame(() => {
      if (store.getState().sidebarOpen) return;
      const active = document.activeElement;
      if (!active || active === document.body || active.closest('.sidebar'))
        document.getElementById('tree-outline')?.focus({ preventScroll: true });
    });
  };
  const titles = useMemo(() => new Map(sessions.map((s) => [s.id, sessionTitle(s)])), [sessions]);

  return (
    <nav className="sidebar" aria-label="Sessions">
      <div className="sidebar-head">
        <input
          type="search"
          data-testid="session.search"
          placeholder={`Search ${countOf(sessions.length, 'session')}…`}
          aria-label="Search sessions"
          value={query}
          onChange={(e) => store.getState().setSessionQuery(e.target.value)}
          onKeyDown={(e) => {
            e.stopPropagation();
            if (e.key === 'Escape') store.getState().setSessionQuery('');
            if (e.key === 'Enter' && rows[0]) void openFromList(rows[0].session.id);
          }}
        />
        <button
          type="button"
          className="ghost"
          title="Reload the session list"
          aria-label="Reload the session list"
          data-testid="session.refresh"
          onClick={() => void store.getState().loadSessions()}
        >
          ⟳
        </button>
        <button
          type="button"
          className="ghost pin"
          data-testid="sidebar.pin"
          aria-pressed={pinned}
          aria-label="Keep the session list open"
          title={
            pinned
              ? 'The list stays open: click to fold it away whenever a session opens'
              : 'Keep this list open (it folds away when a session opens; ☰ brings it back)'
          }
          onClick={() => store.getState().setSidebarPinned(!pinned)}
        >
          {pinned ? 'Kept open' : 'Keep open'}
        </button>
      </div>
      <ul className="session-list" data-testid="session.list" ref={listRef}>
        {!loaded && <li className="help">Loading sessions…</li>}
        {loaded && listing && (
          <li className="help" data-testid="session.listing" role="status">
            {listing.total === 0
              ? 'Looking for sessions…'
              : `Reading sessions, newest first… ${listing.read.toLocaleString()} of ${countOf(listing.total, 'file')}`}
          </li>
        )}
        {loaded && !listing && rows.length === 0 && (
          <li className="help" data-testid="session.empty">
            {query ? 'No session matches.' : emptyListText(roots)}
          </li>
        )}
        {rows.map(({ session, depth }) => (
          <li key={session.id} style={{ paddingLeft: depth * 14 }}>
            <button
              type="button"
              className={`session-item${session.invalid ? ' invalid' : ''}`}
              data-testid="session.item"
              data-session-id={session.id}
              aria-current={session.id === openId}
              data-recent={session.id === recentId || undefined}
              disabled={session.invalid === true}
              title={`${session.root}/${session.path}`}
              onClick={() => void openFromList(session.id)}
            >
              <div className="s-title">
                {depth > 0 && <span className="s-lineage">↳ </span>}
                {session.kind && (
                  <span className="s-badge" data-testid="session.kind">
                    {session.kind}
                  </span>
                )}
                {sessionTitle(session)}
              </div>
              <div className="s-cwd mono" title={session.problem}>
                {session.invalid ? (session.problem ?? 'not a session file (no header line)') : session.cwd}
              </div>
              <div className="s-meta">
                <span>{formatRelativeTime(session.mtime)}</span>
                <span>{session.entryCount.toLocaleString()} entries</span>
                <span>{formatBytes(session.size)}</span>
                {session.writerActive && <span className="writer-badge">writing</span>}
                {session.readOnly && (
                  <span className="s-badge" data-testid="session.read-only" title={session.readOnly}>
                    read-only
                  </span>
                )}
                {(session.id === openId ? openIssues : session.issueCount) > 0 && (
                  <span style={{ color: 'var(--warning)' }} data-testid="session.issues-count">
                    {countOf(session.id === openId ? openIssues : session.issueCount, 'issue')}
                  </span>
                )}
              </div>
              {session.parentSession && !session.kind && (
                <div className="s-meta s-lineage" data-testid="session.lineage">
                  from{' '}
                  {session.parentId
                    ? (titles.get(session.parentId) ?? session.parentSession)
                    : session.parentSession}
                </div>
              )}
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
