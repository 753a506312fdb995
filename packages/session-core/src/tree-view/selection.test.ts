import { describe, expect, it } from 'vitest';
import {
  createTreeSelectorState,
  maxVisibleLines,
  moveSelection,
  pageSelection,
  selectedRow,
  treeSelectorReducer,
  type TreeSelectorAction,
  type TreeSelectorState,
} from './selection';
import { EntryBuilder, resolveLabels } from './testing';
import { toViewEntries } from './view-entry';
import { ViewTree } from './view-tree';

function treeOf(b: EntryBuilder): ViewTree {
  return new ViewTree(toViewEntries(b.entries, resolveLabels(b.entries)));
}

function run(state: TreeSelectorState, ...actions: TreeSelectorAction[]): TreeSelectorState {
  return actions.reduce(treeSelectorReducer, state);
}

function selected(state: TreeSelectorState): string | undefined {
  return selectedRow(state)?.id;
}

describe('docs/reference-tests.md#tree-selector: initial selection when the leaf is a metadata entry', () => {
  function session(leafType: 'model_change' | 'thinking_level_change'): EntryBuilder {
    const b = new EntryBuilder();
    b.user('user-1', null);
    b.assistant('asst-1', 'user-1');
    b.user('user-2', 'asst-1');
    if (leafType === 'model_change')
      b.add('model_change', 'meta-1', 'user-2', { provider: 'p', modelId: 'm' });
    else b.add('thinking_level_change', 'meta-1', 'user-2', { thinkingLevel: 'high' });
    b.user('user-3', 'asst-1');
    return b;
  }

  it('selects user-2, the nearest visible ancestor of a model_change leaf, not user-3', () => {
    const state = createTreeSelectorState(treeOf(session('model_change')), { leafId: 'meta-1' });
    expect(selected(state)).toBe('user-2');
  });

  it('selects user-2, the nearest visible ancestor of a thinking_level_change leaf, not user-3', () => {
    const state = createTreeSelectorState(treeOf(session('thinking_level_change')), { leafId: 'meta-1' });
    expect(selected(state)).toBe('user-2');
  });
});

describe('docs/reference-tests.md#tree-selector: filter switching follows parents', () => {
  it('moves asst-2 to user-2 under user-only and stays on user-2 back in default', () => {
    const b = new EntryBuilder();
    b.user('user-1', null);
    b.assistant('asst-1', 'user-1');
    b.user('user-2', 'asst-1');
    b.assistant('asst-2', 'user-2');
    b.user('user-3', 'asst-1');
    let state = createTreeSelectorState(treeOf(b), { leafId: 'asst-2' });
    expect(selected(state)).toBe('asst-2');
    state = run(state, { type: 'setFilter', mode: 'user-only' });
    expect(selected(state)).toBe('user-2');
    state = run(state, { type: 'setFilter', mode: 'default' });
    expect(selected(state)).toBe('user-2');
  });
});

describe('docs/reference-tests.md#tree-selector: the selection survives an empty filter', () => {
  function fourEntries(): TreeSelectorState {
    const b = new EntryBuilder();
    b.user('user-1', null);
    b.assistant('asst-1', 'user-1');
    b.user('user-2', 'asst-1');
    b.assistant('asst-2', 'user-2');
    return createTreeSelectorState(treeOf(b), { leafId: 'asst-2' });
  }

  function twoEntries(): TreeSelectorState {
    const b = new EntryBuilder();
    b.user('user-1', null);
    b.assistant('asst-1', 'user-1');
    return createTreeSelectorState(treeOf(b), { leafId: 'asst-1' });
  }

  it('selects nothing under labeled-only without labels and asst-2 again after setting default', () => {
    let state = run(fourEntries(), { type: 'setFilter', mode: 'labeled-only' });
    expect(state.rows).toEqual([]);
    expect(selected(state)).toBeUndefined();
    expect(state.selectedIndex).toBe(-1);
    state = run(state, { type: 'setFilter', mode: 'default' });
    expect(selected(state)).toBe('asst-2');
  });

  it('keeps asst-1 through two passes through an empty labeled-only list, with set semantics', () => {
    let state = run(twoEntries(), { type: 'setFilter', mode: 'labeled-only' });
    expect(selected(state)).toBeUndefined();
    state = run(state, { type: 'setFilter', mode: 'default' });
    expect(selected(state)).toBe('asst-1');
    state = run(state, { type: 'setFilter', mode: 'labeled-only' });
    expect(selected(state)).toBeUndefined();
    state = run(state, { type: 'setFilter', mode: 'default' });
    expect(selected(state)).toBe('asst-1');
  });

  it('keeps asst-1 when pi-style toggling turns labeled-only off again', () => {
    let state = run(twoEntries(), { type: 'toggleFilter', mode: 'labeled-only' });
    expect(state.mode).toBe('labeled-only');
    expect(selected(state)).toBeUndefined();
    state = run(state, { type: 'toggleFilter', mode: 'labeled-only' });
    expect(state.mode).toBe('default');
    expect(selected(state)).toBe('asst-1');
  });

  it('keeps asst-2 when cycling backwards through all and the empty labeled-only and forwards again', () => {
    let state = run(fourEntries(), { type: 'cycleFilter', direction: -1 });
    expect([state.mode, selected(state)]).toEqual(['all', 'asst-2']);
    state = run(state, { type: 'cycleFilter', direction: -1 });
    expect([state.mode, selected(state)]).toEqual(['labeled-only', undefined]);
    state = run(state, { type: 'cycleFilter', direction: 1 });
    expect([state.mode, selected(state)]).toEqual(['all', 'asst-2']);
  });

  it('carries the user-only re-selection through the empty labeled-only list when cycling forwards', () => {
    let state = run(fourEntries(), { type: 'cycleFilter', direction: 1 });
    expect([state.mode, selected(state)]).toEqual(['no-tools', 'asst-2']);
    state = run(state, { type: 'cycleFilter', direction: 1 });
    expect([state.mode, selected(state)]).toEqual(['user-only', 'user-2']);
    state = run(state, { type: 'cycleFilter', direction: 1 });
    expect([state.mode, selected(state)]).toEqual(['labeled-only', undefined]);
    state = run(state, { type: 'cycleFilter', direction: 1 });
    expect([state.mode, selected(state)]).toEqual(['all', 'user-2']);
    state = run(state, { type: 'cycleFilter', direction: 1 });
    expect([state.mode, selected(state)]).toEqual(['default', 'user-2']);
  });

  it('keeps the selection through a search that matches nothing', () => {
    let state = run(fourEntries(), { type: 'move', delta: -2 });
    expect(selected(state)).toBe('asst-1');
    state = run(state, { type: 'typeQuery', text: 'zz' });
    expect(selected(state)).toBeUndefined();
    state = run(state, { type: 'backspace' }, { type: 'backspace' });
    expect(selected(state)).toBe('asst-1');
  });
});

