// How the page is laid out: view, theme, panes, folded runs. Most of it is remembered in storage.

import {
  clampDetailWidth,
  clampSplitRatio,
  DEFAULT_DETAIL_WIDTH,
  DEFAULT_SPLIT_RATIO,
} from '../../layout/panes';
import type { SliceKit, StoreKit } from './kit';

export type ViewMode = 'outline' | 'graph' | 'split';
export type Theme = 'light' | 'dark';

export interface PreferencesSlice {
  view: ViewMode;
  theme: Theme;
  sidebarOpen: boolean;
  /** The user asked to keep the session list open; otherwise it folds away once a session is open. */
  sidebarPinned: boolean;
  /** The outline's share of the tree area in the split view (0.2 – 0.8). */
  splitRatio: number;
  /** Width of the detail panel in pixels. */
  detailWidth: number;
  /** Tool runs the graph shows unfolded. */
  expandedRuns: ReadonlySet<string>;
  /** Shift+T: each label's time beside it (docs/tree-and-context.md#label-times); off at start, as in pi. */
  showLabelTimes: boolean;
  toggleLabelTimes(): void;
  setView(view: ViewMode): void;
  setTheme(theme: Theme): void;
  toggleSidebar(): void;
  setSidebarPinned(pinned: boolean): void;
  setSplitRatio(ratio: number): void;
  setDetailWidth(width: number): void;
  /** A session opened: the list folds away unless pinned (the tree needs the width). */
  foldSidebarUnlessPinned(): void;
  /** Back to choosing a session: the list is the only thing left to show. */
  showSidebar(): void;
  toggleRun(runId: string): void;
  collapseAllRuns(): void;
}

const PREFS_KEY = 'canopy.prefs';

type Prefs = Partial<
  Pick<PreferencesSlice, 'theme' | 'view' | 'sidebarPinned' | 'splitRatio' | 'detailWidth'>
>;

function readPrefs(storage: StoreKit['storage']): Prefs {
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

function systemTheme(): Theme {
  return typeof matchMedia !== 'undefined' && matchMedia('(prefers-color-scheme: dark)').matches
    ? 'dark'
    : 'light';
}

export function createPreferencesSlice({ set, get, storage }: SliceKit<PreferencesSlice>): PreferencesSlice {
  const prefs = readPrefs(storage);
  const save = () => {
    const { theme, view, sidebarPinned, splitRatio, detailWidth } = get();
    try {
      storage?.setItem(PREFS_KEY, JSON.stringify({ theme, view, sidebarPinned, splitRatio, detailWidth }));
    } catch {
      // Private mode or a full quota: preferences are a convenience.
    }
  };
  return {
    view: prefs.view ?? 'split',
    theme: prefs.theme ?? systemTheme(),
    // Open until a session is: then the tree needs the width (unless the user pinned the list).
    sidebarOpen: true,
    sidebarPinned: prefs.sidebarPinned ?? false,
    splitRatio: prefs.splitRatio ?? DEFAULT_SPLIT_RATIO,
    detailWidth: prefs.detailWidth ?? DEFAULT_DETAIL_WIDTH,
    expandedRuns: new Set(),
    showLabelTimes: false,

    toggleLabelTimes() {
      set({ showLabelTimes: !get().showLabelTimes });
    },

    setView(view) {
      set({ view });
      save();
    },

    setTheme(theme) {
      set({ theme });
      save();
    },

    toggleSidebar() {
      const open = !get().sidebarOpen;
      // Hiding a pinned list is a choice against keeping it open.
      set(open ? { sidebarOpen: true } : { sidebarOpen: false, sidebarPinned: false });
      save();
    },

    setSidebarPinned(pinned) {
      set(pinned ? { sidebarPinned: true, sidebarOpen: true } : { sidebarPinned: false });
      save();
    },

    foldSidebarUnlessPinned() {
      if (!get().sidebarPinned) set({ sidebarOpen: false });
    },

    showSidebar() {
      set({ sidebarOpen: true });
    },

    setSplitRatio(ratio) {
      set({ splitRatio: clampSplitRatio(ratio) });
      save();
    },

    setDetailWidth(width) {
      set({ detailWidth: clampDetailWidth(width) });
      save();
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
  };
}
