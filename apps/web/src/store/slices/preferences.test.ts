import { describe, expect, it } from 'vitest';
import { createAppStore } from '../appStore';
import { fakeApi } from '../testing';

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
});
