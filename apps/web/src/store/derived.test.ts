import {
  FILTER_MODES,
  ViewFlags,
  ViewTree,
  createTreeSelectorState,
  treeSelectorReducer,
  type ViewEntry,
} from '@canopy/session-core';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { rowOfNode } from '../components/graph/nodeFacts';
import { computeGraphLayout, type GraphLayout } from '../layout/graphLayout';
import { createDerived, graphSourceFromRows, type Derived, type VisibleRows } from './derived';

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
  const treeView = createTreeSelectorState(tree, { leafId: 'a6' });
  let derived: Derived;
  beforeEach(() => {
    derived = createDerived();
  });

  it('reuses the outline rows when there is no search, so they are not computed twice', () => {
    const rows = derived.graphRows(treeView);
    expect(rows.rows).toBe(treeView.rows);
    expect(derived.graphRows(treeView)).toBe(rows);
  });

  it('shows the whole filtered tree in the graph while the outline is narrowed by a search', () => {
    const searching = treeSelectorReducer(treeView, { type: 'setQuery', query: 'second' });
    expect(searching.rows.map((r) => r.id)).toEqual(['u5', 'a6']);
    expect(derived.graphRows(searching).rows.map((r) => r.id)).toEqual(['u1', 'a2', 'u5', 'a6', 'u3', 'a4']);
  });

  it('orders graph children by file order, not active branch first, so a jump does not reshuffle the graph', () => {
    const source = graphSourceFromRows(tree, derived.graphRows(treeView));
    const idsOf = (list: Int32Array) => [...list].map((i) => source.ids[i]);
    const a2 = source.indexOf('a2');
    expect(idsOf(source.childList.subarray(source.childStart[a2], source.childStart[a2 + 1]))).toEqual([
      'u3',
      'u5',
    ]);
    expect(idsOf(source.roots)).toEqual(['u1']);
  });

  it('numbers the graph source by row index, so a node finds its row without an id lookup', () => {
    const rows = derived.graphRows(treeView);
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
    const rows = derived.graphRows(treeView);
    const searching = treeSelectorReducer(treeView, { type: 'setQuery', query: 'second' });
    expect(derived.graphRows(searching)).toBe(rows);
    const cleared = treeSelectorReducer(searching, { type: 'setQuery', query: '' });
    expect(derived.graphRows(cleared).rows.map((r) => r.id)).toEqual(rows.rows.map((r) => r.id));
  });

  it('keeps the same layout object across a jump that hides and shows no entry', () => {
    const expanded = new Set<string>();
    const rows = derived.graphRows(treeView);
    const layout = derived.graphLayoutFor(tree, rows, expanded)!;
    const jumped = treeSelectorReducer(treeView, { type: 'setLeaf', leafId: 'a4' });
    const jumpedRows = derived.graphRows(jumped);
    expect(jumpedRows.rows.map((r) => r.id)).toEqual(['u1', 'a2', 'u3', 'a4', 'u5', 'a6']);
    expect(derived.graphLayoutFor(tree, jumpedRows, expanded)).toBe(layout);
    // The kept layout's rows are read by id: the active branch is the new one.
    const active = layout.nodes.map((_, i) => rowOfNode(layout, i, jumpedRows)?.onActivePath);
    expect(layout.nodes.map((n) => n.id).filter((_, i) => active[i])).toEqual(['u1', 'a2', 'u3', 'a4']);
  });

  it('lays the graph out again after a jump to a leaf that only shows as the leaf', () => {
    const hidden = new ViewTree([
      entry('u1', null, 'user', 'user: start', 1),
      entry('a2', 'u1', 'assistant', 'assistant: plan', 2),
      { ...entry('t3', 'a2', 'assistant', '', 3), flags: ViewFlags.ToolOnlyAssistant },
    ]);
    const expanded = new Set<string>();
    const start = createTreeSelectorState(hidden, { leafId: 'a2' });
    const layout = derived.graphLayoutFor(hidden, derived.graphRows(start), expanded)!;
    expect(layout.nodes.map((n) => n.id)).toEqual(['u1', 'a2']);
    const jumped = treeSelectorReducer(start, { type: 'setLeaf', leafId: 't3' });
    const next = derived.graphLayoutFor(hidden, derived.graphRows(jumped), expanded)!;
    expect(next.nodes.map((n) => n.id)).toEqual(['u1', 'a2', 't3']);
  });

  it('memoises the layout on the rows and the expanded runs', () => {
    const rows = derived.graphRows(treeView);
    const expanded = new Set<string>();
    const layout = derived.graphLayoutFor(tree, rows, expanded);
    expect(derived.graphLayoutFor(tree, rows, expanded)).toBe(layout);
    expect(derived.graphLayoutFor(tree, rows, new Set(['x']))).not.toBe(layout);
    expect(layout?.nodes.length).toBe(6);
  });

  it('keeps separate caches per store, so one store never answers with another store’s layout', () => {
    const other = createDerived();
    const rows = derived.graphRows(treeView);
    const layout = derived.graphLayoutFor(tree, rows, new Set());
    const otherLayout = other.graphLayoutFor(tree, other.graphRows(treeView), new Set());
    expect(otherLayout).not.toBe(layout);
    expect(otherLayout?.nodes.map((n) => n.id)).toEqual(layout?.nodes.map((n) => n.id));
  });
});

