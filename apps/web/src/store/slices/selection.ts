// Selection, filter and search: session-core's tree selector reducer run on the tree slice's
// tree view state, plus the tick that asks the views to bring the selection into view.

import { treeSelectorReducer, type FilterMode, type TreeSelectorAction } from '@canopy/session-core';
import { selectedIdOf } from '../selectors';
import type { StoreKit } from './kit';

export interface SelectionSlice {
  /** The filter the next session opens with while none is open (follows the last one used). */
  idleFilterMode: FilterMode;
  /** Bumped to ask the views to bring the selection into view (keyboard moves, jumps). */
  revealTick: number;
  /** Runs one tree selector action (keys, filters, search, selection). */
  dispatch(action: TreeSelectorAction, reveal?: boolean): void;
  select(id: string, reveal?: boolean): void;
  setFilter(mode: FilterMode): void;
  setQuery(query: string): void;
  /** Search results: the next (1) or previous (-1) match, wrapping. */
  stepMatch(direction: 1 | -1): void;
  /** Esc with nothing left to clear: close what is open, or the session (back to the browser). */
  requestClose(): void;
}

export function createSelectionSlice(kit: StoreKit): SelectionSlice {
  const { set, get } = kit;
  return {
    idleFilterMode: 'default',
    revealTick: 0,

    dispatch(action, reveal = true) {
      const current = get().treeView;
      if (!current) return;
      const before = selectedIdOf(get());
      const next = treeSelectorReducer(current, action);
      set({
        ...(next !== current ? { treeView: next } : {}),
        ...(reveal ? { revealTick: get().revealTick + 1 } : {}),
      });
      kit.selectionMoved(before);
      if (next.closeRequested) get().requestClose();
    },

    select(id, reveal = true) {
      get().dispatch({ type: 'selectId', id }, reveal);
    },

    setFilter(mode) {
      if (get().treeView) get().dispatch({ type: 'setFilter', mode });
      else set({ idleFilterMode: mode });
    },

    setQuery(query) {
      get().dispatch({ type: 'setQuery', query });
    },

    stepMatch(direction) {
      const treeView = get().treeView;
      if (!treeView || treeView.query.trim() === '') return;
      // While searching, every row is a match (the search filters the rows), so stepping through
      // matches is moving through the rows, wrapping at the ends.
      get().dispatch({ type: 'move', delta: direction });
    },

    requestClose() {
      const state = get();
      if (state.labelEditingId) set({ labelEditingId: null });
      else if (state.branchPickerOpen) set({ branchPickerOpen: false });
      else if (state.branchConfirmId) set({ branchConfirmId: null });
      else {
        state.closeSession();
        state.toast('Session closed: Enter or the browser’s Back opens it again');
      }
    },
  };
}
