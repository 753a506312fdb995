import type { NavigateResult } from '@canopy/protocol';
import { describe, expect, it, vi } from 'vitest';
import type { Api } from '../../net/api';
import { createAppStore } from '../appStore';
import { deliverLater, fakeApi, leafOf, ownWrite } from '../testing';

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

  it('text increments that arrive within one frame are appended together, once; a retry starts the text over', async () => {
    const previewSummary = vi.fn(
      () => new Promise<Awaited<ReturnType<Api['previewSummary']>>>(() => undefined),
    );
    const store = createAppStore({ api: fakeApi({ previewSummary }), storage: null });
    store.setState({ settings: enabled });
    await store.getState().openSession('s1');
    await store.getState().jump('a6');
    void store.getState().generateSummary(false);
    const event = (extra: Record<string, unknown>) =>
      store.getState().handleSummaryEvent({
        type: 'summary_progress',
        sessionId: 's1',
        targetId: 'a6',
        phase: 'progress',
        ...extra,
      } as never);
    event({ step: 'waiting', model: 'local/qwen' });
    expect(store.getState().summaryDialog?.progress).toMatchObject({
      step: 'waiting',
      model: 'local/qwen',
      text: '',
    });
    let updates = 0;
    const unsubscribe = store.subscribe(() => updates++);
    event({ step: 'generating', delta: '## Goal', tokens: 2 });
    event({ step: 'generating', delta: '\nFix', tokens: 3 });
    event({ step: 'generating', delta: ' it.', tokens: 4 });
    expect(updates).toBe(0);
    await vi.waitFor(() => expect(store.getState().summaryDialog?.progress.text).toBe('## Goal\nFix it.'));
    expect(updates).toBe(1);
    expect(store.getState().summaryDialog?.progress.tokens).toBe(4);
    unsubscribe();
    event({ step: 'retrying', attempt: 1, maxAttempts: 3, delayMs: 2000, message: 'socket hang up' });
    expect(store.getState().summaryDialog?.progress).toMatchObject({
      step: 'retrying',
      text: '',
      retry: { attempt: 1, maxAttempts: 3, delayMs: 2000, message: 'socket hang up' },
    });
  });
});
