import { describe, expect, it } from 'vitest';
import { createAppStore } from './appStore';
import { listAfterEvent } from './listFetches';
import { fakeApi, listItem, ownWrite } from './testing';

const listed = () =>
  fakeApi({ listSessions: () => Promise.resolve({ sessions: [listItem('s1'), listItem('s2')] }) });

describe('listAfterEvent', () => {
  it('replaces and adds upserted rows and drops removed ones', () => {
    const list = { sessions: [listItem('s1'), listItem('s2'), listItem('s3')], listing: null };
    const next = listAfterEvent(list, {
      type: 'session_list_changed',
      upserted: [listItem('s1', { name: 'Renamed', entryCount: 9 }), listItem('s4')],
      removed: ['s2'],
    });
    expect(next.sessions.map((s) => [s.id, s.entryCount])).toEqual([
      ['s1', 9],
      ['s3', 7],
      ['s4', 7],
    ]);
    expect(next.reloadList).toBe(false);
  });

  it("follows the server's first reading of the folders and asks for the whole list when it ends", () => {
    const during = listAfterEvent(
      { sessions: [listItem('s1')], listing: { read: 1, total: 3 } },
      {
        type: 'session_list_changed',
        upserted: [listItem('s2')],
        removed: [],
        listing: { read: 2, total: 3 },
      },
    );
    expect(during.listing).toEqual({ read: 2, total: 3 });
    expect(during.reloadList).toBe(false);
    // A change that is not part of the reading leaves its progress alone.
    const other = listAfterEvent(during, { type: 'session_list_changed', upserted: [], removed: ['s1'] });
    expect(other.listing).toEqual({ read: 2, total: 3 });
    const ended = listAfterEvent(other, {
      type: 'session_list_changed',
      upserted: [listItem('s3')],
      removed: [],
      listing: null,
    });
    expect(ended.listing).toBeNull();
    expect(ended.sessions.map((s) => s.id)).toEqual(['s2', 's3']);
    expect(ended.reloadList).toBe(true);
  });
});

describe('the session list in the store (its one writer, the sessions slice)', () => {
  it('renames the open session from a list event and keeps its tree', async () => {
    const store = createAppStore({ api: listed(), storage: null });
    await store.getState().loadSessions();
    await store.getState().openSession('s1');
    const treeView = store.getState().treeView;
    store.getState().handleEvent({
      type: 'session_list_changed',
      upserted: [listItem('s1', { name: 'Renamed' })],
      removed: [],
    });
    expect(store.getState().session?.name).toBe('Renamed');
    expect(store.getState().sessions.find((s) => s.id === 's1')?.name).toBe('Renamed');
    expect(store.getState().treeView).toBe(treeView);
  });

  it("stores another writer's activity once: the open session's row, which the list shows too", async () => {
    const store = createAppStore({ api: listed(), storage: null });
    await store.getState().loadSessions();
    await store.getState().openSession('s1');
    expect(store.getState().session?.item.writerActive).toBe(false);
    store.getState().handleEvent(ownWrite({ writerActive: true }));
    const state = store.getState();
    expect(state.session?.item.writerActive).toBe(true);
    expect(state.sessions.find((s) => s.id === 's1')).toBe(state.session?.item);
    expect('writerActive' in state).toBe(false);
  });
});
