import { encodeNodes, type ArchiveResult } from '@canopy/protocol';
import { ARCHIVE_INSIDE, ARCHIVE_ROOT, ViewFlags } from '@canopy/session-core';
import { describe, expect, it, vi } from 'vitest';
import { createAppStore } from '../appStore';
import { deliverLater, fakeApi, node, ownWrite, rowsOf } from '../testing';
import { archiveRootOf } from './archive';
import { selectedIdOf } from '../selectors';

/** The archive of u5's branch as the server sends it: the record, and the one node it targets. */
function archivedEvent(archived: boolean) {
  return ownWrite({
    added: encodeNodes([node(archived ? 'c8' : 'c9', 'a4', 'custom', undefined, '[custom: canopy.archive]')]),
    changed: encodeNodes([
      node('u5', 'a2', 'message', 'user', 'user: approach b', {
        flags: archived ? ViewFlags.ArchiveTarget : 0,
      }),
    ]),
    leaf: { id: archived ? 'c8' : 'c9', previousId: archived ? 'a4' : 'c8' },
  });
}

describe('archive slice', () => {
  it('Shift+A archives the selected branch, Alt+R shows it, Shift+A inside it restores its root', async () => {
    const setArchived = vi.fn((_id: string, entryId: string, archived: boolean): Promise<ArchiveResult> => {
      deliverLater(() => store, archivedEvent(archived));
      return Promise.resolve({ targetId: entryId, archived, recordId: archived ? 'c8' : 'c9', leafId: null });
    });
    const store = createAppStore({ api: fakeApi({ setArchived }), storage: null });
    await store.getState().openSession('s1');
    store.getState().select('u5');
    const revealed = store.getState().revealTick;
    store.getState().toggleArchiveSelected();
    await vi.waitFor(() => expect(store.getState().toasts.map((t) => t.text)[0]).toMatch(/Branch archived/));
    expect(setArchived).toHaveBeenLastCalledWith('s1', 'u5', true);
    // Its row, selected, stays where it was: no new selection and no scroll into view.
    expect(store.getState().revealTick).toBe(revealed);
    // Folded: the branch's root stands for it.
    expect(rowsOf(store)).toEqual(['u1', 'a2', 'u3', 'a4', 'u5']);

    store.getState().toggleArchivedRevealed();
    expect(rowsOf(store)).toEqual(['u1', 'a2', 'u3', 'a4', 'u5', 'a6']);
    store.getState().select('a6');
    store.getState().toggleArchiveSelected();
    await vi.waitFor(() => expect(setArchived).toHaveBeenLastCalledWith('s1', 'u5', false));
    await vi.waitFor(() => expect(store.getState().toasts.map((t) => t.text)).toContain('Branch restored'));
    // Restored from inside the branch: its root, which was not selected, is selected now.
    expect(selectedIdOf(store.getState())).toBe('u5');
  });

  it('a refusal from the server is shown and changes nothing', async () => {
    const setArchived = vi.fn(() => Promise.reject(new Error('This branch holds the current leaf')));
    const store = createAppStore({ api: fakeApi({ setArchived }), storage: null });
    await store.getState().openSession('s1');
    store.getState().select('u3');
    store.getState().toggleArchiveSelected();
    await vi.waitFor(() => expect(store.getState().toasts[0]?.text).toMatch(/current leaf/));
    expect(rowsOf(store)).toEqual(['u1', 'a2', 'u3', 'a4', 'u5', 'a6']);
  });

  it('finds the archived root of any entry inside an archived branch', () => {
    const states: Record<string, number> = {
      x: ARCHIVE_INSIDE | ARCHIVE_ROOT,
      y: ARCHIVE_INSIDE,
      z: ARCHIVE_INSIDE,
      w: 0,
    };
    const parents: Record<string, string | null> = { w: null, x: 'w', y: 'x', z: 'y' };
    const tree = {
      archiveStateOf: (id: string) => states[id]!,
      parentOf: (id: string) => parents[id] ?? null,
    };
    expect(archiveRootOf(tree, 'z')).toBe('x');
    expect(archiveRootOf(tree, 'x')).toBe('x');
    expect(archiveRootOf(tree, 'w')).toBeNull();
  });
});
