import { ViewTree, createTreeSelectorState, treeSelectorReducer, type ViewEntry } from '@canopy/session-core';
import { describe, expect, it } from 'vitest';
import { graphLayoutFor, graphRows, graphSourceFromRows } from './derived';

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

  it('reuses the outline rows when there is no search, so they are not computed twice', () => {
    const rows = graphRows(selector, tree, tree.version, 'a6');
    expect(rows.rows).toBe(selector.rows);
    expect(graphRows(selector, tree, tree.version, 'a6')).toBe(rows);
  });

  it('shows the whole filtered tree in the graph while the outline is narrowed by a search', () => {
    const searching = treeSelectorReducer(selector, { type: 'setQuery', query: 'second' });
    expect(searching.rows.map((r) => r.id)).toEqual(['u5', 'a6']);
    expect(graphRows(searching, tree, tree.version, 'a6').rows.map((r) => r.id)).toEqual([
      'u1',
      'a2',
      'u5',
      'a6',
      'u3',
      'a4',
    ]);
  });

  it('orders graph children by file order, not active branch first, so a jump does not reshuffle the graph', () => {
    const source = graphSourceFromRows(tree, graphRows(selector, tree, tree.version, 'a6'));
    const idsOf = (list: Int32Array) => [...list].map((i) => source.ids[i]);
    const a2 = source.indexOf('a2');
    expect(idsOf(source.childList.subarray(source.childStart[a2], source.childStart[a2 + 1]))).toEqual([
      'u3',
      'u5',
    ]);
    expect(idsOf(source.roots)).toEqual(['u1']);
  });

  it('numbers the graph source by row index, so a node finds its row without an id lookup', () => {
    const rows = graphRows(selector, tree, tree.version, 'a6');
    const layout = graphLayoutFor(tree, rows, new Set())!;
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
    const rows = graphRows(selector, tree, tree.version, 'a6');
    const searching = treeSelectorReducer(selector, { type: 'setQuery', query: 'second' });
    expect(graphRows(searching, tree, tree.version, 'a6')).toBe(rows);
    const cleared = treeSelectorReducer(searching, { type: 'setQuery', query: '' });
    expect(graphRows(cleared, tree, tree.version, 'a6').rows.map((r) => r.id)).toEqual(
      rows.rows.map((r) => r.id),
    );
  });

  it('memoises the layout on the rows and the expanded runs', () => {
    const rows = graphRows(selector, tree, tree.version, 'a6');
    const expanded = new Set<string>();
    const layout = graphLayoutFor(tree, rows, expanded);
    expect(graphLayoutFor(tree, rows, expanded)).toBe(layout);
    expect(graphLayoutFor(tree, rows, new Set(['x']))).not.toBe(layout);
    expect(layout?.nodes.length).toBe(6);
  });
});
