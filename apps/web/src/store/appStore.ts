// One zustand store built from slices (sessions, tree, selection/filter/search, connection, ui).
// A factory, so tests and the app each make their own instance; components reach it through
// StoreProvider / useApp with atomic selectors.

import type {
  EntryDetail,
  InfoResponse,
  NavigateRequest,
  ServerEvent,
  SessionListItem,
  SessionSnapshot,
  Settings,
  SettingsPatch,
  SkeletonNode,
  UsageNumbers,
} from '@canopy/protocol';
import { applySettingsPatch, DEFAULT_SETTINGS } from '@canopy/protocol';
import {
  ViewTree,
  createTreeSelectorState,
  selectedRow,
  treeSelectorReducer,
  type FilterMode,
  type TreeSelectorAction,
  type TreeSelectorState,
} from '@canopy/session-core';
import { createStore, type StoreApi } from 'zustand/vanilla';
import {
  clampDetailWidth,
  clampSplitRatio,
  DEFAULT_DETAIL_WIDTH,
  DEFAULT_SPLIT_RATIO,
} from '../layout/panes';
import { ApiError, api as defaultApi, type Api } from '../net/api';
import type { ConnectionState } from '../net/socket';
import { collectUsage, toViewEntry } from './skeleton';
import {
  createSummaryActions,
  initialSummaryState,
  type SummaryActions,
  type SummaryState,
} from './summarySlice';

export type ViewMode = 'outline' | 'graph' | 'split';
export type Theme = 'light' | 'dark';

export interface Toast {
  id: number;
  text: string;
  kind: 'info' | 'error';
}

export interface OpenSession {
  id: string;
  item: SessionListItem;
  header: Record<string, unknown>;
  dialect: 'pi' | 'omp';
  issues: SessionSnapshot['issues'];
  needsMigration: boolean;
  name?: string;
}

export interface AppState {
  // connection
  connection: ConnectionState;
  retryInMs: number | null;
  unauthorized: boolean;
  // sessions
  info: InfoResponse | null;
  settings: Settings;
  sessions: SessionListItem[];
  sessionsLoaded: boolean;
  sessionQuery: string;
  // open session
  session: OpenSession | null;
  loading: boolean;
  loadError: string | null;
  tree: ViewTree | null;
  treeVersion: number;
  usage: Map<string, UsageNumbers>;
  leafId: string | null;
  writerActive: boolean;
  // selection, filter, search: session-core's tree selector state (rows, selection, mode, query)
  selector: TreeSelectorState | null;
  /** The filter mode for the next session opened (follows the last one used). */
  filterMode: FilterMode;
  labelEditingId: string | null;
  // view
  view: ViewMode;
  theme: Theme;
  sidebarOpen: boolean;
  /** The user asked to keep the session list open; otherwise it folds away once a session is open. */
  sidebarPinned: boolean;
  /** The outline's share of the tree area in the split view (0.2 – 0.8). */
  splitRatio: number;
  /** Width of the detail panel in pixels. */
  detailWidth: number;
  followLeaf: boolean;
  expandedRuns: ReadonlySet<string>;
  /** Bumped to ask the views to bring the selection into view (keyboard moves, jumps). */
  revealTick: number;
  // composer and dialogs
  composerText: string;
  /** Bumped to bring the composer into view with focus (a jump put a message's text in it). */
  composerFocusTick: number;
  branchPickerOpen: boolean;
  /** The user message a /branch waits to be confirmed for (a new file is written only on "Create"). */
  branchConfirmId: string | null;
  busy: string | null;
  toasts: Toast[];
  detailCache: Map<string, EntryDetail>;
}

