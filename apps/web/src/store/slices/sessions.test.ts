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
