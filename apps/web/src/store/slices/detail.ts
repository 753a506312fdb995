// Full entries (content, tool output, images) fetched on demand for the detail panel, cached per
// open session; the tree holds only the rows' facts.

import type { EntryDetail } from '@canopy/protocol';
import type { StoreKit } from './kit';

export interface DetailSlice {
  detailCache: ReadonlyMap<string, EntryDetail>;
  loadDetail(entryId: string): Promise<EntryDetail | null>;
  /** These entries changed (a label, a late tool result): fetch them again when next shown. */
  forgetDetails(entryIds: readonly string[]): void;
  clearDetails(): void;
}

/** Details can be large (images, tool output): the oldest are evicted past this many. */
const DETAIL_CACHE_LIMIT = 300;

export function createDetailSlice({ set, get, api }: StoreKit): DetailSlice {
  return {
    detailCache: new Map(),

    async loadDetail(entryId) {
      const open = get().session;
      if (!open) return null;
      const cached = get().detailCache.get(entryId);
      if (cached) return cached;
      const detail = await api.getEntry(open.id, entryId);
      if (get().session?.id !== open.id) return null;
      const next = new Map(get().detailCache);
      next.set(entryId, detail);
      while (next.size > DETAIL_CACHE_LIMIT) next.delete(next.keys().next().value!);
      set({ detailCache: next });
      return detail;
    },

    forgetDetails(entryIds) {
      const cache = get().detailCache;
      if (!entryIds.some((id) => cache.has(id))) return;
      const next = new Map(cache);
      for (const id of entryIds) next.delete(id);
      set({ detailCache: next });
    },

    clearDetails() {
      set({ detailCache: new Map() });
    },
  };
}