export interface AppActions {
  init(): Promise<void>;
  loadSessions(): Promise<void>;
  setSessionQuery(query: string): void;
  openSession(id: string, entryId?: string | null): Promise<void>;
  reloadSession(): Promise<void>;
  closeSession(): void;
  /** Runs one tree selector action (keys, filters, search, selection). */
  dispatch(action: TreeSelectorAction, reveal?: boolean): void;
  select(id: string, reveal?: boolean): void;
  setFilter(mode: FilterMode): void;
  setQuery(query: string): void;
  /** Search results: the next (1) or previous (-1) match, wrapping. */
  stepMatch(direction: 1 | -1): void;
  /** Esc with nothing left to clear: close the open session (back to the session browser). */
  requestClose(): void;
  /**
   * navigateTree to an entry. `options` carries the summary choice (`summarize`, custom instructions,
   * label) for the summary dialog; without it the navigation writes no summary.
   */
  jump(id: string, options?: Omit<NavigateRequest, 'targetId'>): Promise<void>;
  startLabelEdit(id?: string): void;
  cancelLabelEdit(): void;
  saveLabel(id: string, label: string): Promise<void>;
  branchFrom(entryId: string): Promise<void>;
  /** Asks before /branch writes a new session file from this user message. */
  requestBranch(entryId: string): void;
  cancelBranch(): void;
  fork(): Promise<void>;
  sendComposer(): Promise<void>;
  setComposerText(text: string): void;
  openBranchPicker(open: boolean): void;
  setView(view: ViewMode): void;
  setTheme(theme: Theme): void;
  toggleSidebar(): void;
  setSidebarPinned(pinned: boolean): void;
  setSplitRatio(ratio: number): void;
  setDetailWidth(width: number): void;
  setFollowLeaf(on: boolean): void;
  toggleRun(runId: string): void;
  /** Compresses every expanded run of the graph again. */
  collapseAllRuns(): void;
  loadDetail(entryId: string): Promise<EntryDetail | null>;
  toast(text: string, kind?: Toast['kind']): void;
  dismissToast(id: number): void;
  setConnection(state: ConnectionState, retryInMs: number | null): void;
  handleEvent(event: ServerEvent): void;
  updateSettings(patch: SettingsPatch): Promise<void>;
  /** Probes the API; marks the page unauthorized on a 401. */
  checkAccess(): Promise<void>;
}

export type AppStore = AppState & AppActions & SummaryState & SummaryActions;

/** The selected entry: the selected row, or the remembered entry while a filter shows nothing. */
export function selectedIdOf(state: Pick<AppState, 'selector'>): string | null {
  const selector = state.selector;
  if (!selector) return null;
  return selectedRow(selector)?.id ?? selector.lastSelectedId;
}

export interface StoreDeps {
  api?: Api;
  /** Persisted UI preferences (theme, view); defaults to localStorage when available. */
  storage?: Pick<Storage, 'getItem' | 'setItem'> | null;
  /** Called when the open session or selected entry changes, to update the URL. */
  onLocationChange?: (sessionId: string | null, entryId: string | null) => void;
}

const PREFS_KEY = 'canopy.prefs';
export const JUMPED_TO_USER_MESSAGE =
  'Leaf is now the parent; the message is in the composer to edit and resend';
const DETAIL_CACHE_LIMIT = 300;
let toastCounter = 0;

type Prefs = Partial<Pick<AppState, 'theme' | 'view' | 'sidebarPinned' | 'splitRatio' | 'detailWidth'>>;

