import { DEFAULT_SETTINGS, type SessionListResponse } from '@canopy/protocol';
import { describe, expect, it, vi } from 'vitest';
import { createAppStore } from '../appStore';
import { fakeApi, listItem } from '../testing';

describe('sessions slice: init', () => {
  it('resolves with the info and settings while the session list is still loading, and the list lands later', async () => {
    let answerList: (list: SessionListResponse) => void = () => undefined;
    const list = new Promise<SessionListResponse>((resolve) => (answerList = resolve));
    const settings = { ...DEFAULT_SETTINGS, defaultFilter: 'user-only' as const };
    const store = createAppStore({
      api: fakeApi({ listSessions: () => list, getSettings: () => Promise.resolve(settings) }),
      storage: null,
    });
    await store.getState().init();
    expect(store.getState().sessionsLoaded).toBe(false);
    expect(store.getState().idleFilterMode).toBe('user-only');
    answerList({ sessions: [listItem('s1')] });
    await expect.poll(() => store.getState().sessionsLoaded).toBe(true);
    expect(store.getState().sessions.map((item) => item.id)).toEqual(['s1']);
  });
});

describe('sessions slice: a list the server is still reading', () => {
  it('keeps how far the reading is, and fetches the whole list when the server says it ended', async () => {
    const answers: SessionListResponse[] = [
      { sessions: [listItem('s1')], listing: { read: 1, total: 2 } },
      { sessions: [listItem('s1'), listItem('s2')] },
    ];
    const listSessions = vi.fn(() => Promise.resolve(answers.shift()!));
    const store = createAppStore({ api: fakeApi({ listSessions }), storage: null });
    await store.getState().loadSessions();
    expect(store.getState().listing).toEqual({ read: 1, total: 2 });
    store.getState().handleEvent({ type: 'session_list_changed', upserted: [], removed: [], listing: null });
    await expect.poll(() => store.getState().sessions.length).toBe(2);
    expect(listSessions).toHaveBeenCalledTimes(2);
    expect(store.getState().listing).toBeNull();
  });
});

describe('sessions slice: a list fetched while list events arrive', () => {
  /** A store whose list fetches wait until the test answers them, in the order they were made. */
  function storeWithHeldFetches() {
    const answers: ((list: SessionListResponse) => void)[] = [];
    const listSessions = vi.fn(() => new Promise<SessionListResponse>((resolve) => answers.push(resolve)));
    const store = createAppStore({ api: fakeApi({ listSessions }), storage: null });
    return { store, answers };
  }
  const ids = (store: ReturnType<typeof storeWithHeldFetches>['store']) =>
    store.getState().sessions.map((item) => item.id);

  it('keeps a row an event added while a Refresh was in flight, when the answer was read before it', async () => {
    const { store, answers } = storeWithHeldFetches();
    const refreshed = store.getState().loadSessions();
    // The file is listed, and its event arrives, before the (older) answer of the refresh.
    store.getState().handleEvent({ type: 'session_list_changed', upserted: [listItem('new')], removed: [] });
    expect(ids(store)).toEqual(['new']);
    answers[0]!({ sessions: [listItem('s1')] });
    await refreshed;
    expect(ids(store).sort()).toEqual(['new', 's1']);
  });

  it('keeps a removal and the newest row heard during the fetch, in the order they came', async () => {
    const { store, answers } = storeWithHeldFetches();
    const refreshed = store.getState().loadSessions();
    store.getState().handleEvent({ type: 'session_list_changed', upserted: [], removed: ['gone'] });
    store.getState().handleEvent({
      type: 'session_list_changed',
      upserted: [{ ...listItem('s1'), name: 'renamed' }],
      removed: [],
    });
    answers[0]!({ sessions: [listItem('s1'), listItem('gone')] });
    await refreshed;
    expect(ids(store)).toEqual(['s1']);
    expect(store.getState().sessions[0]!.name).toBe('renamed');
  });

  it('replays to each of two overlapping fetches what was heard after it began, and forgets it once both end', async () => {
    const { store, answers } = storeWithHeldFetches();
    const first = store.getState().loadSessions();
    store.getState().handleEvent({ type: 'session_list_changed', upserted: [listItem('a')], removed: [] });
    const second = store.getState().loadSessions();
    store.getState().handleEvent({ type: 'session_list_changed', upserted: [listItem('b')], removed: [] });
    answers[0]!({ sessions: [] });
    await first;
    expect(ids(store).sort()).toEqual(['a', 'b']);
    // The second was read after `a` was listed: only `b` is replayed onto it.
    answers[1]!({ sessions: [listItem('a'), listItem('s1')] });
    await second;
    expect(ids(store).sort()).toEqual(['a', 'b', 's1']);
    // With no fetch in flight, nothing heard before is replayed onto the next answer.
    store.getState().handleEvent({ type: 'session_list_changed', upserted: [listItem('c')], removed: [] });
    const third = store.getState().loadSessions();
    answers[2]!({ sessions: [listItem('s1')] });
    await third;
    expect(ids(store)).toEqual(['s1']);
  });
});
