import { describe, expect, it } from 'vitest';
import { FILTER_MODES } from './filter';
import { computeRows, prepareRows, rowsPaths } from './flatten';
import { projectRows as project } from './testing';
import { ViewFlags, type ViewEntry } from './view-entry';
import { ViewTree } from './view-tree';

// Rows prepared in steps (prepareRows, spread over tasks by the web app while a snapshot streams
// in) against rows computed in full on a fresh tree. The tree is larger than the nodes a step
// handles between two looks at the clock, so every pass pauses at least once.

/** A deterministic pseudo-random tree: mostly chains, some forks, hidden entries, two roots. */
function entries(count: number): ViewEntry[] {
  let seed = 20261201;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const kinds = ['user', 'assistant', 'assistant-tools', 'toolResult', 'label', 'model_change'];
  const all: ViewEntry[] = [];
  for (let i = 0; i < count; i++) {
    const kind = kinds[Math.floor(random() * kinds.length)]!;
    const back = random() < 0.9 ? 1 : 1 + Math.floor(random() * 40);
    const message = kind === 'user' || kind.startsWith('assistant') || kind === 'toolResult';
    const words = random() < 0.3 ? 'ab' : 'cd';
    all.push({
      id: `e${i}`,
      parentId: i === 0 || i === 7 || back > i ? null : `e${i - back}`,
      type: message ? 'message' : kind,
      ...(message ? { role: kind.startsWith('assistant') ? 'assistant' : kind } : {}),
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(random() * 50))).toISOString(),
      text: words,
      search: words,
      flags: kind === 'assistant-tools' ? ViewFlags.ToolOnlyAssistant : 0,
    });
  }
  return all;
}

const all = entries(9000);

/** Runs a preparation to its end, a pause at every look at the clock; answers the number of steps. */
function stepsToEnd(preparation: { step(timeUp: () => boolean): boolean }): number {
  let steps = 1;
  while (!preparation.step(() => true)) steps++;
  return steps;
}

describe('rows prepared in steps (prepareRows)', () => {
  it('are the rows computed in full, for every filter, a query and a leaf, and the next computeRows answers from them', () => {
    const leaves = [null, 'e8990', 'e4000'];
    FILTER_MODES.forEach((mode, i) => {
      const tree = new ViewTree(all);
      const options = { leafId: leaves[i % 3]!, mode, query: i % 2 === 0 ? '' : 'ab', selectedId: 'e5000' };
      expect(stepsToEnd(prepareRows(tree, options))).toBeGreaterThan(3);
      const full = rowsPaths.full;
      const prepared = project(tree, options);
      expect(rowsPaths.full).toBe(full);
      expect(prepared).toEqual(project(new ViewTree(all), options));
    });
  });

  it('give up when rows are computed or the tree grows between two steps, and the rows stay exact', () => {
    const options = { leafId: 'e6000', mode: 'default' as const, query: '' };
    const tree = new ViewTree(all.slice(0, 8000));
    const preparation = prepareRows(tree, options);
    expect(preparation.step(() => true)).toBe(false);
    computeRows(tree, { leafId: 'e100', mode: 'all' });
    expect(preparation.step(() => true)).toBe(true);
    expect(project(tree, options)).toEqual(project(new ViewTree(all.slice(0, 8000)), options));

    const later = { ...options, leafId: 'e7000' };
    const grown = prepareRows(tree, later);
    expect(grown.step(() => true)).toBe(false);
    tree.append(all.slice(8000));
    expect(grown.step(() => true)).toBe(true);
    expect(project(tree, later)).toEqual(project(new ViewTree(all), later));
  });

  it('after an earlier computation of the same tree (the streamed open recomputes as it grows)', () => {
    const tree = new ViewTree(all.slice(0, 3000));
    computeRows(tree, { leafId: null });
    tree.append(all.slice(3000));
    const options = { leafId: 'e8999', mode: 'no-tools' as const, query: '' };
    stepsToEnd(prepareRows(tree, options));
    expect(project(tree, options)).toEqual(project(new ViewTree(all), options));
  });
});

// What the rows computations keep between calls is owned by each tree (ViewTree.work, work.ts):
// before, module-level caches and working arrays were shared by every tree on the page.
describe('two trees on one page, two views of one tree', () => {
  it("a computation on another tree between two steps does not stop a tree's preparation", () => {
    const options = { leafId: 'e8990', mode: 'default' as const, query: '', selectedId: 'e5000' };
    const tree = new ViewTree(all);
    const other = new ViewTree(all.slice(0, 5000));
    const preparation = prepareRows(tree, options);
    expect(preparation.step(() => true)).toBe(false);
    computeRows(other, { leafId: 'e4000', mode: 'all' });
    stepsToEnd(preparation);
    const full = rowsPaths.full;
    const prepared = project(tree, options);
    // Answered from the preparation: no full pass.
    expect(rowsPaths.full).toBe(full);
    expect(prepared).toEqual(project(new ViewTree(all), options));
  });

  it('give each tree its own rows through interleaved jumps, filters and searches', () => {
    const first = new ViewTree(all);
    const second = new ViewTree(all.slice(0, 6000));
    const steps = [
      { leafId: 'e5000', mode: 'default' as const, query: '' },
      { leafId: 'e5990', mode: 'default' as const, query: '' },
      { leafId: 'e1200', mode: 'no-tools' as const, query: '' },
      { leafId: 'e1200', mode: 'no-tools' as const, query: 'ab' },
      { leafId: 'e3000', mode: 'default' as const, query: '' },
    ];
    for (const options of steps) {
      for (const [tree, source] of [
        [first, all],
        [second, all.slice(0, 6000)],
      ] as const) {
        expect(project(tree, options)).toEqual(project(new ViewTree(source), options));
      }
    }
  });

  it('give two views of one tree (another leaf, filter and search each) their own exact rows', () => {
    const tree = new ViewTree(all);
    const views = [
      { leafId: 'e8990', mode: 'default' as const, query: '' },
      { leafId: 'e2000', mode: 'user-only' as const, query: 'ab' },
    ];
    for (let round = 0; round < 3; round++) {
      for (const view of views) {
        const options = { ...view, leafId: `e${Number(view.leafId.slice(1)) - round * 100}` };
        expect(project(tree, options)).toEqual(project(new ViewTree(all), options));
      }
    }
  });
});
