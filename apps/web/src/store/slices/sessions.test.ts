import { DEFAULT_SETTINGS, type SessionListResponse } from '@canopy/protocol';
import { describe, expect, it } from 'vitest';
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
