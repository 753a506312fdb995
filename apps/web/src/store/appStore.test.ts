import {
  encodeNodes,
  type NavigateResult,
  type ServerEvent,
  type SessionChangedEvent,
} from '@canopy/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { Api } from '../net/api';
import { describe, expect, it, vi } from 'vitest';
import { JUMPED_TO_USER_MESSAGE, createAppStore, type AppStore } from './appStore';
import { leafIdOf, selectedIdOf, treeOf } from './selectors';
import { fakeApi, listItem, node, sampleNodes, snapshotParts, streamOf } from './testing';

/** What the server broadcasts after one of Canopy's own writes. */
function ownWrite(fields: Partial<SessionChangedEvent>): SessionChangedEvent {
  return { type: 'session_changed', sessionId: 's1', source: 'canopy', ...fields };
}

/** Delivers `event` to the store the way the socket does, after the REST reply is in. */
function deliverLater(store: () => StoreApi<AppStore>, event: ServerEvent) {
  queueMicrotask(() => store().getState().handleEvent(event));
}

const leafOf = (store: StoreApi<AppStore>) => leafIdOf(store.getState());

function rowsOf(store: ReturnType<typeof createAppStore>) {
  return (store.getState().selector?.rows ?? []).map((r) => r.id);
}
const selected = (store: ReturnType<typeof createAppStore>) => selectedIdOf(store.getState());

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
    expect(store.getState().selector?.mode).toBe('all');
    expect(rowsOf(store)).toContain('m7');
    store.getState().dispatch({ type: 'cycleFilter', direction: 1 });
    expect(store.getState().selector?.mode).toBe('default');
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

  it('says "Already at this point" and does not call navigate when jumping to the leaf', async () => {
    const navigate = vi.fn();
    const store = createAppStore({ api: fakeApi({ navigate }), storage: null });
    await store.getState().openSession('s1');
    await store.getState().jump('a4');
    expect(navigate).not.toHaveBeenCalled();
    expect(store.getState().toasts.map((t) => t.text)).toEqual(['Already at this point']);
  });

  it('applies a navigation once its session_changed arrives: new leaf, composer prefilled with the editor text', async () => {
    const result: NavigateResult = {
      alreadyAtTarget: false,
      cancelled: false,
      editorText: 'approach b',
      oldLeafId: 'a4',
      newLeafId: 'a2',
    };
    const navigate = vi.fn(() => {
      deliverLater(() => store, ownWrite({ leaf: { id: 'a2', previousId: 'a4' } }));
      return Promise.resolve(result);
    });
    const store = createAppStore({ api: fakeApi({ navigate }), storage: null });
    await store.getState().openSession('s1');
    await store.getState().jump('u5');
    expect(navigate).toHaveBeenCalledWith('s1', { targetId: 'u5' });
    expect(leafOf(store)).toBe('a2');
    expect(store.getState().composerText).toBe('approach b');
    // It says what happened and asks the composer to take the focus.
    expect(store.getState().toasts.map((t) => t.text)).toEqual([JUMPED_TO_USER_MESSAGE]);
    expect(store.getState().composerFocusTick).toBe(1);
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

  it('selects the jump target once the leaf move arrives, and a later move by Canopy leaves the selection alone', async () => {
    const result: NavigateResult = {
      alreadyAtTarget: false,
      cancelled: false,
      oldLeafId: 'a4',
      newLeafId: 'a6',
    };
    const store = createAppStore({
      api: fakeApi({
        navigate: () => {
          // The broadcast may come before the reply as well.
          store.getState().handleEvent(ownWrite({ leaf: { id: 'a6', previousId: 'a4' } }));
          return Promise.resolve(result);
        },
      }),
      storage: null,
    });
    await store.getState().openSession('s1');
    await store.getState().jump('a6');
    expect(leafOf(store)).toBe('a6');
    expect(selected(store)).toBe('a6');
    store.getState().select('u1');
    store.getState().handleEvent(ownWrite({ leaf: { id: 'a4', previousId: 'a6' } }));
    expect(leafOf(store)).toBe('a4');
    expect(selected(store)).toBe('u1');
  });

  it('waits for a navigation’s summary to arrive, then selects it', async () => {
    const summary = node('b9', 'a2', 'branch_summary', undefined, '[branch summary] tried b');
    const result: NavigateResult = {
      alreadyAtTarget: false,
      cancelled: false,
      oldLeafId: 'a6',
      newLeafId: 'b9',
      summaryEntry: { type: 'branch_summary', id: 'b9' },
    };
    const store = createAppStore({
      api: fakeApi({
        navigate: () => {
          deliverLater(
            () => store,
            ownWrite({ added: encodeNodes([summary]), leaf: { id: 'b9', previousId: 'a4' } }),
          );
          return Promise.resolve(result);
        },
      }),
      storage: null,
    });
    await store.getState().openSession('s1');
    await store.getState().jump('u3', {});
    expect(treeOf(store.getState())?.get('b9')).toEqual(summary);
    expect(selected(store)).toBe('b9');
    expect(store.getState().toasts.map((t) => t.text)).toEqual(['Navigated with a branch summary']);
    expect(store.getState().busy).toBeNull();
  });

  it('selects a sent message once it arrives through session_changed, applying it once', async () => {
    const sent = node('u8', 'a4', 'message', 'user', 'user: more');
    const appendMessage = vi.fn(() => {
      deliverLater(
        () => store,
        ownWrite({ added: encodeNodes([sent]), leaf: { id: 'u8', previousId: 'a4' } }),
      );
      return Promise.resolve({ entryId: 'u8', leafId: 'u8' });
    });
    const store = createAppStore({ api: fakeApi({ appendMessage }), storage: null });
    await store.getState().openSession('s1');
    store.getState().setComposerText('more');
    await store.getState().sendComposer();
    expect(appendMessage).toHaveBeenCalledWith('s1', 'more');
    expect(selected(store)).toBe('u8');
    expect(store.getState().composerText).toBe('');
    expect(
      treeOf(store.getState())
        ?.allEntries()
        .filter((e) => e.id === 'u8'),
    ).toHaveLength(1);
  });

  it('stops waiting for its own write when the session is closed before the write arrives', async () => {
    const store = createAppStore({
      api: fakeApi({ appendMessage: () => Promise.resolve({ entryId: 'u8', leafId: 'u8' }) }),
      storage: null,
    });
    await store.getState().openSession('s1');
    store.getState().setComposerText('more');
    const sending = store.getState().sendComposer();
    await vi.waitFor(() => expect(store.getState().composerText).toBe(''));
    store.getState().closeSession();
    await sending;
    expect(store.getState().busy).toBeNull();
    expect(store.getState().toasts).toEqual([]);
  });

  it('clears a label when it is saved empty, and sets it when saved with text', async () => {
    const labelled = (label: string | undefined) => {
      const entry = { ...sampleNodes().find((n) => n.id === 'u3')! };
      return label === undefined ? entry : { ...entry, label };
    };
    const labelEvent = (id: string, label: string | undefined) =>
      ownWrite({
        added: encodeNodes([node(id, 'a4', 'label', undefined, `[label: ${label ?? ''}]`)]),
        changed: encodeNodes([labelled(label)]),
        leaf: { id, previousId: 'a4' },
      });
    const setLabel = vi.fn((_s: string, entryId: string, label: string) => {
      deliverLater(() => store, labelEvent('l1', label));
      return Promise.resolve({ targetId: entryId, label, labelEntryId: 'l1', leafId: 'l1' });
    });
    const clearLabel = vi.fn((_s: string, entryId: string) => {
      deliverLater(() => store, labelEvent('l2', undefined));
      return Promise.resolve({ targetId: entryId, labelEntryId: 'l2', leafId: 'l2' });
    });
    const store = createAppStore({ api: fakeApi({ setLabel, clearLabel }), storage: null });
    await store.getState().openSession('s1');
    await store.getState().saveLabel('u3', '  milestone  ');
    expect(setLabel).toHaveBeenCalledWith('s1', 'u3', 'milestone');
    expect(treeOf(store.getState())?.get('u3')?.label).toBe('milestone');
    expect(leafOf(store)).toBe('l1');
    expect(store.getState().toasts.map((t) => t.text)).toEqual(['Label set: milestone']);
    await store.getState().saveLabel('u3', '   ');
    expect(clearLabel).toHaveBeenCalledWith('s1', 'u3');
    expect(treeOf(store.getState())?.get('u3')?.label).toBeUndefined();
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
    expect(store.getState().selector?.query).toBe('');
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
});

describe('pane preferences', () => {
  function memoryStorage(initial: Record<string, string> = {}) {
    const data = new Map(Object.entries(initial));
    return {
      getItem: (key: string) => data.get(key) ?? null,
      setItem: (key: string, value: string) => void data.set(key, value),
      data,
    };
  }

  it('folds the session list away once a session opens and shows it again when the session closes', async () => {
    const store = createAppStore({ api: fakeApi(), storage: null });
    expect(store.getState().sidebarOpen).toBe(true);
    await store.getState().openSession('s1');
    expect(store.getState().sidebarOpen).toBe(false);
    store.getState().toggleSidebar();
    expect(store.getState().sidebarOpen).toBe(true);
    await store.getState().openSession('s1');
    expect(store.getState().sidebarOpen).toBe(false);
    store.getState().closeSession();
    expect(store.getState().sidebarOpen).toBe(true);
  });

  it('keeps a pinned session list open across opens and reloads, and unpins it when it is hidden', async () => {
    const storage = memoryStorage();
    const store = createAppStore({ api: fakeApi(), storage });
    store.getState().setSidebarPinned(true);
    await store.getState().openSession('s1');
    expect(store.getState().sidebarOpen).toBe(true);

    const reloaded = createAppStore({ api: fakeApi(), storage });
    expect(reloaded.getState().sidebarPinned).toBe(true);
    await reloaded.getState().openSession('s1');
    expect(reloaded.getState().sidebarOpen).toBe(true);
    reloaded.getState().toggleSidebar();
    expect(reloaded.getState().sidebarOpen).toBe(false);
    expect(reloaded.getState().sidebarPinned).toBe(false);
    expect(JSON.parse(storage.data.get('canopy.prefs')!).sidebarPinned).toBe(false);
  });

  it('remembers the split and the detail width, clamped to their bounds', () => {
    const storage = memoryStorage();
    const store = createAppStore({ api: fakeApi(), storage });
    store.getState().setSplitRatio(0.62);
    store.getState().setDetailWidth(5000);
    const reloaded = createAppStore({ api: fakeApi(), storage });
    expect(reloaded.getState().splitRatio).toBe(0.62);
    expect(reloaded.getState().detailWidth).toBe(900);
  });

  it('ignores stored preferences of the wrong shape', () => {
    const storage = memoryStorage({
      'canopy.prefs': JSON.stringify({ theme: 'neon', view: 'split', splitRatio: 'wide', detailWidth: 50 }),
    });
    const store = createAppStore({ api: fakeApi(), storage });
    expect(store.getState().view).toBe('split');
    expect(['light', 'dark']).toContain(store.getState().theme);
    expect(store.getState().splitRatio).toBe(0.55);
    expect(store.getState().detailWidth).toBe(280);
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

describe('summaries in the store', () => {
  const enabled = {
    branchSummary: { enabled: true },
    doubleEscapeAction: 'tree' as const,
    defaultFilter: 'default' as const,
  };

  it('a jump with summaries on opens the choice instead of navigating; No summary then navigates', async () => {
    const navigate = vi.fn((): Promise<NavigateResult> => {
      deliverLater(() => store, ownWrite({ leaf: { id: 'a6', previousId: 'a4' } }));
      return Promise.resolve({ alreadyAtTarget: false, cancelled: false, oldLeafId: 'a4', newLeafId: 'a6' });
    });
    const store = createAppStore({ api: fakeApi({ navigate }), storage: null });
    store.setState({ settings: enabled });
    await store.getState().openSession('s1');
    await store.getState().jump('a6');
    expect(store.getState().summaryDialog).toMatchObject({
      kind: 'navigate',
      targetId: 'a6',
      step: 'choice',
    });
    expect(navigate).not.toHaveBeenCalled();
    await store.getState().chooseNoSummary();
    expect(navigate).toHaveBeenCalledWith('s1', { targetId: 'a6' });
    expect(store.getState().summaryDialog).toBeNull();
    expect(leafOf(store)).toBe('a6');
  });

  it('Esc steps back: prompt → choice → closed, and while generating it aborts on the server', async () => {
    let finish: (() => void) | undefined;
    const abortSummary = vi.fn(() => {
      finish?.();
      return Promise.resolve({ aborted: true });
    });
    const previewSummary = vi.fn(
      () =>
        new Promise<Awaited<ReturnType<Api['previewSummary']>>>((resolve) => {
          finish = () =>
            resolve({
              aborted: true,
              nothingToSummarize: false,
              summary: '',
              details: {},
              summarizerId: 'offline',
              entryCount: 2,
              selectedCount: 2,
              tokenEstimate: 3,
            });
        }),
    );
    const store = createAppStore({ api: fakeApi({ abortSummary, previewSummary }), storage: null });
    store.setState({ settings: enabled });
    await store.getState().openSession('s1');
    await store.getState().jump('a6');
    store.getState().chooseCustomPrompt();
    store.getState().summaryEscape();
    expect(store.getState().summaryDialog?.step).toBe('choice');
    const generating = store.getState().generateSummary(false);
    expect(store.getState().summaryDialog?.step).toBe('generating');
    store.getState().summaryEscape();
    await generating;
    expect(abortSummary).toHaveBeenCalledWith('s1');
    expect(store.getState().summaryDialog).toBeNull();
    expect(leafOf(store)).toBe('a4');
  });

  it('Shift-click ranges follow the outline order from the anchor; Ctrl-click toggles', async () => {
    const store = createAppStore({ api: fakeApi(), storage: null });
    await store.getState().openSession('s1');
    store.getState().setSelectionAnchor('u3');
    store.getState().selectRangeTo('u5');
    // The active branch (u3 → a4) is listed first at the fork, then u5.
    expect([...store.getState().multiSelection]).toEqual(['u3', 'a4', 'u5']);
    store.getState().setMultiSelection(['a4'], 'toggle');
    expect([...store.getState().multiSelection]).toEqual(['u3', 'u5']);
    store.getState().clearMultiSelection();
    expect(store.getState().multiSelection.size).toBe(0);
  });

  it('a settings change shows at once and is undone when the server refuses it', async () => {
    let refuse: ((error: Error) => void) | undefined;
    const putSettings = vi.fn(
      () =>
        new Promise<never>((_resolve, reject) => {
          refuse = reject;
        }),
    );
    const store = createAppStore({ api: fakeApi({ putSettings }), storage: null });
    const pending = store.getState().updateSettings({ branchSummary: { enabled: true } });
    expect(store.getState().settings.branchSummary.enabled).toBe(true);
    refuse?.(new Error('disk full'));
    await pending;
    expect(store.getState().settings.branchSummary.enabled).toBe(false);
  });
});