function readPrefs(storage: StoreDeps['storage']): Prefs {
  try {
    const raw = storage?.getItem(PREFS_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : null;
    if (typeof parsed !== 'object' || parsed === null) return {};
    // Stored by an older version or edited by hand: keep only values of the right shape.
    const p = parsed as Record<string, unknown>;
    const prefs: Prefs = {};
    if (p.theme === 'light' || p.theme === 'dark') prefs.theme = p.theme;
    if (p.view === 'outline' || p.view === 'graph' || p.view === 'split') prefs.view = p.view;
    if (typeof p.sidebarPinned === 'boolean') prefs.sidebarPinned = p.sidebarPinned;
    if (typeof p.splitRatio === 'number') prefs.splitRatio = clampSplitRatio(p.splitRatio);
    if (typeof p.detailWidth === 'number') prefs.detailWidth = clampDetailWidth(p.detailWidth);
    return prefs;
  } catch {
    return {};
  }
}

function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

export function createAppStore(deps: StoreDeps = {}): StoreApi<AppStore> {
  const api = deps.api ?? defaultApi;
  const storage =
    deps.storage !== undefined ? deps.storage : typeof localStorage !== 'undefined' ? localStorage : null;
  const prefs = readPrefs(storage);
  const prefersDark =
    typeof matchMedia !== 'undefined' && matchMedia('(prefers-color-scheme: dark)').matches
      ? 'dark'
      : 'light';
  // Guards against a slow snapshot of a previously opened session overwriting the current one.
  let openGeneration = 0;

  return createStore<AppStore>()((set, get) => {
    const savePrefs = () => {
      const { theme, view, sidebarPinned, splitRatio, detailWidth } = get();
      try {
        storage?.setItem(PREFS_KEY, JSON.stringify({ theme, view, sidebarPinned, splitRatio, detailWidth }));
      } catch {
        // Private mode or a full quota: preferences are a convenience.
      }
    };

    const notifyLocation = () => deps.onLocationChange?.(get().session?.id ?? null, selectedIdOf(get()));

    const runSelector = (action: TreeSelectorAction, reveal = true) => {
      const current = get().selector;
      if (!current) return;
      const before = selectedIdOf(get());
      const next = treeSelectorReducer(current, action);
      if (next === current) {
        if (reveal) set({ revealTick: get().revealTick + 1 });
        return;
      }
      set({ selector: next, filterMode: next.mode });
      if (reveal) set({ revealTick: get().revealTick + 1 });
      const after = selectedIdOf(get());
      if (after !== before) {
        if (get().labelEditingId !== null && get().labelEditingId !== after) set({ labelEditingId: null });
        notifyLocation();
      }
      if (next.closeRequested) get().requestClose();
    };

    const applySnapshot = (snapshot: SessionSnapshot, entryId: string | null | undefined) => {
      const usage = new Map<string, UsageNumbers>();
      collectUsage(snapshot.nodes, usage);
      const tree = new ViewTree(snapshot.nodes.map(toViewEntry));
      const wanted = entryId && tree.has(entryId) ? entryId : snapshot.leafId;
      // Another session: the old one's multi-selection and summary dialog mean nothing here.
      if (get().session?.id !== snapshot.session.id) {
        set({ multiSelection: new Set(), selectionAnchor: null, summaryDialog: null });
      }
      const selector = createTreeSelectorState(tree, {
        leafId: snapshot.leafId,
        mode: get().filterMode,
        query: '',
        selectedId: wanted,
        pageSize: get().selector?.pageSize ?? 20,
      });
      set({
        session: {
          id: snapshot.session.id,
          item: snapshot.session,
          header: snapshot.header,
          dialect: snapshot.dialect,
          issues: snapshot.issues,
          needsMigration: snapshot.needsMigration,
          ...(snapshot.name !== undefined ? { name: snapshot.name } : {}),
        },
        tree,
        treeVersion: tree.version,
        usage,
        leafId: snapshot.leafId,
        writerActive: snapshot.writerActive,
        selector,
        loading: false,
        loadError: null,
        detailCache: new Map(),
        expandedRuns: new Set(),
        revealTick: get().revealTick + 1,
      });
    };

    const appendNodes = (nodes: readonly SkeletonNode[]) => {
      const tree = get().tree;
      if (!tree || nodes.length === 0) return;
      const fresh = nodes.filter((n) => !tree.has(n.id));
      if (fresh.length === 0) return;
      const usage = new Map(get().usage);
      collectUsage(fresh, usage);
      tree.append(fresh.map(toViewEntry));
      set({ treeVersion: tree.version, usage });
      runSelector({ type: 'refresh' }, false);
    };

    const setLabelLocal = (targetId: string, label: string | undefined) => {
      const tree = get().tree;
      if (!tree) return;
      tree.setLabel(targetId, label);
      const cache = get().detailCache;
      if (cache.has(targetId)) {
        const next = new Map(cache);
        next.delete(targetId);
        set({ detailCache: next });
      }
      set({ treeVersion: tree.version });
      runSelector({ type: 'refresh' }, false);
    };

    /** The leaf moved; with `follow` (live updates while following the leaf) the selection moves onto it. */
    const setLeaf = (leafId: string | null, follow = true) => {
      // Our own navigation arrives twice (REST reply and the session_tree broadcast): apply it once.
      if (leafId === get().leafId && get().selector?.leafId === leafId) return;
      const select = follow && get().followLeaf && leafId !== null;
      set({ leafId });
      runSelector({ type: 'setLeaf', leafId, select }, select);
    };

    const summaryActions = createSummaryActions<AppStore>(set, get, {
      api,
      sessionId: () => get().session?.id ?? null,
      leafId: () => get().leafId,
      rowIds: () => get().selector?.rows.map((row) => row.id) ?? [],
      defaultSummarizerId: () => {
        const offered = get().info?.summarizers ?? [];
        const chosen = get().settings.branchSummary.summarizerId;
        if (chosen && offered.some((s) => s.id === chosen)) return chosen;
        return get().info?.defaultSummarizerId ?? null;
      },
      jump: (id, options) => get().jump(id, options),
      appendNodes: (nodes) => appendNodes(nodes),
      setLeaf: (leafId) => setLeaf(leafId, false),
      select: (id) => get().select(id),
      toast: (text, kind) => get().toast(text, kind),
    });

    return {
      ...initialSummaryState(),
      ...summaryActions,
      connection: 'connecting',
      retryInMs: null,
      unauthorized: false,
      info: null,
      settings: DEFAULT_SETTINGS,
      sessions: [],
      sessionsLoaded: false,
      sessionQuery: '',
      session: null,
      loading: false,
      loadError: null,
      tree: null,
      treeVersion: 0,
      usage: new Map(),
      leafId: null,
      writerActive: false,
      selector: null,
      filterMode: 'default',
      labelEditingId: null,
      view: prefs.view ?? 'split',
      theme: prefs.theme ?? prefersDark,
      // Open until a session is: then the tree needs the width (unless the user pinned the list).
      sidebarOpen: true,
      sidebarPinned: prefs.sidebarPinned ?? false,
      splitRatio: prefs.splitRatio ?? DEFAULT_SPLIT_RATIO,
      detailWidth: prefs.detailWidth ?? DEFAULT_DETAIL_WIDTH,
      followLeaf: true,
      expandedRuns: new Set(),
      revealTick: 0,
      composerText: '',
      composerFocusTick: 0,
      branchPickerOpen: false,
      branchConfirmId: null,
      busy: null,
      toasts: [],
      detailCache: new Map(),

      async init() {
        const [info, settings] = await Promise.allSettled([api.info(), api.getSettings()]);
        if (info.status === 'fulfilled') set({ info: info.value });
        else if (info.reason instanceof ApiError && info.reason.status === 401) set({ unauthorized: true });
        if (settings.status === 'fulfilled')
          set({ settings: settings.value, filterMode: settings.value.defaultFilter });
        await get().loadSessions();
      },

      async loadSessions() {
        try {
          const { sessions } = await api.listSessions();
          set({ sessions, sessionsLoaded: true, unauthorized: false });
          const open = get().session;
          if (open) {
            const item = sessions.find((s) => s.id === open.id);
            // The list carries the current name (an oh-my-pi rename rewrites the title line).
            if (item)
              set({ session: { ...open, item, ...(item.name !== undefined ? { name: item.name } : {}) } });
          }
        } catch (error) {
          if (error instanceof ApiError && error.status === 401) set({ unauthorized: true });
          set({ sessionsLoaded: true });
          if (!(error instanceof ApiError && error.status === 0)) get().toast(errorText(error), 'error');
        }
      },

      setSessionQuery(query) {
        set({ sessionQuery: query });
      },

      async openSession(id, entryId) {
        const generation = ++openGeneration;
        set({
          loading: true,
          loadError: null,
          labelEditingId: null,
          branchPickerOpen: false,
          branchConfirmId: null,
          composerText: get().session?.id === id ? get().composerText : '',
        });
        try {
          const snapshot = await api.getSession(id);
          if (generation !== openGeneration) return;
          // Fold the list away first, so that the views measure their final size when they mount.
          if (!get().sidebarPinned) set({ sidebarOpen: false });
          applySnapshot(snapshot, entryId);
          notifyLocation();
        } catch (error) {
          if (generation !== openGeneration) return;
          set({ loading: false, loadError: errorText(error) });
        }
      },

      async reloadSession() {
        const open = get().session;
        if (!open) return;
        const generation = ++openGeneration;
        try {
          const snapshot = await api.getSession(open.id);
          if (generation !== openGeneration) return;
          applySnapshot(snapshot, selectedIdOf(get()));
        } catch (error) {
          if (generation !== openGeneration) return;
          get().toast(`Reloading the session failed: ${errorText(error)}`, 'error');
        }
      },

      closeSession() {
        openGeneration++;
        set({
          ...initialSummaryState(),
          clientId: get().clientId,
          session: null,
          tree: null,
          leafId: null,
          selector: null,
          loadError: null,
          loading: false,
          labelEditingId: null,
          // Back to choosing a session: the list is the only thing left to show.
          sidebarOpen: true,
        });
        notifyLocation();
      },

      dispatch(action, reveal = true) {
        runSelector(action, reveal);
      },

      select(id, reveal = true) {
        runSelector({ type: 'selectId', id }, reveal);
      },

      setFilter(mode) {
        runSelector({ type: 'setFilter', mode });
        if (!get().selector) set({ filterMode: mode });
      },

      setQuery(query) {
        runSelector({ type: 'setQuery', query });
      },

      stepMatch(direction) {
        const selector = get().selector;
        if (!selector || selector.query.trim() === '') return;
        // While searching, every row is a match (the search filters the rows), so stepping through
        // matches is moving through the rows, wrapping at the ends.
        runSelector({ type: 'move', delta: direction });
      },

      requestClose() {
        if (get().labelEditingId) {
          set({ labelEditingId: null });
          return;
        }
        if (get().branchPickerOpen) {
          set({ branchPickerOpen: false });
          return;
        }
        if (get().branchConfirmId) {
          set({ branchConfirmId: null });
          return;
        }
        get().closeSession();
        get().toast('Session closed: Enter or the browser’s Back opens it again');
      },

      async jump(id, options) {
        const open = get().session;
        if (!open || get().busy) return;
        if (id === get().leafId) {
          get().toast('Already at this point');
          return;
        }
        // A jump the user asked for (no options yet) offers the summary choice first when enabled.
        if (options === undefined && get().settings.branchSummary.enabled) {
          get().openSummaryDialog({ kind: 'navigate', targetId: id });
          return;
        }
        set({ busy: 'Navigating…' });
        try {
          const result = await api.navigate(open.id, { ...options, targetId: id });
          if (result.alreadyAtTarget) {
            get().toast('Already at this point');
            return;
          }
          if (result.cancelled) {
            get().toast(result.aborted ? 'Branch summarization cancelled' : 'Navigation cancelled');
            return;
          }
          appendNodes(result.nodes);
          setLeaf(result.newLeafId, false);
          // A new summary is where the branch continues: select it, in both views.
          const summaryEntry = result.summaryEntry as Record<string, unknown> | undefined;
          const summaryId = summaryEntry?.id;
          get().select(typeof summaryId === 'string' ? summaryId : id);
          if (result.editorText !== undefined) {
            // The leaf went to the message's parent and the message waits in the composer: say so,
            // and take the user there.
            set({ composerText: result.editorText, composerFocusTick: get().composerFocusTick + 1 });
            get().toast(JUMPED_TO_USER_MESSAGE);
          } else {
            get().toast(
              typeof summaryId === 'string'
                ? summaryEntry?.fromHook === true || summaryEntry?.fromExtension === true
                  ? 'Navigated; an extension supplied the summary'
                  : 'Navigated with a branch summary'
                : 'Navigated to selected point',
            );
          }
        } catch (error) {
          get().toast(errorText(error), 'error');
        } finally {
          set({ busy: null });
        }
      },

      startLabelEdit(id) {
        const target = id ?? selectedIdOf(get());
        if (!target || !get().tree?.has(target)) return;
        if (target !== selectedIdOf(get())) runSelector({ type: 'selectId', id: target });
        set({ labelEditingId: target });
      },

      cancelLabelEdit() {
        set({ labelEditingId: null });
      },

      async saveLabel(id, label) {
        const open = get().session;
        set({ labelEditingId: null });
        if (!open) return;
        const trimmed = label.trim();
        const current = get().tree?.get(id)?.label ?? '';
        if (trimmed === current) return;
        try {
          const result = trimmed
            ? await api.setLabel(open.id, id, trimmed)
            : await api.clearLabel(open.id, id);
          appendNodes([result.node]);
          setLabelLocal(result.targetId, result.label);
          setLeaf(result.leafId, false);
          get().toast(trimmed ? `Label set: ${trimmed}` : 'Label cleared');
        } catch (error) {
          get().toast(errorText(error), 'error');
        }
      },

      async branchFrom(entryId) {
        const open = get().session;
        if (!open || get().busy) return;
        set({ busy: 'Branching…', branchPickerOpen: false, branchConfirmId: null });
        try {
          const result = await api.branch(open.id, entryId);
          if (result.cancelled || !result.sessionId) {
            get().toast('Branch cancelled');
            return;
          }
          await get().loadSessions();
          await get().openSession(result.sessionId);
          set({ composerText: result.editorText });
          get().toast('Branched to new session');
        } catch (error) {
          get().toast(errorText(error), 'error');
        } finally {
          set({ busy: null });
        }
      },

      requestBranch(entryId) {
        if (!get().tree?.has(entryId)) return;
        set({ branchPickerOpen: false, branchConfirmId: entryId });
      },

      cancelBranch() {
        set({ branchConfirmId: null });
      },

      async fork() {
        const open = get().session;
        if (!open || get().busy) return;
        set({ busy: 'Forking…' });
        try {
          const result = await api.fork(open.id);
          await get().loadSessions();
          await get().openSession(result.sessionId);
          get().toast('Forked into a new session');
        } catch (error) {
          get().toast(errorText(error), 'error');
        } finally {
          set({ busy: null });
        }
      },

      async sendComposer() {
        const open = get().session;
        const text = get().composerText;
        if (!open || !text.trim() || get().busy) return;
        set({ busy: 'Appending…' });
        try {
          const result = await api.appendMessage(open.id, text);
          appendNodes([result.node]);
          setLeaf(result.leafId, false);
          set({ composerText: '' });
          get().select(result.entryId);
          get().toast('Message appended under the leaf');
        } catch (error) {
          get().toast(errorText(error), 'error');
        } finally {
          set({ busy: null });
        }
      },

      setComposerText(text) {
        set({ composerText: text });
      },

      openBranchPicker(open) {
        set({ branchPickerOpen: open });
      },

      setView(view) {
        set({ view });
        savePrefs();
      },

      setTheme(theme) {
        set({ theme });
        savePrefs();
      },

      toggleSidebar() {
        const open = !get().sidebarOpen;
        // Hiding a pinned list is a choice against keeping it open.
        set(open ? { sidebarOpen: true } : { sidebarOpen: false, sidebarPinned: false });
        savePrefs();
      },

      setSidebarPinned(pinned) {
        set(pinned ? { sidebarPinned: true, sidebarOpen: true } : { sidebarPinned: false });
        savePrefs();
      },

      setSplitRatio(ratio) {
        set({ splitRatio: clampSplitRatio(ratio) });
        savePrefs();
      },

      setDetailWidth(width) {
        set({ detailWidth: clampDetailWidth(width) });
        savePrefs();
      },

      setFollowLeaf(on) {
        set({ followLeaf: on });
      },

      toggleRun(runId) {
        const next = new Set(get().expandedRuns);
        if (next.has(runId)) next.delete(runId);
        else next.add(runId);
        set({ expandedRuns: next });
      },

      collapseAllRuns() {
        set({ expandedRuns: new Set() });
      },

      async loadDetail(entryId) {
        const open = get().session;
        if (!open) return null;
        const cached = get().detailCache.get(entryId);
        if (cached) return cached;
        const detail = await api.getEntry(open.id, entryId);
        if (get().session?.id !== open.id) return null;
        const next = new Map(get().detailCache);
        next.set(entryId, detail);
        // Evict the oldest entries: details can be large (images, tool output).
        while (next.size > DETAIL_CACHE_LIMIT) next.delete(next.keys().next().value!);
        set({ detailCache: next });
        return detail;
      },

      toast(text, kind = 'info') {
        const id = ++toastCounter;
        // One at a time: a newer message replaces the older one rather than piling up over the views.
        set({ toasts: [{ id, text, kind }] });
        setTimeout(() => get().dismissToast(id), kind === 'error' ? 7000 : 3500);
      },

      dismissToast(id) {
        set({ toasts: get().toasts.filter((t) => t.id !== id) });
      },

      setConnection(state, retryInMs) {
        set({ connection: state, retryInMs });
      },

      handleEvent(event) {
        const open = get().session;
        switch (event.type) {
          case 'sessions_changed':
            void get().loadSessions();
            return;
          case 'error':
            if (!event.sessionId || event.sessionId === open?.id) get().toast(event.message, 'error');
            return;
          case 'hello':
            get().handleSummaryEvent(event);
            return;
          case 'pong':
            return;
          default:
            break;
        }
        if (!open || event.sessionId !== open.id) return;
        switch (event.type) {
          case 'subscribed':
            // Our snapshot may predate the subscription; the leaf in the ack is authoritative.
            if (event.leafId !== get().leafId && (event.leafId === null || get().tree?.has(event.leafId)))
              setLeaf(event.leafId);
            return;
          case 'session_tree':
            if (event.summaryEntry) {
              // The summary node arrives as entries_appended as well; the leaf is what matters here.
            }
            if (event.newLeafId === null || get().tree?.has(event.newLeafId)) setLeaf(event.newLeafId);
            else void get().reloadSession();
            return;
          case 'entries_appended':
            appendNodes(event.nodes);
            setLeaf(event.leafId, event.source === 'external');
            return;
          case 'label_changed':
            setLabelLocal(event.targetId, event.label);
            return;
          case 'session_reloaded':
            get().toast(`The session file was ${event.reason}; reloaded`);
            void get().reloadSession();
            return;
          case 'writer_active':
            set({ writerActive: event.active });
            return;
          case 'leaf_notice':
            get().toast(event.message);
            if (event.leafId === null || get().tree?.has(event.leafId)) setLeaf(event.leafId);
            return;
          case 'summary_progress':
            get().handleSummaryEvent(event);
            return;
        }
      },

      async checkAccess() {
        try {
          await api.info();
          if (get().unauthorized) set({ unauthorized: false });
        } catch (error) {
          if (error instanceof ApiError && error.status === 401) set({ unauthorized: true });
        }
      },

      async updateSettings(patch) {
        // Shown at once (a checkbox must not flick back while the server saves), undone on failure.
        const before = get().settings;
        set({ settings: applySettingsPatch(before, patch) });
        try {
          const settings = await api.putSettings(patch);
          set({ settings });
        } catch (error) {
          set({ settings: before });
          get().toast(errorText(error), 'error');
        }
      },
    };
  });
}