describe('moving and paging', () => {
  function tenRows(): TreeSelectorState {
    const b = new EntryBuilder();
    let parent: string | null = null;
    for (let i = 0; i < 10; i++) {
      b.user(`u${i}`, parent);
      parent = `u${i}`;
    }
    return createTreeSelectorState(treeOf(b), { leafId: 'u9', pageSize: 4 });
  }

  it('wraps Down from the last row to the first and Up from the first to the last', () => {
    let state = tenRows();
    expect(state.selectedIndex).toBe(9);
    state = run(state, { type: 'move', delta: 1 });
    expect(selected(state)).toBe('u0');
    state = run(state, { type: 'move', delta: -1 });
    expect(selected(state)).toBe('u9');
    state = run(state, { type: 'move', delta: -1 });
    expect(selected(state)).toBe('u8');
  });

  it('pages by the page size and stops at both ends without wrapping', () => {
    let state = run(tenRows(), { type: 'home' });
    expect(state.selectedIndex).toBe(0);
    state = run(state, { type: 'page', delta: 1 });
    expect(state.selectedIndex).toBe(4);
    state = run(state, { type: 'page', delta: 1 }, { type: 'page', delta: 1 });
    expect(state.selectedIndex).toBe(9);
    state = run(state, { type: 'page', delta: -1 });
    expect(state.selectedIndex).toBe(5);
    state = run(state, { type: 'page', delta: -1 }, { type: 'page', delta: -1 });
    expect(state.selectedIndex).toBe(0);
  });

  it('moves with and without wrapping, and reports -1 for an empty list', () => {
    const rows = { length: 5 };
    expect(moveSelection(rows, 0, -1, { wrap: true })).toBe(4);
    expect(moveSelection(rows, 4, 1, { wrap: true })).toBe(0);
    expect(moveSelection(rows, 4, 1)).toBe(4);
    expect(moveSelection(rows, 0, -3)).toBe(0);
    expect(moveSelection({ length: 0 }, 0, 1, { wrap: true })).toBe(-1);
    expect(pageSelection(rows, 1, 1, 3)).toBe(4);
    expect(pageSelection(rows, 3, -1, 3)).toBe(0);
    expect(pageSelection({ length: 0 }, 0, 1, 3)).toBe(-1);
  });

  it('sizes a terminal page as half the height, at least 5', () => {
    expect(maxVisibleLines(24)).toBe(12);
    expect(maxVisibleLines(7)).toBe(5);
  });
});

