import { encodeNodes, type NavigateResult } from '@canopy/protocol';
import { describe, expect, it, vi } from 'vitest';
import { createAppStore, JUMPED_TO_USER_MESSAGE } from '../appStore';
import { treeOf } from '../selectors';
import { deliverLater, fakeApi, leafOf, node, ownWrite, sampleNodes, selected } from '../testing';

describe('writes: applied once, from session_changed', () => {
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

  it('keeps the composer text and sends nothing while the snapshot is still streaming in (Ctrl+Enter bypasses the disabled button)', async () => {
    const appendMessage = vi.fn(() => Promise.resolve({ entryId: 'u8', leafId: 'u8' }));
    const store = createAppStore({ api: fakeApi({ appendMessage }), storage: null });
    await store.getState().openSession('s1');
    store.setState({
      snapshot: {
        received: 3,
        total: 9,
        bytes: 900,
        read: 300,
        rowsAtSize: 3,
        rowsDue: false,
        wantedId: null,
        toLeaf: true,
        queued: [],
      },
    });
    store.getState().setComposerText('more');
    const sending = store.getState().sendComposer();
    // Checked before awaiting: a send that went out would wait for its entry for ever.
    expect(appendMessage).not.toHaveBeenCalled();
    await sending;
    expect(store.getState().composerText).toBe('more');
    expect(store.getState().busy).toBeNull();
    expect(store.getState().toasts.map((t) => t.text)).toEqual([
      'The session is still loading: the message is kept, send it once the leaf shows',
    ]);
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

  it('says "Already at this point" and does not call navigate when jumping to the leaf', async () => {
    const navigate = vi.fn();
    const store = createAppStore({ api: fakeApi({ navigate }), storage: null });
    await store.getState().openSession('s1');
    await store.getState().jump('a4');
    expect(navigate).not.toHaveBeenCalled();
    expect(store.getState().toasts.map((t) => t.text)).toEqual(['Already at this point']);
  });
});
