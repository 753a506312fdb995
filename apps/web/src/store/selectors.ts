// Reads of the store's state that several components and slices share. The tree, its leaf and its
// version live once, in the selector state; these name them.

import type { FilterMode, TreeSelectorState, ViewTree } from '@canopy/session-core';
import { selectedRow } from '@canopy/session-core';

type WithSelector = { selector: TreeSelectorState | null };

/** The selected entry: the selected row, or the remembered entry while a filter shows nothing. */
export function selectedIdOf(state: WithSelector): string | null {
  const selector = state.selector;
  if (!selector) return null;
  return selectedRow(selector)?.id ?? selector.lastSelectedId;
}

export function treeOf(state: WithSelector): ViewTree | null {
  return state.selector?.tree ?? null;
}

/** Changes with every change to the tree (append, label, replaced row); 0 without a session. */
export function treeVersionOf(state: WithSelector): number {
  return state.selector?.treeVersion ?? 0;
}

export function leafIdOf(state: WithSelector): string | null {
  return state.selector?.leafId ?? null;
}

/** The filter in use, or the one the next session opens with. */
export function filterModeOf(state: WithSelector & { idleFilterMode: FilterMode }): FilterMode {
  return state.selector?.mode ?? state.idleFilterMode;
}
