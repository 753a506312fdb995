import type { LaneResponse } from '@canopy/protocol';
import { describe, expect, it, vi } from 'vitest';
import { createAppStore } from '../appStore';
import { fakeApi, listItem, snapshotParts, sampleNodes, streamOf } from '../testing';
import { unfoldedLanesOf } from './lanes';

const LANE: LaneResponse = {
  sessionId: 'sub',
  entries: [{ id: 'x1', role: 'user', text: 'user: scan', error: false }],
  omitted: 0,
  leafId: 'x1',
};

describe('lanes slice', () => {
  it('unfolds a lane, fetching its run once; folding hides it, unfolding again asks nothing', async () => {
    const lane = vi.fn(() => Promise.resolve(LANE));
    const store = createAppStore({ api: fakeApi({ lane }), storage: null });
    await store.getState().openSession('s1');
    store.getState().toggleLane('sub');
    expect(unfoldedLanesOf(store.getState()).has('sub')).toBe(true);
    expect(store.getState().laneLoads.sub).toEqual({ status: 'loading' });
    await vi.waitFor(() => expect(store.getState().laneLoads.sub).toEqual({ status: 'ready', lane: LANE }));
    store.getState().toggleLane('sub');
    expect(unfoldedLanesOf(store.getState()).has('sub')).toBe(false);
    store.getState().toggleLane('sub');
    expect(unfoldedLanesOf(store.getState()).has('sub')).toBe(true);
    expect(lane).toHaveBeenCalledTimes(1);
    expect(lane).toHaveBeenCalledWith('sub');
  });

  it('shows a failure in place and asks again on the next unfold', async () => {
    const lane = vi
      .fn<(id: string) => Promise<LaneResponse>>()
      .mockRejectedValueOnce(new Error('Session not found'))
      .mockResolvedValueOnce(LANE);
    const store = createAppStore({ api: fakeApi({ lane }), storage: null });
    await store.getState().openSession('s1');
    store.getState().toggleLane('sub');
    await vi.waitFor(() =>
      expect(store.getState().laneLoads.sub).toEqual({ status: 'error', message: 'Session not found' }),
    );
    store.getState().toggleLane('sub');
    store.getState().toggleLane('sub');
    await vi.waitFor(() => expect(store.getState().laneLoads.sub).toEqual({ status: 'ready', lane: LANE }));
    expect(lane).toHaveBeenCalledTimes(2);
  });

  it('keeps the unfolded lanes with their session: another file opens with its lanes folded', async () => {
    const lane = vi.fn(() => Promise.resolve(LANE));
    const getSession = vi.fn((id: string) =>
      streamOf(snapshotParts(sampleNodes(), 'a4', 3, { session: listItem(id) })),
    );
    const store = createAppStore({ api: fakeApi({ lane, getSession }), storage: null });
    await store.getState().openSession('s1');
    store.getState().toggleLane('sub');
    await store.getState().openSession('s2');
    expect(store.getState().session?.id).toBe('s2');
    expect(unfoldedLanesOf(store.getState()).size).toBe(0);
  });
});
