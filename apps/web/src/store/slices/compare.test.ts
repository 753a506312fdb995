import type { CompareResponse, FileLensResponse, FilesResponse } from '@canopy/protocol';
import { describe, expect, it, vi } from 'vitest';
import { createAppStore } from '../appStore';
import { fakeApi, laneRollup } from '../testing';

const lane = (leafId: string, entryIds: string[]): CompareResponse['a'] => ({
  leafId,
  entryIds,
  turns: [{ userId: entryIds[0] ?? null, userText: '', entryIds }],
  rollup: laneRollup({ entries: entryIds.length }),
});

/** The sample tree's two branches (testing.ts): a4 and m7 split after a2. */
const COMPARISON: CompareResponse = {
  ancestorId: 'a2',
  sharedIds: ['u1', 'a2'],
  a: lane('a4', ['u3', 'a4']),
  b: lane('m7', ['u5', 'a6', 'm7']),
  rows: [{ a: 0, b: 0, same: false }],
  answerDiff: [],
  answerChanges: { added: 0, removed: 0 },
};
const files = (at: string): FilesResponse => ({ at, files: [], unknownEffects: [], failed: [] });

function setUp() {
  const compareBranches = vi.fn(() => Promise.resolve(COMPARISON));
  const getFiles = vi.fn((_id: string, at: string | null) => Promise.resolve(files(at ?? 'a4')));
  const getFileLens = vi.fn((_id: string, path: string): Promise<FileLensResponse> =>
    Promise.resolve({ path, branches: [], omittedBranches: 0 }),
  );
  const onLocationChange = vi.fn();
  const store = createAppStore({
    api: fakeApi({ compareBranches, getFiles, getFileLens }),
    storage: null,
    onLocationChange,
  });
  return { store, compareBranches, getFiles, getFileLens, onLocationChange };
}

describe('compare slice', () => {
  it('compareSelected (Shift+C, the toolbar): two picked entries, else the selected one with the leaf, else says what to select', async () => {
    const { store, compareBranches } = setUp();
    await store.getState().openSession('s1');
    // The sample's leaf is a4: selected, there is nothing to compare it with.
    store.getState().select('a4');
    await store.getState().compareSelected();
    expect(compareBranches).not.toHaveBeenCalled();
    expect(store.getState().compare).toBeNull();
    expect(store.getState().toasts.at(-1)?.text).toMatch(/Select an entry off the current branch/);
    store.getState().select('a6');
    await store.getState().compareSelected();
    expect(compareBranches).toHaveBeenLastCalledWith('s1', 'a6', 'a4');
    store.getState().closeCompare();
    store.getState().setMultiSelection(['u3', 'u5'], 'replace');
    await store.getState().compareSelected();
    expect(compareBranches).toHaveBeenLastCalledWith('s1', 'u3', 'u5');
  });

  it('opens a compare, fetches each lane’s files after the ancestor on the Files tab, and puts it in the URL', async () => {
    const { store, compareBranches, getFiles, onLocationChange } = setUp();
    await store.getState().openSession('s1');
    await store.getState().openCompare('a4', 'm7');
    expect(compareBranches).toHaveBeenCalledWith('s1', 'a4', 'm7');
    expect(store.getState().compare?.result.data).toEqual(COMPARISON);
    expect(onLocationChange).toHaveBeenLastCalledWith('s1', expect.anything(), {
      compare: ['a4', 'm7'],
      file: null,
    });
    // The lanes tab alone fetches no files.
    expect(getFiles).not.toHaveBeenCalled();
    await store.getState().setCompareTab('files');
    expect(getFiles).toHaveBeenCalledWith('s1', 'a4', 'a2');
    expect(getFiles).toHaveBeenCalledWith('s1', 'm7', 'a2');
    expect(store.getState().compare?.files.data?.b.at).toBe('m7');
    // A second visit does not fetch again.
    await store.getState().setCompareTab('lanes');
    await store.getState().setCompareTab('files');
    expect(getFiles).toHaveBeenCalledTimes(2);
  });

  it('Esc closes the file lens first, then the compare view, each updating the URL', async () => {
    const { store, getFileLens, onLocationChange } = setUp();
    await store.getState().openSession('s1');
    await store.getState().openCompare('a4', 'm7');
    await store.getState().openFileLens('src/a.ts');
    expect(getFileLens).toHaveBeenCalledWith('s1', 'src/a.ts');
    expect(onLocationChange).toHaveBeenLastCalledWith('s1', expect.anything(), {
      compare: ['a4', 'm7'],
      file: 'src/a.ts',
    });
    expect(store.getState().closeInnermostCompareView()).toBe(true);
    expect(store.getState().fileLens).toBeNull();
    expect(store.getState().compare).not.toBeNull();
    expect(store.getState().closeInnermostCompareView()).toBe(true);
    expect(store.getState().compare).toBeNull();
    expect(onLocationChange).toHaveBeenLastCalledWith('s1', expect.anything(), { compare: null, file: null });
    expect(store.getState().closeInnermostCompareView()).toBe(false);
  });

  it('shows the server’s refusal, and a late answer for a closed compare is dropped', async () => {
    let answer: (value: CompareResponse) => void = () => {};
    const compareBranches = vi
      .fn()
      .mockImplementationOnce(() => Promise.reject(new Error('No entry x9 in this session')))
      .mockImplementationOnce(() => new Promise<CompareResponse>((resolve) => (answer = resolve)));
    const store = createAppStore({ api: fakeApi({ compareBranches }), storage: null });
    await store.getState().openSession('s1');
    await store.getState().openCompare('x9', 'a4');
    expect(store.getState().compare?.result.error).toMatch(/No entry x9/);
    const pending = store.getState().openCompare('a4', 'm7');
    store.getState().closeCompare();
    answer(COMPARISON);
    await pending;
    expect(store.getState().compare).toBeNull();
  });

  it('fetches the current branch’s files', async () => {
    const { store, getFiles } = setUp();
    await store.getState().openSession('s1');
    await store.getState().openBranchFiles(null);
    expect(getFiles).toHaveBeenCalledWith('s1', null, null);
    expect(store.getState().branchFiles?.data?.at).toBe('a4');
    store.getState().closeInnermostCompareView();
    expect(store.getState().branchFiles).toBeNull();
  });
});

describe('selecting a linked entry', () => {
  it('shows an entry the filter hides by switching to All', async () => {
    const { store } = setUp();
    await store.getState().openSession('s1');
    store.getState().setFilter('user-only');
    store.getState().selectLinkedEntry('a6');
    expect(store.getState().treeView?.mode).toBe('all');
    expect(store.getState().treeView?.rows[store.getState().treeView!.selectedIndex]?.id).toBe('a6');
    // A visible one keeps the filter.
    store.getState().setFilter('default');
    store.getState().selectLinkedEntry('u3');
    expect(store.getState().treeView?.mode).toBe('default');
    // An entry with no row in any filter is stood for by its first child that has one.
    store.getState().setFilter('user-only');
    store.getState().selectLinkedEntry('a2');
    expect(store.getState().treeView?.rows[store.getState().treeView!.selectedIndex]?.id).toBe('u3');
  });
});
