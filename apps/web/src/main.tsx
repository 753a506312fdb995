import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { formatDeepLink, parseDeepLink, type DeepLink } from './lib/deepLink';
import { prepareFormatters } from './lib/format';
import { prepareSnapshotReader } from './net/snapshot';
import { loadEventCheck } from './net/serverEvents';
import { checkServerEvents } from './net/socket';
import { adoptToken } from './net/token';
import { createAppStore } from './store/appStore';
import { StoreProvider } from './store/context';
import { loadMarkdown } from './components/Markdown';
import './styles.css';
import './archive.css';
import './compare.css';
import './family.css';

// The page keeps the access token of its URL (?token=…) in memory and this tab's session storage
// (net/token.ts) and drops it from the address bar, so it does not end up in bookmarks or shared
// links; every request then sends it.
adoptToken(window.location.search);
if (new URLSearchParams(window.location.search).has('token')) {
  const current = new URLSearchParams(window.location.search);
  history.replaceState(
    null,
    '',
    window.location.pathname +
      formatDeepLink(window.location.search, {
        ...parseDeepLink(window.location.search),
        sessionId: current.get('session'),
        entryId: current.get('entry'),
      }),
  );
}

let lastLink = '';
let pendingLink: ReturnType<typeof setTimeout> | null = null;
const store = createAppStore({
  onLocationChange(sessionId, entryId, view) {
    // Holding a key down moves the selection many times a second; the URL only needs the last one
    // (and browsers throttle frequent history calls).
    if (pendingLink) clearTimeout(pendingLink);
    pendingLink = setTimeout(() => updateLocation({ sessionId, entryId, ...view }), 120);
  },
});
lastLink = window.location.search;

// The theme attribute is set synchronously on every change (not in an effect), so that canvas code
// reading the CSS variables during the next render already sees the new theme's colours.
document.documentElement.dataset.theme = store.getState().theme;
store.subscribe((state, previous) => {
  if (state.theme !== previous.theme) document.documentElement.dataset.theme = state.theme;
});

function updateLocation(link: DeepLink): void {
  const { sessionId } = link;
  const search = formatDeepLink(window.location.search, link);
  if (search === lastLink) return;
  const sessionChanged = new URLSearchParams(lastLink).get('session') !== sessionId;
  lastLink = search;
  const url = window.location.pathname + search;
  // A new session is a history step; moving the selection inside one only replaces the entry.
  if (sessionChanged) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

// The first requests go out now, not from the first render's effects: React's first render, and
// the tasks queued before it, took ~150 ms of a warm open before they left. The settings come
// before the deep-linked session opens, since its first rows are drawn in the default filter.
const link = parseDeepLink(window.location.search);
void store
  .getState()
  .init()
  .then(() => {
    if (link.sessionId) void openLinked(link);
  });

/** Opens a linked session, then the compare view and file lens the link names (docs/branches.md#urls). */
async function openLinked(linked: ReturnType<typeof parseDeepLink>): Promise<void> {
  if (!linked.sessionId) return;
  await store.getState().openSession(linked.sessionId, linked.entryId);
  if (store.getState().session?.id !== linked.sessionId) return;
  if (linked.compare) void store.getState().openCompare(linked.compare[0], linked.compare[1]);
  if (linked.file) void store.getState().openFileLens(linked.file);
}

// A development build starts once its event check is loaded, so that every event is checked; a
// production build has none and starts in the same task.
void loadEventCheck().then((check) => {
  if (check) checkServerEvents(check);
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <StoreProvider store={store}>
        <App />
      </StoreProvider>
    </StrictMode>,
  );
});

// While the first requests are out: the snapshot worker's script loads, the formatters are made in
// short tasks instead of in the first render of the list or the tree, and the markdown renderer's
// chunk loads and is evaluated in a task of its own.
prepareSnapshotReader();
prepareFormatters((step) => setTimeout(step, 0));
setTimeout(() => void loadMarkdown(), 0);
