// Picking outline rows into the multi-entry selection: Ctrl/⌘-click toggles a row, Shift-click
// adds the rows from the last plainly clicked row (the anchor) to this one, and dragging with
// Shift held extends that range row by row.

import type { StoreApi } from 'zustand/vanilla';
import type { AppStore } from '../store/appStore';

interface Modifiers {
  shiftKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey?: boolean;
}

/** The click builds the multi-selection instead of moving the cursor. */
export function isMultiSelectClick(e: Modifiers): boolean {
  return e.shiftKey || e.ctrlKey || e.metaKey;
}

export function rowSelectPointerDown(store: StoreApi<AppStore>, id: string, e: Modifiers): void {
  const state = store.getState();
  if (e.ctrlKey || e.metaKey) {
    state.setMultiSelection([id], 'toggle');
    return;
  }
  if (e.shiftKey) {
    state.selectRangeTo(id);
    return;
  }
  // A plain click is where the next Shift-click range starts.
  state.setSelectionAnchor(id);
}

export function rowSelectPointerEnter(
  store: StoreApi<AppStore>,
  id: string,
  e: Modifiers & { buttons: number },
): void {
  // Only a Shift-drag (primary button held) extends the range.
  if (e.shiftKey && (e.buttons & 1) === 1) store.getState().selectRangeTo(id);
}
