import type { FamilyMemberItem, LaneResponse } from '@canopy/protocol';
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

function familyMember(id: string): FamilyMemberItem {
  return {
    id,
    name: id,
    path: `${id}.jsonl`,
    kind: 'subagent',
    archived: false,
    parentId: 's1',
    graftId: 'a2',
    toolCallId: 'call-1',
    depth: 1,
    entryCount: 1,
    lastActivity: 0,
    problems: [],
  };
}

describe('lanes slice', () => {
  it('unfolds a lane, fetching its run once; folding hides it, unfolding again asks nothing', async () => {
    const lane = vi.fn(() => Promise.resolve(LANE));
    const store = createAppStore({ api: fakeApi({ lane }), storage: null });
    await store.getState().openSession('s1');
    store.getState().toggleLane('sub');
    expect(unfoldedLanesOf(store.getState()).has('sub')).toBe(true);
    expect(store.getState().laneLoads.sub).toEqual({ status: 'loading' });
    await vi.waitFor(() =>
      expect(store.getState().laneLoads.sub).toEqual({ status: 'ready', lane: LANE, asOf: 0 }),
    );
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
    await vi.waitFor(() =>
      expect(store.getState().laneLoads.sub).toEqual({ status: 'ready', lane: LANE, asOf: 0 }),
    );
    expect(lane).toHaveBeenCalledTimes(2);
  });

  it('asks again on unfolding when the family says the file changed since (an agent still running)', async () => {
    const longer: LaneResponse = { ...LANE, entries: [...LANE.entries, { ...LANE.entries[0]!, id: 'x2' }] };
    const lane = vi
      .fn<(id: string) => Promise<LaneResponse>>()
      .mockResolvedValueOnce(LANE)
      .mockResolvedValueOnce(longer);
    let lastActivity = 1;
    const family = vi.fn(() =>
      Promise.resolve({
        members: [{ ...familyMember('sub'), lastActivity }],
      }),
    );
    const store = createAppStore({ api: fakeApi({ lane, family }), storage: null });
    await store.getState().openSession('s1');
    await store.getState().loadFamily();
    store.getState().toggleLane('sub');
    await vi.waitFor(() =>
      expect(store.getState().laneLoads.sub).toEqual({ status: 'ready', lane: LANE, asOf: 1 }),
    );
    store.getState().toggleLane('sub');
    store.getState().toggleLane('sub');
    expect(lane).toHaveBeenCalledTimes(1);

    lastActivity = 2;
    await store.getState().loadFamily();
    store.getState().toggleLane('sub');
    store.getState().toggleLane('sub');
    // The run drawn stays until the newer one is in.
    expect(store.getState().laneLoads.sub).toMatchObject({ status: 'ready', lane: LANE });
    await vi.waitFor(() =>
      expect(store.getState().laneLoads.sub).toEqual({ status: 'ready', lane: longer, asOf: 2 }),
    );
    expect(lane).toHaveBeenCalledTimes(2);
  });

  it('asks again for a lane on screen when the list says its file changed (the agent writes its own file)', async () => {
    const longer: LaneResponse = { ...LANE, entries: [...LANE.entries, { ...LANE.entries[0]!, id: 'x2' }] };
    const lane = vi
      .fn<(id: string) => Promise<LaneResponse>>()
      .mockResolvedValueOnce(LANE)
      .mockResolvedValueOnce(longer);
    const family = vi.fn(() => Promise.resolve({ members: [{ ...familyMember('sub'), lastActivity: 5 }] }));
    const store = createAppStore({ api: fakeApi({ lane, family }), storage: null });
    await store.getState().openSession('s1');
    await store.getState().loadFamily();
    store.getState().toggleLane('sub');
    await vi.waitFor(() =>
      expect(store.getState().laneLoads.sub).toEqual({ status: 'ready', lane: LANE, asOf: 5 }),
    );
    // Another file's row, or the agent's row unchanged since: nothing asked.
    store
      .getState()
      .handleEvent({ type: 'session_list_changed', upserted: [listItem('s9', { mtime: 50 })], removed: [] });
    store
      .getState()
      .handleEvent({ type: 'session_list_changed', upserted: [listItem('sub', { mtime: 5 })], removed: [] });
    expect(lane).toHaveBeenCalledTimes(1);
    // The agent wrote on: its lane, unfolded, is asked for again, the old run drawn meanwhile.
    store
      .getState()
      .handleEvent({ type: 'session_list_changed', upserted: [listItem('sub', { mtime: 9 })], removed: [] });
    expect(store.getState().laneLoads.sub).toMatchObject({ status: 'ready', lane: LANE });
    await vi.waitFor(() =>
      expect(store.getState().laneLoads.sub).toEqual({ status: 'ready', lane: longer, asOf: 9 }),
    );
    // Folded, a lane is not asked for as its file changes.
    store.getState().toggleLane('sub');
    store
      .getState()
      .handleEvent({ type: 'session_list_changed', upserted: [listItem('sub', { mtime: 20 })], removed: [] });
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
