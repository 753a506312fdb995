// The app's zustand store, composed from one slice per concern (store/slices/): connection,
// sessions, the open tree, selection/filter/search, the multi-entry selection, dialogs, writes,
// toasts, entry details, preferences, archive, the family and its lanes, summaries, bring-back and
// the compare view. A factory, so tests and the app each make their own instance;
// components reach it through StoreProvider / useApp with atomic selectors and change it through
// its actions only. Each field has one owner: a slice writes only its own fields (slices/kit.ts).

import { createStore, type StoreApi } from 'zustand/vanilla';
import { api as defaultApi } from '../net/api';
import { ListFetches } from './listFetches';
import { selectedIdOf } from './selectors';
import { createArchiveSlice, type ArchiveSlice } from './slices/archive';
import { createFamilySlice, type FamilySlice } from './slices/family';
import { createLanesSlice, type LanesSlice } from './slices/lanes';
import { createBringBackSlice, type BringBackSlice } from './slices/bringBack';
import { createCompareSlice, type CompareSlice } from './slices/compare';
import { createConnectionSlice, type ConnectionSlice } from './slices/connection';
import { createDetailSlice, type DetailSlice } from './slices/detail';
import { createDialogsSlice, type DialogsSlice } from './slices/dialogs';
import { createMultiSelectionSlice, type MultiSelectionSlice } from './slices/multiSelection';
import type { StoreDeps, StoreKit } from './slices/kit';
import { createPreferencesSlice, type PreferencesSlice } from './slices/preferences';
import { createProvidersSlice, type ProvidersSlice } from './slices/providers';
import { createSelectionSlice, type SelectionSlice } from './slices/selection';
import { createSessionsSlice, type SessionsSlice } from './slices/sessions';
import {
  createSummaryActions,
  initialSummaryState,
  type SummaryActions,
  type SummaryState,
} from './slices/summary';
import { createToastSlice, type ToastSlice } from './slices/toasts';
import { createTreeSlice, type TreeSlice } from './slices/tree';
import { createWritesSlice, type WritesSlice } from './slices/writes';

export type { StoreDeps } from './slices/kit';
export type { SessionHead } from './live';
export type { Toast } from './slices/toasts';
export type { Theme, ViewMode } from './slices/preferences';
export { JUMPED_TO_USER_MESSAGE } from './slices/writes';
export { selectedIdOf } from './selectors';

export type AppStore = ConnectionSlice &
  SessionsSlice &
  TreeSlice &
  SelectionSlice &
  DialogsSlice &
  WritesSlice &
  ToastSlice &
  DetailSlice &
  PreferencesSlice &
  MultiSelectionSlice &
  ProvidersSlice &
  ArchiveSlice &
  FamilySlice &
  LanesSlice &
  SummaryState &
  SummaryActions &
  BringBackSlice &
  CompareSlice;

export function createAppStore(deps: StoreDeps = {}): StoreApi<AppStore> {
  const api = deps.api ?? defaultApi;
  const storage =
    deps.storage !== undefined ? deps.storage : typeof localStorage !== 'undefined' ? localStorage : null;

  return createStore<AppStore>()((set, get, store) => {
    const notifyLocation = () => {
      const { compare, fileLens } = get();
      deps.onLocationChange?.(get().session?.id ?? null, selectedIdOf(get()), {
        compare: compare ? [compare.a, compare.b] : null,
        file: fileLens?.path ?? null,
      });
    };
    const kit: StoreKit = {
      set,
      get,
      subscribe: store.subscribe,
      api,
      storage,
      notifyLocation,
      listFetches: new ListFetches(),
      selectionMoved(before) {
        const after = selectedIdOf(get());
        if (after === before) return;
        const editing = get().labelEditingId;
        if (editing !== null && editing !== after) get().cancelLabelEdit();
        notifyLocation();
      },
    };
    const summary = createSummaryActions<AppStore>(set, get, {
      api,
      sessionId: () => get().session?.id ?? null,
      defaultSummarizerId: () => {
        const offered = get().info?.summarizers ?? [];
        const chosen = get().settings.branchSummary.summarizerId;
        if (chosen && offered.some((s) => s.id === chosen)) return chosen;
        return get().info?.defaultSummarizerId ?? null;
      },
      jump: (id, options) => get().jump(id, options),
      whenEntry: (id) => get().whenState((state) => state.treeView?.tree.has(id) ?? false),
      select: (id) => get().select(id),
      toast: (text, kind) => get().toast(text, kind),
    });

    return {
      ...createConnectionSlice(kit),
      ...createSessionsSlice(kit),
      ...createTreeSlice(kit),
      ...createSelectionSlice(kit),
      ...createDialogsSlice(kit),
      ...createWritesSlice(kit),
      ...createToastSlice(kit),
      ...createDetailSlice(kit),
      ...createPreferencesSlice(kit),
      ...createMultiSelectionSlice(kit),
      ...createProvidersSlice(kit),
      ...createArchiveSlice(kit),
      ...createFamilySlice(kit),
      ...createLanesSlice(kit),
      ...initialSummaryState(),
      ...summary,
      ...createBringBackSlice(kit),
      ...createCompareSlice(kit),
    };
  });
}
