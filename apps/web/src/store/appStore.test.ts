import type { NavigateResult, SessionSnapshot, SkeletonNode } from '@canopy/protocol';
import { describe, expect, it, vi } from 'vitest';
import type { Api } from '../net/api';
import { JUMPED_TO_USER_MESSAGE, createAppStore, selectedIdOf } from './appStore';

function node(
  id: string,
  parentId: string | null,
  type: string,
  role: string | undefined,
  text: string,
  extra: Partial<SkeletonNode> = {},
): SkeletonNode {
  return {
    id,
    parentId,
    type,
    ...(role ? { role } : {}),
    timestamp: `2026-01-01T00:00:${String(Number.parseInt(id.replace(/\D/g, '') || '0', 10) % 60).padStart(2, '0')}.000Z`,
    text,
    search: `${role ?? type} ${text}`.toLowerCase(),
    flags: {},
    ...extra,
  };
}

// u1 → a2 → { u3 → a4 (leaf) , u5 → a6 → m7 (model_change) }
const nodes: SkeletonNode[] = [
  node('u1', null, 'message', 'user', 'user: start'),
  node('a2', 'u1', 'message', 'assistant', 'assistant: plan', {
    usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: 0.01 },
  }),
  node('u3', 'a2', 'message', 'user', 'user: approach a'),
  node('a4', 'u3', 'message', 'assistant', 'assistant: result a'),
  node('u5', 'a2', 'message', 'user', 'user: approach b'),
  node('a6', 'u5', 'message', 'assistant', 'assistant: result b'),
  node('m7', 'a6', 'model_change', undefined, '[model: x]'),
];

function snapshot(leafId: string | null): SessionSnapshot {
  return {
    session: {
      id: 's1',
      headerId: 'h1',
      root: 'demo',
      path: 's1.jsonl',
      firstMessage: 'start',
      cwd: '/tmp',
      entryCount: nodes.length,
      messageCount: 6,
      size: 1,
      mtime: 0,
      created: '2026-01-01T00:00:00.000Z',
      version: 3,
      parentId: null,
      issueCount: 0,
      writerActive: false,
    },
    header: { type: 'session', id: 'h1' },
    version: 3,
    dialect: 'pi',
    leafId,
    nodes,
    issues: [],
    writerActive: false,
    needsMigration: false,
    pendingBytes: 0,
  };
}

function fakeApi(overrides: Partial<Api> = {}): Api {
  const reject = () => Promise.reject(new Error('not used'));
  return {
    info: reject,
    listSessions: () => Promise.resolve({ sessions: [] }),
    getSession: () => Promise.resolve(snapshot('a4')),
    getEntry: reject,
    getContext: reject,
    navigate: reject,
    setLabel: reject,
    clearLabel: reject,
    branch: reject,
    fork: reject,
    appendMessage: reject,
    getSettings: reject,
    putSettings: reject,
    ...overrides,
  } as Api;
}

function rowsOf(store: ReturnType<typeof createAppStore>) {
  return (store.getState().selector?.rows ?? []).map((r) => r.id);
}
const selected = (store: ReturnType<typeof createAppStore>) => selectedIdOf(store.getState());

