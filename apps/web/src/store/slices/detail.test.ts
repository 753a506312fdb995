import type { EntryDetail } from '@canopy/protocol';
import { describe, expect, it, vi } from 'vitest';
import { createAppStore } from '../appStore';
import { fakeApi } from '../testing';

/** The text the test put in a detail's entry. */
const textOf = (detail: EntryDetail | null | undefined) =>
  (detail?.entry as { text?: string } | undefined)?.text;

/** A getEntry whose answers the test gives, one per call, in the order they were asked. */
function heldEntries() {
  const waiting: Array<{ entryId: string; answer: (detail: EntryDetail) => void }> = [];
  const getEntry = vi.fn(
    (_sessionId: string, entryId: string) =>
      new Promise<EntryDetail>((answer) => waiting.push({ entryId, answer })),
  );
  const answer = (text: string) => {
    const next = waiting.shift()!;
    next.answer({ entry: { type: 'message', id: next.entryId, text }, childIds: [] });
  };
  return { getEntry, answer };
}

describe('detail slice', () => {
  it('asks the server once for an entry asked for again while the first request is out', async () => {
    const { getEntry, answer } = heldEntries();
    const store = createAppStore({ api: fakeApi({ getEntry }), storage: null });
    await store.getState().openSession('s1');
    const asks = [1, 2, 3].map(() => store.getState().loadDetail('u3'));
    expect(getEntry).toHaveBeenCalledTimes(1);
    answer('first');
    const details = await Promise.all(asks);
    expect(details.map((detail) => textOf(detail))).toEqual(['first', 'first', 'first']);
    expect(textOf(store.getState().detailCache.get('u3'))).toBe('first');
    // Cached now: no request.
    await store.getState().loadDetail('u3');
    expect(getEntry).toHaveBeenCalledTimes(1);
  });

  it('does not cache an answer to a request the entry changed after, and asks anew', async () => {
    const { getEntry, answer } = heldEntries();
    const store = createAppStore({ api: fakeApi({ getEntry }), storage: null });
    await store.getState().openSession('s1');
    const stale = store.getState().loadDetail('u3');
    store.getState().forgetDetails(['u3']);
    const fresh = store.getState().loadDetail('u3');
    expect(getEntry).toHaveBeenCalledTimes(2);
    answer('before the change');
    expect(textOf(await stale)).toBe('before the change');
    expect(store.getState().detailCache.has('u3')).toBe(false);
    answer('after the change');
    expect(textOf(await fresh)).toBe('after the change');
    expect(textOf(store.getState().detailCache.get('u3'))).toBe('after the change');
  });

  it('shares a failed request’s error with every ask, and asks again after it', async () => {
    const getEntry = vi
      .fn<(sessionId: string, entryId: string) => Promise<EntryDetail>>()
      .mockRejectedValueOnce(new Error('gone'))
      .mockResolvedValueOnce({ entry: { type: 'message', id: 'u3' }, childIds: [] });
    const store = createAppStore({ api: fakeApi({ getEntry }), storage: null });
    await store.getState().openSession('s1');
    const asks = [store.getState().loadDetail('u3'), store.getState().loadDetail('u3')];
    await expect(asks[0]).rejects.toThrow('gone');
    await expect(asks[1]).rejects.toThrow('gone');
    expect(((await store.getState().loadDetail('u3'))?.entry as { id?: string } | undefined)?.id).toBe('u3');
    expect(getEntry).toHaveBeenCalledTimes(2);
  });
});
