// The multi-entry selection that the graph's rectangle and shift/ctrl-clicks build, across
// branches: what a selection summary summarises. Separate from the tree selector's one selection.

import type { SliceKit } from './kit';

export type SelectionMode = 'replace' | 'add' | 'toggle';

export interface MultiSelectionSlice {
  /** Entries picked for summarising (graph rectangle, shift/ctrl-clicks), across branches. */
  multiSelection: ReadonlySet<string>;
  /** Where a shift-click range starts: the last entry clicked into the selection. */
  selectionAnchor: string | null;
  setMultiSelection(ids: Iterable<string>, mode: SelectionMode): void;
  /** Adds the outline rows from the anchor to `id` (shift-click). */
  selectRangeTo(id: string): void;
  clearMultiSelection(): void;
  /** Where the next shift-click range starts (a plain click on an outline row). */
  setSelectionAnchor(id: string | null): void;
}

const EMPTY: ReadonlySet<string> = new Set();

export function createMultiSelectionSlice({ set, get }: SliceKit<MultiSelectionSlice>): MultiSelectionSlice {
  return {
    multiSelection: EMPTY,
    selectionAnchor: null,

    setMultiSelection(ids, mode) {
      const next = new Set(mode === 'replace' ? [] : get().multiSelection);
      let last: string | null = null;
      for (const id of ids) {
        if (mode === 'toggle' && next.has(id)) next.delete(id);
        else next.add(id);
        last = id;
      }
      set({ multiSelection: next, selectionAnchor: last ?? get().selectionAnchor });
    },

    selectRangeTo(id) {
      // Outline rows in display order.
      const rows = get().treeView?.rows.map((row) => row.id) ?? [];
      const anchor = get().selectionAnchor;
      const from = anchor === null ? -1 : rows.indexOf(anchor);
      const to = rows.indexOf(id);
      if (to < 0) return;
      const start = from < 0 ? to : Math.min(from, to);
      const end = from < 0 ? to : Math.max(from, to);
      const next = new Set(get().multiSelection);
      for (let i = start; i <= end; i++) next.add(rows[i]!);
      // The anchor stays, so a second shift-click re-extends from the same place.
      set({ multiSelection: next, selectionAnchor: anchor ?? id });
    },

    clearMultiSelection() {
      set({ multiSelection: EMPTY, selectionAnchor: null });
    },

    setSelectionAnchor(id) {
      set({ selectionAnchor: id });
    },
  };
}