describe('app store', () => {
  it('opens a session at its leaf, or at the deep-linked entry when it exists', async () => {
    const store = createAppStore({ api: fakeApi(), storage: null });
    await store.getState().openSession('s1');
    expect(store.getState().leafId).toBe('a4');
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

  it('applies a navigation: new leaf and composer prefilled with the editor text', async () => {
    const result: NavigateResult = {
      alreadyAtTarget: false,
      cancelled: false,
      editorText: 'approach b',
      oldLeafId: 'a4',
      newLeafId: 'a2',
      nodes: [],
    };
    const navigate = vi.fn(() => Promise.resolve(result));
    const store = createAppStore({ api: fakeApi({ navigate }), storage: null });
    await store.getState().openSession('s1');
    await store.getState().jump('u5');
    expect(navigate).toHaveBeenCalledWith('s1', { targetId: 'u5' });
    expect(store.getState().leafId).toBe('a2');
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

  it('keeps the selection on the jump target when the session_tree broadcast of that jump arrives', async () => {
    const result: NavigateResult = {
      alreadyAtTarget: false,
      cancelled: false,
      oldLeafId: 'a4',
      newLeafId: 'a6',
      nodes: [],
    };
    const store = createAppStore({
      api: fakeApi({ navigate: () => Promise.resolve(result) }),
      storage: null,
    });
    await store.getState().openSession('s1');
    await store.getState().jump('a6');
    store.getState().handleEvent({ type: 'session_tree', sessionId: 's1', newLeafId: 'a6', oldLeafId: 'a4' });
    expect(store.getState().leafId).toBe('a6');
    expect(selected(store)).toBe('a6');
    store.getState().select('u1');
    store.getState().handleEvent({ type: 'session_tree', sessionId: 's1', newLeafId: 'a6', oldLeafId: 'a4' });
    expect(selected(store)).toBe('u1');
  });

  it('clears a label when it is saved empty, and sets it when saved with text', async () => {
    const labelNode = (id: string) => node(id, 'a4', 'label', undefined, '[label: x]');
    const setLabel = vi.fn((_s: string, entryId: string, label: string) =>
      Promise.resolve({ targetId: entryId, label, labelEntryId: 'l1', leafId: 'l1', node: labelNode('l1') }),
    );
    const clearLabel = vi.fn((_s: string, entryId: string) =>
      Promise.resolve({ targetId: entryId, labelEntryId: 'l2', leafId: 'l2', node: labelNode('l2') }),
    );
    const store = createAppStore({ api: fakeApi({ setLabel, clearLabel }), storage: null });
    await store.getState().openSession('s1');
    await store.getState().saveLabel('u3', '  milestone  ');
    expect(setLabel).toHaveBeenCalledWith('s1', 'u3', 'milestone');
    expect(store.getState().tree?.get('u3')?.label).toBe('milestone');
    expect(store.getState().leafId).toBe('l1');
    await store.getState().saveLabel('u3', '   ');
    expect(clearLabel).toHaveBeenCalledWith('s1', 'u3');
    expect(store.getState().tree?.get('u3')?.label).toBeUndefined();
  });

  it('applies live events: appended entries, a moved leaf and a label change', async () => {
    const store = createAppStore({ api: fakeApi(), storage: null });
    await store.getState().openSession('s1');
    store.getState().handleEvent({
      type: 'entries_appended',
      sessionId: 's1',
      nodes: [node('u8', 'a4', 'message', 'user', 'user: more')],
      leafId: 'u8',
      source: 'external',
    });
    expect(store.getState().tree?.has('u8')).toBe(true);
    expect(store.getState().leafId).toBe('u8');
    expect(rowsOf(store)).toContain('u8');
    store.getState().handleEvent({ type: 'session_tree', sessionId: 's1', newLeafId: 'a6', oldLeafId: 'u8' });
    expect(store.getState().leafId).toBe('a6');
    store.getState().handleEvent({
      type: 'label_changed',
      sessionId: 's1',
      targetId: 'u3',
      label: 'milestone',
      labelEntryId: 'l9',
    });
    expect(store.getState().tree?.get('u3')?.label).toBe('milestone');
    store.getState().setFilter('labeled-only');
    expect(rowsOf(store)).toEqual(['u3']);
    store.getState().handleEvent({
      type: 'entries_appended',
      sessionId: 'other',
      nodes: [node('x', null, 'message', 'user', 'x')],
      leafId: 'x',
      source: 'external',
    });
    expect(store.getState().tree?.has('x')).toBe(false);
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
    const renamed = { ...snapshot('a4').session, name: 'Renamed in oh-my-pi' };
    const store = createAppStore({
      api: fakeApi({
        getSession: () => Promise.resolve({ ...snapshot('a4'), name: 'First title' }),
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
    const navigate = vi.fn((): Promise<NavigateResult> =>
      Promise.resolve({
        alreadyAtTarget: false,
        cancelled: false,
        oldLeafId: 'a4',
        newLeafId: 'a6',
        nodes: [],
      }),
    );
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
    expect(store.getState().leafId).toBe('a6');
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
    expect(store.getState().leafId).toBe('a4');
  });

  it('Shift-click ranges follow the outline order from the anchor; Ctrl-click toggles', async () => {
    const store = createAppStore({ api: fakeApi(), storage: null });
    await store.getState().openSession('s1');
    store.setState({ selectionAnchor: 'u3' });
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
