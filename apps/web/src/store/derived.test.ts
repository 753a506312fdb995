import { ViewTree, createTreeSelectorState, treeSelectorReducer, type ViewEntry } from '@canopy/session-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDerived, graphSourceFromRows, type Derived } from './derived';

function entry(id: string, parentId: string | null, role: string, text: string, second: number): ViewEntry {
  return {
    id,
    parentId,
    type: 'message',
    role,
    timestamp: `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`,
    text,
    search: `${role} ${text}`.toLowerCase(),
    flags: 0,
  };
}

// u1 → a2 → { u3 → a4 , u5 → a6 (leaf) }: the active branch (u5) is listed first in the rows.
const tree = new ViewTree([
  entry('u1', null, 'user', 'user: start', 1),
  entry('a2', 'u1', 'assistant', 'assistant: plan', 2),
  entry('u3', 'a2', 'user', 'user: first try', 3),
  entry('a4', 'u3', 'assistant', 'assistant: first result', 4),
  entry('u5', 'a2', 'user', 'user: second try', 5),
  entry('a6', 'u5', 'assistant', 'assistant: second result', 6),
]);

describe('graph rows and layout', () => {
  const selector = createTreeSelectorState(tree, { leafId: 'a6' });
  let derived: Derived;
  beforeEach(() => {
    derived = createDerived();
  });

  it('reuses the outline rows when there is no search, so they are not computed twice', () => {
    const rows = derived.graphRows(selector);
    expect(rows.rows).toBe(selector.rows);
    expect(derived.graphRows(selector)).toBe(rows);
  });

  it('shows the whole filtered tree in the graph while the outline is narrowed by a search', () => {
    const searching = treeSelectorReducer(selector, { type: 'setQuery', query: 'second' });
    expect(searching.rows.map((r) => r.id)).toEqual(['u5', 'a6']);
    expect(derived.graphRows(searching).rows.map((r) => r.id)).toEqual(['u1', 'a2', 'u5', 'a6', 'u3', 'a4']);
  });

  it('orders graph children by file order, not active branch first, so a jump does not reshuffle the graph', () => {
    const source = graphSourceFromRows(tree, derived.graphRows(selector));
    const idsOf = (list: Int32Array) => [...list].map((i) => source.ids[i]);
    const a2 = source.indexOf('a2');
    expect(idsOf(source.childList.subarray(source.childStart[a2], source.childStart[a2 + 1]))).toEqual([
      'u3',
      'u5',
    ]);
    expect(idsOf(source.roots)).toEqual(['u1']);
  });

  it('numbers the graph source by row index, so a node finds its row without an id lookup', () => {
    const rows = derived.graphRows(selector);
    const layout = derived.graphLayoutFor(tree, rows, new Set())!;
    for (let node = 0; node < layout.nodes.length; node++) {
      const drawn = layout.nodes[node]!;
      expect(rows.rows[layout.sourceIndex[node]!]!.id).toBe(
        drawn.kind === 'run' ? drawn.members[0] : drawn.id,
      );
    }
    expect(layout.indexOfEntry.get('a4')).toBe(layout.nodes.findIndex((n) => n.id === 'a4'));
    expect(layout.indexOfEntry.get('nope')).toBeUndefined();
  });

  it('keeps the graph rows (and so the layout) when a search starts and when it is cleared', () => {
    const rows = derived.graphRows(selector);
    const searching = treeSelectorReducer(selector, { type: 'setQuery', query: 'second' });
    expect(derived.graphRows(searching)).toBe(rows);
    const cleared = treeSelectorReducer(searching, { type: 'setQuery', query: '' });
    expect(derived.graphRows(cleared).rows.map((r) => r.id)).toEqual(rows.rows.map((r) => r.id));
  });

  it('memoises the layout on the rows and the expanded runs', () => {
    const rows = derived.graphRows(selector);
    const expanded = new Set<string>();
    const layout = derived.graphLayoutFor(tree, rows, expanded);
    expect(derived.graphLayoutFor(tree, rows, expanded)).toBe(layout);
    expect(derived.graphLayoutFor(tree, rows, new Set(['x']))).not.toBe(layout);
    expect(layout?.nodes.length).toBe(6);
  });

  it('keeps separate caches per store, so one store never answers with another store’s layout', () => {
    const other = createDerived();
    const rows = derived.graphRows(selector);
    const layout = derived.graphLayoutFor(tree, rows, new Set());
    const otherLayout = other.graphLayoutFor(tree, other.graphRows(selector), new Set());
    expect(otherLayout).not.toBe(layout);
    expect(otherLayout?.nodes.map((n) => n.id)).toEqual(layout?.nodes.map((n) => n.id));
  });
});
