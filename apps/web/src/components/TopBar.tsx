import { useMemo } from 'react';
import { lineageOf, childSessionsOf, sessionTitle } from '../lib/sessionList';
import { useApp, useAppStore } from '../store/context';
import { FamilyLinks } from './FamilyLinks';
import { Toasts } from './Toasts';

function ConnectionIndicator({ onRetry }: { onRetry: () => void }) {
  const state = useApp((s) => s.connection);
  const retryIn = useApp((s) => s.retryInMs);
  const text =
    state === 'open'
      ? 'Live'
      : state === 'incompatible'
        ? 'Server version differs: reload the page'
        : state === 'connecting'
          ? 'Connecting…'
          : `Reconnecting${retryIn ? ` in ${Math.ceil(retryIn / 1000)} s` : '…'}`;
  return (
    <span className="conn" data-testid="connection.state" data-state={state} role="status" aria-live="polite">
      <span className="conn-dot" />
      {text}
      {state === 'reconnecting' && (
        <button type="button" className="ghost" data-testid="connection.retry" onClick={onRetry}>
          Retry now
        </button>
      )}
    </span>
  );
}

export function TopBar({ onRetry }: { onRetry: () => void }) {
  const store = useAppStore();
  const session = useApp((s) => s.session);
  const sessions = useApp((s) => s.sessions);
  const writerActive = useApp((s) => s.session?.item.writerActive ?? false);
  const theme = useApp((s) => s.theme);
  const busy = useApp((s) => s.busy);
  const loading = useApp((s) => s.loading);
  const sidebarOpen = useApp((s) => s.sidebarOpen);
  const title = session ? (session.name ?? sessionTitle(session.item)) : 'No session open';
  const lineage = useMemo(() => (session ? lineageOf(sessions, session.id) : []), [sessions, session]);
  const children = useMemo(() => (session ? childSessionsOf(sessions, session.id) : []), [sessions, session]);
  const familyShown = useApp(
    (s) => s.family !== null && s.family.sessionId === s.session?.id && s.family.members.length > 1,
  );

  return (
    <header className="topbar">
      <button
        type="button"
        className="ghost"
        data-testid="sidebar.toggle"
        title={sidebarOpen ? 'Hide the session list' : 'Show the session list'}
        aria-label={sidebarOpen ? 'Hide the session list' : 'Show the session list'}
        aria-expanded={sidebarOpen}
        onClick={() => store.getState().toggleSidebar()}
      >
        ☰
      </button>
      <span className="brand">
        <span className="brand-mark">◆</span> Canopy
      </span>
      <div className="session-title" data-testid="session.title" title={title}>
        {title}
        {session && (lineage.length > 0 || session.item.parentSession) && (
          <span className="lineage" data-testid="session.lineage-chain">
            from{' '}
            {lineage.length > 0
              ? lineage.map((parent, i) => (
                  <span key={parent.id}>
                    {i > 0 && ' ← '}
                    <a
                      href={`?session=${encodeURIComponent(parent.id)}`}
                      onClick={(e) => {
                        e.preventDefault();
                        void store.getState().openSession(parent.id);
                      }}
                    >
                      {sessionTitle(parent)}
                    </a>
                  </span>
                ))
              : session.item.parentSession}
          </span>
        )}
        <FamilyLinks />
        {session && children.length > 0 && !familyShown && (
          <span className="lineage" data-testid="session.lineage-children">
            · {children.length} branched {children.length === 1 ? 'session' : 'sessions'}
          </span>
        )}
      </div>
      {busy && <span className="help">{busy}</span>}
      {loading && (
        <span className="help" data-testid="session.loading" role="status">
          Opening the session…
        </span>
      )}
      {session && writerActive && (
        <span
          className="writer-badge"
          data-testid="writer.active"
          title="Another process is appending to this file"
        >
          ● another writer is active
        </span>
      )}
      <Toasts />
      <ConnectionIndicator onRetry={onRetry} />
      <button
        type="button"
        className="ghost"
        data-testid="settings.open"
        title="Settings: branch summaries, summariser, keys, default filter"
        aria-label="Settings"
        onClick={() => store.getState().openSettings(true)}
      >
        ⚙
      </button>
      <button
        type="button"
        className="ghost"
        data-testid="theme.toggle"
        title="Switch between light and dark"
        aria-label={theme === 'dark' ? 'Use the light theme' : 'Use the dark theme'}
        onClick={() => store.getState().setTheme(theme === 'dark' ? 'light' : 'dark')}
      >
        {theme === 'dark' ? '☀' : '☾'}
      </button>
    </header>
  );
}
