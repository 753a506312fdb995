// Selection, filter and search: session-core's tree selector actions, run by the tree slice on the
// tree view it owns, plus the tick that asks the views to bring the selection into view.

import type { FilterMode, TreeSelectorAction } from '@canopy/session-core';
import { selectedIdOf } from '../selectors';
import type { SliceKit, StoreKit } from './kit';

export interface SelectionSlice {
  /** The filter the next session opens with while none is open (follows the last one used). */
  idleFilterMode: FilterMode;
  /** Bumped to ask the views to bring the selection into view (keyboard moves, jumps). */
  revealTick: number;
  /** Runs one tree selector action (keys, filters, search, selection). */
  dispatch(action: TreeSelectorAction, reveal?: boolean): void;
  select(id: string, reveal?: boolean): void;
  setFilter(mode: FilterMode): void;
  /** The filter the next session opens with (the settings' default, or the one the closed session used). */
  setIdleFilterMode(mode: FilterMode): void;
  /** Asks the views to bring the selection into view. */
  revealSelection(): void;
  setQuery(query: string): void;
  /** Search results: the next (1) or previous (-1) match, wrapping. */
  stepMatch(direction: 1 | -1): void;
  /** Esc with nothing left to clear: close what is open, or the session (back to the browser). */
  requestClose(): void;
}

export function createSelectionSlice(
  kit: SliceKit<SelectionSlice> & Pick<StoreKit, 'selectionMoved'>,
): SelectionSlice {
  const { set, get } = kit;
  return {
    idleFilterMode: 'default',
    revealTick: 0,

    dispatch(action, reveal = true) {
      const before = selectedIdOf(get());
      const next = get().runTreeAction(action);
      if (!next) return;
      if (reveal) get().revealSelection();
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

    setIdleFilterMode(mode) {
      set({ idleFilterMode: mode });
    },

    revealSelection() {
      set({ revealTick: get().revealTick + 1 });
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
      if (!state.closeInnermostEditor()) {
        state.closeSession();
        state.toast('Session closed: Enter or the browser’s Back opens it again');
      }
    },
  };
}
