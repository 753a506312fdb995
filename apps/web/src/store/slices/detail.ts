// Full entries (content, tool output, images) fetched on demand for the detail panel, cached per
// open session; the tree holds only the rows' facts. Also the panel's other reads (an entry's
// context, an image blob, an oh-my-pi artifact), so every request the page makes goes through the
// store's actions and its injected api.

import type { ContextResponse, EntryDetail } from '@canopy/protocol';
import { entryCopyText, type SessionEntry } from '@canopy/session-core';
import type { ArtifactText } from '../../net/api';
import { selectedIdOf } from '../selectors';
import type { SliceKit } from './kit';

export interface DetailSlice {
  detailCache: ReadonlyMap<string, EntryDetail>;
  loadDetail(entryId: string): Promise<EntryDetail | null>;
  /** These entries changed (a label, a late tool result): fetch them again when next shown. */
  forgetDetails(entryIds: readonly string[]): void;
  clearDetails(): void;
  /** The context the model would see at entry `at` of session `sessionId` (not cached). */
  loadContext(sessionId: string, at: string): Promise<ContextResponse>;
  /** An image blob of the session (not cached: the view makes an object URL of it). */
  loadBlob(sessionId: string, hash: string): Promise<Blob>;
  /** An oh-my-pi artifact's text (not cached: the view keeps what it opened). */
  loadArtifact(sessionId: string, artifactId: string): Promise<ArtifactText>;
  /**
   * Ctrl+X and the detail panel's "Copy text": the selected entry's text as pi copies it
   * (docs/tree-and-context.md#copy) on the clipboard; a toast says what happened.
   */
  copySelected(): Promise<void>;
}

/** Details can be large (images, tool output): the oldest are evicted past this many. */
const DETAIL_CACHE_LIMIT = 300;

export function createDetailSlice({ set, get, api }: SliceKit<DetailSlice>): DetailSlice {
  // The requests on their way, by session and entry. The detail panel asks again for every tree
  // version, and while a fresh server streams a large session it answers an entry only once the
  // file is read: one request per entry is shared by every ask meanwhile, instead of one per part.
  // A request forgotten before it answers (the entry changed, the session closed) is not cached.
  const inFlight = new Map<string, { answer: Promise<EntryDetail>; forgotten: boolean }>();
  const keyOf = (sessionId: string, entryId: string) => JSON.stringify([sessionId, entryId]);
  const forget = (key: string) => {
    const request = inFlight.get(key);
    if (request) request.forgotten = true;
    inFlight.delete(key);
  };

  return {
    detailCache: new Map(),

    async loadDetail(entryId) {
      const open = get().session;
      if (!open) return null;
      const cached = get().detailCache.get(entryId);
      if (cached) return cached;
      const key = keyOf(open.id, entryId);
      // Only the ask that sent the request caches its answer; the others take it as it comes.
      const shared = inFlight.get(key);
      const request = shared ?? { answer: api.getEntry(open.id, entryId), forgotten: false };
      if (!shared) inFlight.set(key, request);
      let detail: EntryDetail;
      try {
        detail = await request.answer;
      } finally {
        if (inFlight.get(key) === request) inFlight.delete(key);
      }
      if (get().session?.id !== open.id) return null;
      if (shared || request.forgotten) return detail;
      const next = new Map(get().detailCache);
      next.set(entryId, detail);
      while (next.size > DETAIL_CACHE_LIMIT) next.delete(next.keys().next().value!);
      set({ detailCache: next });
      return detail;
    },

    forgetDetails(entryIds) {
      const open = get().session;
      if (open) for (const id of entryIds) forget(keyOf(open.id, id));
      const cache = get().detailCache;
      if (!entryIds.some((id) => cache.has(id))) return;
      const next = new Map(cache);
      for (const id of entryIds) next.delete(id);
      set({ detailCache: next });
    },

    async copySelected() {
      const id = selectedIdOf(get());
      if (!id) return;
      let text: string | undefined;
      try {
        const detail = await get().loadDetail(id);
        text = detail ? entryCopyText(detail.entry as unknown as SessionEntry) : undefined;
      } catch (error) {
        get().toast(`Could not read the entry to copy: ${(error as Error).message}`, 'error');
        return;
      }
      if (text === undefined) {
        get().toast('Nothing to copy: this entry has no text', 'info');
        return;
      }
      try {
        await navigator.clipboard.writeText(text);
        get().toast(`Copied ${text.length.toLocaleString('en')} characters`, 'info');
      } catch (error) {
        get().toast(`The browser refused the clipboard: ${(error as Error).message}`, 'error');
      }
    },

    clearDetails() {
      for (const key of [...inFlight.keys()]) forget(key);
      set({ detailCache: new Map() });
    },

    loadContext(sessionId, at) {
      return api.getContext(sessionId, at);
    },

    loadBlob(sessionId, hash) {
      return api.getBlob(sessionId, hash);
    },

    loadArtifact(sessionId, artifactId) {
      return api.getArtifact(sessionId, artifactId);
    },
  };
}
