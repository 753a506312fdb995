// The family of the open session across files (docs/archive-and-family.md#family-of-a-session): the
// files forked, branched or split off it and the one it came from, for the top bar's links.

import type { FamilyResponse } from '@canopy/protocol';
import { treeOf } from '../selectors';
import type { SliceKit } from './kit';

export interface FamilySlice {
  /** The family of the open session across files (docs/archive-and-family.md#family-of-a-session). */
  family: { sessionId: string; members: FamilyResponse['members'] } | null;
  /** Fetches the family of the open session (kept while it is the open one). */
  loadFamily(): Promise<void>;
  /** Opens a file of the family, with `entryId` (a graft point) selected once it is there. */
  openFamilyMember(id: string, entryId: string | null): Promise<void>;
}

export function createFamilySlice({ set, get, api }: SliceKit<FamilySlice>): FamilySlice {
  return {
    family: null,

    async loadFamily() {
      const open = get().session;
      if (!open) return;
      try {
        const { members } = await api.family(open.id);
        if (get().session?.id !== open.id) return;
        // Asked again after every change of the open file: the same family keeps its object, so the
        // chips, lanes and links do not render again for nothing.
        const known = get().family;
        if (known?.sessionId === open.id && JSON.stringify(known.members) === JSON.stringify(members)) return;
        set({ family: { sessionId: open.id, members } });
      } catch {
        // The family is an aid: without it the top bar shows the lineage from the session list.
        if (get().session?.id === open.id) set({ family: null });
      }
    },

    async openFamilyMember(id, entryId) {
      if (get().session?.id !== id) return get().openSession(id, entryId);
      if (entryId !== null && treeOf(get())?.has(entryId)) get().select(entryId);
    },
  };
}