/** What a layout draws and answers, independent of how its source was numbered. */
function drawn(layout: GraphLayout, rows: VisibleRows, rowAt: (node: number) => string | undefined) {
  return {
    nodes: layout.nodes,
    x: Array.from(layout.x),
    y: Array.from(layout.y),
    parent: Array.from(layout.parent),
    bounds: layout.bounds,
    byDepth: layout.byDepth.map((d) => Array.from(d)),
    buses: layout.busesByDepth,
    entries: [...rows.rows.map((r) => r.id), 'missing'].map((id) => layout.indexOfEntry.get(id)),
    rows: layout.nodes.map((_, node) => rowAt(node)),
  };
}

describe('graph layout kept across jumps', () => {
  it('equals the layout computed from scratch for every jump, filter change and expanded run', () => {
    const roles = ['user', 'assistant', 'toolResult', 'tool-only'] as const;
    const treeArb = fc.array(
      fc.record({ back: fc.nat(), role: fc.constantFrom(...roles), label: fc.boolean() }),
      {
        minLength: 1,
        maxLength: 40,
      },
    );
    const stepArb = fc.oneof(
      fc.record({ kind: fc.constant('jump' as const), target: fc.nat() }),
      fc.record({ kind: fc.constant('filter' as const), mode: fc.constantFrom(...FILTER_MODES) }),
      fc.record({ kind: fc.constant('expand' as const), target: fc.nat() }),
    );
    fc.assert(
      fc.property(treeArb, fc.array(stepArb, { minLength: 1, maxLength: 12 }), (specs, steps) => {
        const entries = specs.map((spec, i): ViewEntry => {
          // Mostly chains with some forks, so that runs form and jumps change branches.
          const parent = i === 0 ? null : `e${i - 1 - (spec.back % Math.min(i, 3))}`;
          const role = spec.role === 'tool-only' ? 'assistant' : spec.role;
          const base = entry(`e${i}`, parent, role, `${role} ${i}`, i % 60);
          return {
            ...base,
            flags: spec.role === 'tool-only' ? ViewFlags.ToolOnlyAssistant : 0,
            ...(spec.label && i % 5 === 0 ? { label: `l${i}` } : {}),
          };
        });
        const randomTree = new ViewTree(entries);
        const derived = createDerived();
        let state = createTreeSelectorState(randomTree, { leafId: `e${entries.length - 1}` });
        let expanded: ReadonlySet<string> = new Set<string>();
        for (const step of steps) {
          if (step.kind === 'jump')
            state = treeSelectorReducer(state, {
              type: 'setLeaf',
              leafId: `e${step.target % entries.length}`,
            });
          else if (step.kind === 'filter')
            state = treeSelectorReducer(state, { type: 'setFilter', mode: step.mode });
          else expanded = new Set([...expanded, `e${step.target % entries.length}`]);
          const rows = derived.graphRows(state);
          const kept = derived.graphLayoutFor(randomTree, rows, expanded)!;
          const fresh = computeGraphLayout(graphSourceFromRows(randomTree, rows), { expandedRuns: expanded });
          expect(drawn(kept, rows, (node) => rowOfNode(kept, node, rows)?.id)).toEqual(
            drawn(fresh, rows, (node) => rows.rows[fresh.sourceIndex[node]!]?.id),
          );
        }
      }),
      { numRuns: 200, seed: 20261201 },
    );
  });
});
