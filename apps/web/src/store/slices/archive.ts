// Archiving branches (docs/archive-and-family.md): archive or restore the branch under an entry, show
// or fold the archived branches, and the reviewable list of suggestions to tidy. The record reaches
// the tree once, through `session_changed` (the flag on its target's node), like every write.

import type { TidyResponse } from '@canopy/protocol';
import { isArchivedState, isArchiveRootState } from '@canopy/session-core';
import { messageOf } from '../../net/errors';
import { selectedIdOf, treeOf } from '../selectors';
import type { SliceKit } from './kit';

export interface ArchiveSlice {
  /** The tidy list, while it is open: null while it loads. */
  tidy: { suggestions: TidyResponse | null } | null;
  /** The entry menu (a right click on a row or a graph node), where it opens. */
  entryMenu: { id: string; x: number; y: number } | null;
  openEntryMenu(id: string, x: number, y: number): void;
  closeEntryMenu(): void;
  /** Shows archived branches dimmed, or folds them into their stubs again (Alt+R). */
  toggleArchivedRevealed(): void;
  /** Appends an archive (or restore) record for the branch under `id`. */
  setArchived(id: string, archived: boolean): Promise<void>;
  /** Shift+A: archives the selected branch, or restores the archived branch the selection is in. */
  toggleArchiveSelected(): void;
  openTidy(): Promise<void>;
  closeTidy(): void;
}

/** The root of the archived branch that holds `id` (itself when it is one), or null. */
export function archiveRootOf(
  tree: { archiveStateOf(id: string): number; parentOf(id: string): string | null },
  id: string,
): string | null {
  for (let at: string | null = id; at !== null; at = tree.parentOf(at)) {
    const state = tree.archiveStateOf(at);
    if (!isArchivedState(state)) return null;
    if (isArchiveRootState(state)) return at;
  }
  return null;
}

export function createArchiveSlice({ set, get, api }: SliceKit<ArchiveSlice>): ArchiveSlice {
  const refreshTidy = async () => {
    const open = get().session;
    if (!open || get().tidy === null) return;
    try {
      const suggestions = await api.tidySuggestions(open.id);
      if (get().tidy !== null && get().session?.id === open.id) set({ tidy: { suggestions } });
    } catch (error) {
      get().toast(messageOf(error), 'error');
    }
  };

  return {
    tidy: null,
    entryMenu: null,
    openEntryMenu(id, x, y) {
      set({ entryMenu: { id, x, y } });
    },

    closeEntryMenu() {
      set({ entryMenu: null });
    },

    toggleArchivedRevealed() {
      const tree = treeOf(get());
      if (!tree) return;
      tree.setArchivedRevealed(!tree.archivedRevealed);
      get().dispatch({ type: 'refresh' });
      get().toast(tree.archivedRevealed ? 'Archived branches shown, dimmed' : 'Archived branches folded');
    },

    async setArchived(id, archived) {
      const open = get().session;
      if (!open) return;
      try {
        const result = await api.setArchived(open.id, id, archived);
        const arrived = await get().whenState((state) => treeOf(state)?.has(result.recordId) ?? false);
        if (!arrived) return;
        // Its row stays where it was (a stub now, or the branch again): selected already (Shift+A),
        // it needs no new selection and no scroll, which would render both views once more.
        if (selectedIdOf(get()) !== id) get().select(id);
        get().toast(
          archived
            ? 'Branch archived: nothing was deleted (Alt+R shows archived branches)'
            : 'Branch restored',
        );
        await refreshTidy();
      } catch (error) {
        get().toast(messageOf(error), 'error');
      }
    },

    toggleArchiveSelected() {
      const tree = treeOf(get());
      const id = selectedIdOf(get());
      if (!tree || !id) return;
      const root = archiveRootOf(tree, id);
      void get().setArchived(root ?? id, root === null);
    },

    async openTidy() {
      set({ tidy: { suggestions: null } });
      await refreshTidy();
    },

    closeTidy() {
      set({ tidy: null });
    },
  };
}
