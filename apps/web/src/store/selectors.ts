// Reads of the store's state that several components and slices share. The tree, its leaf and its
// version live once, in the tree view state; these name them.

import type { FilterMode, TreeSelectorState, ViewTree } from '@canopy/session-core';
import { selectedRow } from '@canopy/session-core';

type WithSelector = { treeView: TreeSelectorState | null };

/** The selected entry: the selected row, or the remembered entry while a filter shows nothing. */
export function selectedIdOf(state: WithSelector): string | null {
  const treeView = state.treeView;
  if (!treeView) return null;
  return selectedRow(treeView)?.id ?? treeView.lastSelectedId;
}

export function treeOf(state: WithSelector): ViewTree | null {
  return state.treeView?.tree ?? null;
}

/** Changes with every change to the tree (append, label, replaced row); 0 without a session. */
export function treeVersionOf(state: WithSelector): number {
  return state.treeView?.treeVersion ?? 0;
}

export function leafIdOf(state: WithSelector): string | null {
  return state.treeView?.leafId ?? null;
}

/** The filter in use, or the one the next session opens with. */
export function filterModeOf(state: WithSelector & { idleFilterMode: FilterMode }): FilterMode {
  return state.treeView?.mode ?? state.idleFilterMode;
}
