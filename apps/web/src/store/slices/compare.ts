// The compare view, the file lens and the files of the current branch (docs/branches.md#the-compare-view):
// what is open, and the server's answers. Everything is computed by the server (session-core's
// compareBranches, FileReconstruction, fileLens); the page only fetches and draws, so a 50,000-entry
// path never runs on the page's main thread.

import type { CompareResponse, FileLensResponse, FilesResponse } from '@canopy/protocol';
import { messageOf } from '../../net/errors';
import { leafIdOf, selectedIdOf } from '../selectors';
import type { SliceKit } from './kit';

export type CompareTab = 'lanes' | 'files';

export interface Fetched<T> {
  data: T | null;
  loading: boolean;
  error: string | null;
}

export interface CompareState {
  /** The two compared entries, as picked (lane A, lane B). */
  a: string;
  b: string;
  tab: CompareTab;
  result: Fetched<CompareResponse>;
  /** Each lane's files after the common ancestor; fetched when the Files tab is first shown. */
  files: Fetched<{ a: FilesResponse; b: FilesResponse }>;
}

export interface FileLensState extends Fetched<FileLensResponse> {
  path: string;
}

export interface BranchFilesState extends Fetched<FilesResponse> {
  /** The path's last entry; null is the current leaf. */
  at: string | null;
}

export interface CompareSlice {
  compare: CompareState | null;
  fileLens: FileLensState | null;
  branchFiles: BranchFilesState | null;
  /** Opens the compare view of the paths to `a` and `b` (they may come from a shared URL). */
  openCompare(a: string, b: string, tab?: CompareTab): Promise<void>;
  closeCompare(): void;
  /**
   * Shift+C and the toolbar's Compare: the two entries of the multi-entry selection when it holds
   * exactly two, else the selected entry against the leaf; a toast says what to select otherwise.
   */
  compareSelected(): Promise<void>;
  setCompareTab(tab: CompareTab): Promise<void>;
  /** One file through every branch that touched it. */
  openFileLens(path: string): Promise<void>;
  closeFileLens(): void;
  /** The files the path to `at` (the current leaf when null) changed. */
  openBranchFiles(at?: string | null): Promise<void>;
  closeBranchFiles(): void;
  /**
   * Selects an entry the compare view or a file list links to, so the detail panel shows it: an entry
   * the tree's filter hides is shown by switching to "All" first; a reply holding only tool calls
   * (never a row) by its first child, the call's result.
   */
  selectLinkedEntry(id: string): void;
  /** Esc: closes the innermost of the file lens, the branch files and the compare view; false if none was open. */
  closeInnermostCompareView(): boolean;
}

const loading = <T>(): Fetched<T> => ({ data: null, loading: true, error: null });
const failed = <T>(error: unknown): Fetched<T> => ({ data: null, loading: false, error: messageOf(error) });

export function createCompareSlice({
  set,
  get,
  api,
  subscribe,
  notifyLocation,
}: SliceKit<CompareSlice>): CompareSlice {
  // The views belong to the open session: another session (or none) closes them.
  subscribe((state, previous) => {
    if (state.session?.id === previous.session?.id) return;
    if (state.compare || state.fileLens || state.branchFiles)
      set({ compare: null, fileLens: null, branchFiles: null });
  });
  const loadLaneFiles = async (state: CompareState) => {
    const sessionId = get().session?.id;
    const result = state.result.data;
    if (!sessionId || !result || state.files.data || state.files.loading) return;
    const still = () => get().compare?.a === state.a && get().compare?.b === state.b;
    set({ compare: { ...state, files: loading() } });
    let files: CompareState['files'];
    try {
      const [a, b] = await Promise.all([
        api.getFiles(sessionId, result.a.leafId, result.ancestorId),
        api.getFiles(sessionId, result.b.leafId, result.ancestorId),
      ]);
      files = { data: { a, b }, loading: false, error: null };
    } catch (error) {
      files = failed(error);
    }
    const current = get().compare;
    if (current && still()) set({ compare: { ...current, files } });
  };

  return {
    compare: null,
    fileLens: null,
    branchFiles: null,

    async compareSelected() {
      const state = get();
      const picked = [...state.multiSelection];
      if (picked.length === 2) return get().openCompare(picked[0]!, picked[1]!);
      const selected = selectedIdOf(state);
      const leaf = leafIdOf(state);
      if (selected && leaf && selected !== leaf) return get().openCompare(selected, leaf);
      state.toast(
        'Select an entry off the current branch to compare it with the leaf (or select two entries with Ctrl-click).',
      );
    },

    async openCompare(a, b, tab = 'lanes') {
      const sessionId = get().session?.id;
      if (!sessionId) return;
      const state: CompareState = {
        a,
        b,
        tab,
        result: loading(),
        files: { data: null, loading: false, error: null },
      };
      set({ compare: state, branchFiles: null });
      notifyLocation();
      let result: CompareState['result'];
      try {
        result = { data: await api.compareBranches(sessionId, a, b), loading: false, error: null };
      } catch (error) {
        result = failed(error);
      }
      const current = get().compare;
      if (current?.a !== a || current.b !== b) return;
      const next = { ...current, result };
      set({ compare: next });
      if (next.tab === 'files') await loadLaneFiles(next);
    },

    closeCompare() {
      if (!get().compare && !get().fileLens) return;
      set({ compare: null, fileLens: null });
      notifyLocation();
    },

    async setCompareTab(tab) {
      const current = get().compare;
      if (!current) return;
      const next = { ...current, tab };
      set({ compare: next });
      if (tab === 'files') await loadLaneFiles(next);
    },

    async openFileLens(path) {
      const sessionId = get().session?.id;
      if (!sessionId) return;
      set({ fileLens: { path, ...loading<FileLensResponse>() } });
      notifyLocation();
      let lens: FileLensState;
      try {
        lens = { path, data: await api.getFileLens(sessionId, path), loading: false, error: null };
      } catch (error) {
        lens = { path, ...failed<FileLensResponse>(error) };
      }
      if (get().fileLens?.path === path) set({ fileLens: lens });
    },

    closeFileLens() {
      if (!get().fileLens) return;
      set({ fileLens: null });
      notifyLocation();
    },

    async openBranchFiles(at = null) {
      const sessionId = get().session?.id;
      if (!sessionId) return;
      set({ branchFiles: { at, ...loading<FilesResponse>() } });
      let files: BranchFilesState;
      try {
        files = { at, data: await api.getFiles(sessionId, at, null), loading: false, error: null };
      } catch (error) {
        files = { at, ...failed<FilesResponse>(error) };
      }
      if (get().branchFiles?.at === at) set({ branchFiles: files });
    },

    closeBranchFiles() {
      set({ branchFiles: null });
    },

    selectLinkedEntry(id) {
      const tree = get().treeView?.tree;
      if (!tree?.has(id)) return;
      // An assistant reply holding only tool calls has no row in any filter (as in pi): its first
      // child, the call's result, stands for it (its row and detail show the call).
      const candidates = [id, ...tree.childrenOf(id)];
      const trySelect = () => {
        for (const candidate of candidates) {
          get().select(candidate);
          if (selectedIdOf(get()) === candidate) return true;
        }
        return false;
      };
      if (trySelect() || get().treeView?.mode === 'all') return;
      get().setFilter('all');
      trySelect();
    },

    closeInnermostCompareView() {
      if (get().fileLens) get().closeFileLens();
      else if (get().branchFiles) get().closeBranchFiles();
      else if (get().compare) get().closeCompare();
      else return false;
      return true;
    },
  };
}
