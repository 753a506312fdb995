import { encodeNodes } from '@canopy/protocol';
import { describe, expect, it, vi } from 'vitest';
import { createAppStore } from './appStore';
import { READ_PROGRESS_STEPS } from './live';
import { treeOf } from './selectors';
import {
  fakeApi,
  head,
  leafOf,
  listItem,
  node,
  rowsOf,
  sampleNodes,
  selected,
  snapshotParts,
  streamOf,
} from './testing';

describe('app store', () => {
  it('opens a session at its leaf, or at the deep-linked entry when it exists', async () => {
    const store = createAppStore({ api: fakeApi(), storage: null });
    await store.getState().openSession('s1');
    expect(leafOf(store)).toBe('a4');
    expect(selected(store)).toBe('a4');
    await store.getState().openSession('s1', 'u5');
    expect(selected(store)).toBe('u5');
    await store.getState().openSession('s1', 'nope');
    expect(selected(store)).toBe('a4');
  });

  it('moves the selection to the nearest visible ancestor when a filter hides it, and keeps it there', async () => {
    const store = createAppStore({ api: fakeApi(), storage: null });
    await store.getState().openSession('s1');
    store.getState().setFilter('user-only');
    expect(selected(store)).toBe('u3');
    store.getState().setFilter('default');
    expect(selected(store)).toBe('u3');
  });

  it('keeps the selection through a filter that shows nothing', async () => {
    const store = createAppStore({ api: fakeApi(), storage: null });
    await store.getState().openSession('s1');
    store.getState().setFilter('labeled-only');
    expect(rowsOf(store)).toEqual([]);
    expect(selected(store)).toBe('a4');
    store.getState().setFilter('default');
    expect(selected(store)).toBe('a4');
  });

  it('cycles filters forward and backward with wrap-around', async () => {
    const store = createAppStore({ api: fakeApi(), storage: null });
    await store.getState().openSession('s1');
    store.getState().dispatch({ type: 'cycleFilter', direction: -1 });
    expect(store.getState().treeView?.mode).toBe('all');
    expect(rowsOf(store)).toContain('m7');
    store.getState().dispatch({ type: 'cycleFilter', direction: 1 });
    expect(store.getState().treeView?.mode).toBe('default');
  });

  it('moves up and down with wrapping and pages without wrapping', async () => {
    const store = createAppStore({ api: fakeApi(), storage: null });
    await store.getState().openSession('s1');
    // Active branch first: u1 a2 u3 a4 u5 a6 (m7 hidden in default mode)
    expect(rowsOf(store)).toEqual(['u1', 'a2', 'u3', 'a4', 'u5', 'a6']);
    store.getState().select('a6');
    store.getState().dispatch({ type: 'move', delta: 1 });
    expect(selected(store)).toBe('u1');
    store.getState().dispatch({ type: 'move', delta: -1 });
    expect(selected(store)).toBe('a6');
    store.getState().dispatch({ type: 'setPageSize', pageSize: 100 });
    store.getState().dispatch({ type: 'page', delta: -1 });
    expect(selected(store)).toBe('u1');
  });

  it('shows one toast at a time: a newer one replaces the older', () => {
    const store = createAppStore({ api: fakeApi(), storage: null });
    store.getState().toast('first');
    store.getState().toast('second', 'error');
    store.getState().toast('third');
    expect(store.getState().toasts.map((t) => [t.text, t.kind])).toEqual([['third', 'info']]);
  });

  it('asks before /branch writes: requestBranch only opens the confirmation, Esc cancels it', async () => {
    const branch = vi.fn();
    const store = createAppStore({ api: fakeApi({ branch }), storage: null });
    await store.getState().openSession('s1');
    store.getState().requestBranch('u5');
    expect(store.getState().branchConfirmId).toBe('u5');
    expect(branch).not.toHaveBeenCalled();
    store.getState().requestClose();
    expect(store.getState().branchConfirmId).toBeNull();
    // The session stays open: Esc closed the question only.
    expect(store.getState().session?.id).toBe('s1');
    store.getState().requestBranch('not-an-entry');
    expect(store.getState().branchConfirmId).toBeNull();
  });

  it('applies live events: appended entries, a leaf notice shown as a toast, another session ignored', async () => {
    const store = createAppStore({ api: fakeApi(), storage: null });
    await store.getState().openSession('s1');
    store.getState().handleEvent({
      type: 'session_changed',
      sessionId: 's1',
      source: 'external',
      added: encodeNodes([node('u8', 'a4', 'message', 'user', 'user: more')]),
      leaf: { id: 'u8', previousId: 'a4' },
    });
    expect(treeOf(store.getState())?.has('u8')).toBe(true);
    expect(leafOf(store)).toBe('u8');
    expect(selected(store)).toBe('u8');
    store.getState().handleEvent({
      type: 'session_changed',
      sessionId: 's1',
      source: 'external',
      leaf: { id: 'a6', previousId: 'u8', notice: { reason: 'file-changed', message: 'Leaf moved to a6' } },
    });
    expect(leafOf(store)).toBe('a6');
    expect(store.getState().toasts.map((t) => t.text)).toEqual(['Leaf moved to a6']);
    store.getState().handleEvent({
      type: 'session_changed',
      sessionId: 'other',
      source: 'external',
      added: encodeNodes([node('x', null, 'message', 'user', 'x')]),
    });
    expect(treeOf(store.getState())?.has('x')).toBe(false);
  });

  it('fetches a new snapshot when the server says the file was rewritten, keeping the selection', async () => {
    const getSession = vi.fn(() => streamOf(snapshotParts(sampleNodes(), 'a4')));
    const store = createAppStore({ api: fakeApi({ getSession }), storage: null });
    await store.getState().openSession('s1');
    store.getState().select('u5');
    store.getState().handleEvent({ type: 'session_reloaded', sessionId: 's1', reason: 'rewritten' });
    await vi.waitFor(() => expect(getSession).toHaveBeenCalledTimes(2));
    await vi.waitFor(() => expect(store.getState().snapshot).toBeNull());
    expect(selected(store)).toBe('u5');
    expect(store.getState().toasts.map((t) => t.text)).toEqual(['The session file was rewritten; reloaded']);
  });

  it('a newer open cancels the load of an older one', async () => {
    const signals: AbortSignal[] = [];
    let release: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const getSession = (id: string, signal?: AbortSignal) => {
      signals.push(signal!);
      const parts = snapshotParts(sampleNodes(), 'a4', 3, { session: listItem(id) });
      return (async function* () {
        yield parts[0]!;
        if (id === 'slow') await gate;
        yield* parts.slice(1);
      })();
    };
    const store = createAppStore({ api: fakeApi({ getSession }), storage: null });
    const slow = store.getState().openSession('slow');
    await vi.waitFor(() => expect(store.getState().session?.id).toBe('slow'));
    await store.getState().openSession('s2');
    release?.();
    await slow;
    expect(signals[0]!.aborted).toBe(true);
    expect(store.getState().session?.id).toBe('s2');
    expect(treeOf(store.getState())?.size).toBe(7);
  });

  it('stores a streamed snapshot’s progress once per 16,384 plain nodes, and an event meanwhile loses none of it', async () => {
    const count = 40_000;
    const nodes = Array.from({ length: count }, (_, i) =>
      node(`n${i}`, i === 0 ? null : `n${i - 1}`, 'message', 'user', `line ${i}`),
    );
    const parts = snapshotParts(nodes, `n${count - 1}`, 1024);
    const nodeParts = parts.filter((part) => part.kind === 'nodes').length;
    let release: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const paused = 30;
    const getSession = () =>
      (async function* () {
        for (const [at, part] of parts.entries()) {
          if (at === paused + 1) await gate;
          yield part;
        }
      })();
    const store = createAppStore({ api: fakeApi({ getSession }), storage: null });
    const stored: number[] = [];
    store.subscribe((state, previous) => {
      const received = state.snapshot?.received;
      if (received !== undefined && received !== previous.snapshot?.received) stored.push(received);
    });
    const opened = store.getState().openSession('s1');
    await vi.waitFor(() => expect(stored.at(-1)).toBeGreaterThanOrEqual(16_384));
    // The parts before the gate are in the tree; an event now takes the progress held back with it.
    await vi.waitFor(() => expect(treeOf(store.getState())?.size).toBe(paused * 1024));
    store.getState().handleEvent({
      type: 'session_changed',
      sessionId: 's1',
      source: 'external',
      added: encodeNodes([node('late', `n${count - 1}`, 'message', 'user', 'late')]),
    });
    expect(store.getState().snapshot?.received).toBe(paused * 1024);
    expect(store.getState().snapshot?.queued).toHaveLength(1);
    release?.();
    await opened;
    expect(stored.length).toBeLessThan(nodeParts / 4);
    expect(store.getState().snapshot).toBeNull();
    expect(treeOf(store.getState())?.size).toBe(count + 1);
    expect(store.getState().treeView?.rows).toHaveLength(count + 1);
  });

  it('stores the server’s read progress when the status bar’s step of it moves, and the last read at once', async () => {
    // A fresh server's snapshot: a read line after every 4 MB piece, here 100 pieces of 1% each.
    const nodes = sampleNodes();
    const [first, ...rest] = snapshotParts(nodes, 'a4', 100);
    const parts = [
      { ...first!, head: head({ bytes: 100_000 }) },
      ...Array.from({ length: 100 }, (_, i) => ({ kind: 'read' as const, read: (i + 1) * 1000 })),
      ...rest,
    ];
    const store = createAppStore({ api: fakeApi({ getSession: () => streamOf(parts) }), storage: null });
    const shown: number[] = [];
    store.subscribe((state, previous) => {
      const read = state.snapshot?.read;
      if (read !== undefined && previous.snapshot && read !== previous.snapshot.read) shown.push(read);
    });
    await store.getState().openSession('s1');
    // One store update per 5% of the file (READ_PROGRESS_STEPS), each at the read that reached it.
    expect(shown).toEqual(Array.from({ length: READ_PROGRESS_STEPS }, (_, i) => (i + 1) * 5000));
    expect(treeOf(store.getState())?.size).toBe(nodes.length);
  });

  it('patches the session list from session_list_changed without fetching it', async () => {
    const listSessions = vi.fn(() => Promise.resolve({ sessions: [listItem('s1'), listItem('s2')] }));
    const store = createAppStore({ api: fakeApi({ listSessions }), storage: null });
    await store.getState().loadSessions();
    store
      .getState()
      .handleEvent({ type: 'session_list_changed', upserted: [listItem('s3')], removed: ['s1'] });
    expect(store.getState().sessions.map((s) => s.id)).toEqual(['s2', 's3']);
    expect(listSessions).toHaveBeenCalledTimes(1);
  });

  it('closes the session on Escape once the search is empty', async () => {
    const store = createAppStore({ api: fakeApi(), storage: null });
    await store.getState().openSession('s1');
    store.getState().setQuery('approach');
    store.getState().dispatch({ type: 'escape' });
    expect(store.getState().treeView?.query).toBe('');
    expect(store.getState().session?.id).toBe('s1');
    store.getState().dispatch({ type: 'escape' });
    expect(store.getState().session).toBeNull();
  });

  it('filters rows by every search token', async () => {
    const store = createAppStore({ api: fakeApi(), storage: null });
    await store.getState().openSession('s1');
    store.getState().setQuery('APPROACH b');
    expect(rowsOf(store)).toEqual(['u5']);
    expect(selected(store)).toBe('u5');
  });

  it('takes the open session’s name from the reloaded list (an oh-my-pi rename rewrites its title line)', async () => {
    const renamed = listItem('s1', { name: 'Renamed in oh-my-pi' });
    const store = createAppStore({
      api: fakeApi({
        getSession: () => streamOf(snapshotParts(sampleNodes(), 'a4', 3, { name: 'First title' })),
        listSessions: () => Promise.resolve({ sessions: [renamed] }),
      }),
      storage: null,
    });
    await store.getState().openSession('s1');
    expect(store.getState().session?.name).toBe('First title');
    await store.getState().loadSessions();
    expect(store.getState().session?.name).toBe('Renamed in oh-my-pi');
  });
});