describe('search and escape', () => {
  function session(): TreeSelectorState {
    const b = new EntryBuilder();
    b.user('u1', null, 'Fix the parser');
    b.assistant('a1', 'u1', 'Done');
    b.user('u2', 'a1', 'Add a bench');
    return createTreeSelectorState(treeOf(b), { leafId: 'u2' });
  }

  it('filters as the query is typed and re-selects the nearest visible ancestor', () => {
    const state = run(session(), { type: 'typeQuery', text: 'pars' });
    expect(state.query).toBe('pars');
    expect(state.rows.map((r) => r.id)).toEqual(['u1']);
    expect(selected(state)).toBe('u1');
  });

  it('ignores typed input with control characters', () => {
    const state = session();
    expect(run(state, { type: 'typeQuery', text: '\u001b[A' })).toBe(state);
    expect(run(state, { type: 'typeQuery', text: 'a\tb' })).toBe(state);
  });

  it('removes a whole surrogate pair on backspace', () => {
    const state = run(session(), { type: 'typeQuery', text: 'x😀' }, { type: 'backspace' });
    expect(state.query).toBe('x');
  });

  it('clears the query on escape and only then requests closing', () => {
    let state = run(session(), { type: 'typeQuery', text: 'bench' });
    state = run(state, { type: 'escape' });
    expect([state.query, state.closeRequested, state.rows.length]).toEqual(['', false, 3]);
    state = run(state, { type: 'escape' });
    expect(state.closeRequested).toBe(true);
    state = run(state, { type: 'move', delta: 1 });
    expect(state.closeRequested).toBe(false);
  });

  it('replaces the query with setQuery and clears it with clearQuery', () => {
    let state = run(session(), { type: 'setQuery', query: 'done' });
    expect(state.rows.map((r) => r.id)).toEqual(['a1']);
    state = run(state, { type: 'clearQuery' });
    expect(state.rows.map((r) => r.id)).toEqual(['u1', 'a1', 'u2']);
  });
});

describe('selecting, leaf changes and live updates', () => {
  function session(): { tree: ViewTree; state: TreeSelectorState; b: EntryBuilder } {
    const b = new EntryBuilder();
    b.user('u1', null);
    b.toolCalls('tools', 'u1', [['c1', 'ls', {}]]);
    b.toolResult('r1', 'tools', 'c1', 'ls', 'out');
    b.assistant('a1', 'r1');
    const tree = treeOf(b);
    return { tree, b, state: createTreeSelectorState(tree, { leafId: 'a1' }) };
  }

  it('selects a hidden entry through its nearest visible ancestor', () => {
    const { state } = session();
    expect(selected(run(state, { type: 'selectId', id: 'tools' }))).toBe('u1');
    expect(selected(run(state, { type: 'selectId', id: 'r1' }))).toBe('r1');
  });

  it('ignores selectIndex outside the rows', () => {
    const { state } = session();
    expect(run(state, { type: 'selectIndex', index: 9 })).toBe(state);
    expect(selected(run(state, { type: 'selectIndex', index: 0 }))).toBe('u1');
  });

  it('shows a tool-only assistant once it becomes the leaf and can move the selection onto it', () => {
    const { state } = session();
    const kept = run(state, { type: 'setLeaf', leafId: 'tools' });
    expect(kept.rows.map((r) => r.id)).toEqual(['u1', 'tools', 'r1', 'a1']);
    expect(selected(kept)).toBe('a1');
    expect(selected(run(state, { type: 'setLeaf', leafId: 'tools', select: true }))).toBe('tools');
  });

  it('shows appended entries and label changes after a refresh, keeping the selection', () => {
    const { tree, b, state } = session();
    const moved = run(state, { type: 'selectId', id: 'u1' });
    tree.append(toViewEntries([b.user('u2', 'a1', 'next')], new Map()));
    tree.setLabel('a1', 'checkpoint');
    const refreshed = run(moved, { type: 'refresh' });
    expect(refreshed.treeVersion).toBe(tree.version);
    expect(refreshed.rows.map((r) => [r.id, r.entry.label])).toEqual([
      ['u1', undefined],
      ['r1', undefined],
      ['a1', 'checkpoint'],
      ['u2', undefined],
    ]);
    expect(selected(refreshed)).toBe('u1');
    expect(selected(run(refreshed, { type: 'setFilter', mode: 'labeled-only' }))).toBe('a1');
  });

  it('starts an empty tree with no rows and no selection', () => {
    const state = createTreeSelectorState(new ViewTree([]), { leafId: null });
    expect([state.rows.length, state.selectedIndex, state.lastSelectedId]).toEqual([0, -1, null]);
    expect(run(state, { type: 'move', delta: 1 }).selectedIndex).toBe(-1);
  });
});

describe('the row index of a state', () => {
  it('maps every visible id to its row, after a filter change too, and iterates like a Map', () => {
    const b = new EntryBuilder();
    b.user('u1', null, 'one');
    b.assistant('a1', 'u1', 'two');
    b.user('u2', 'a1', 'three');
    let state = createTreeSelectorState(treeOf(b), { leafId: 'u2' });
    const check = (s: TreeSelectorState) => {
      expect(s.indexById.size).toBe(s.rows.length);
      s.rows.forEach((row, index) => expect(s.indexById.get(row.id)).toBe(index));
      expect([...s.indexById]).toEqual(s.rows.map((row, index) => [row.id, index]));
      expect(s.indexById.has('missing')).toBe(false);
    };
    check(state);
    state = run(state, { type: 'setFilter', mode: 'user-only' });
    expect(state.rows.map((row) => row.id)).toEqual(['u1', 'u2']);
    check(state);
  });
});
