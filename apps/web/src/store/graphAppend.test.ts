import {
  FILTER_MODES,
  ViewFlags,
  ViewTree,
  createTreeSelectorState,
  treeSelectorReducer,
  type TreeSelectorState,
  type ViewEntry,
} from '@canopy/session-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowOfNode } from '../components/graph/nodeFacts';
import { computeGraphLayout, type GraphLayout } from '../layout/graphLayout';
import { createDerived, graphSourceFromRows, SLICED_LAYOUT_ROWS, type VisibleRows } from './derived';
import { MAX_APPENDED_ENTRIES } from './graphAppend';

function entry(id: string, parentId: string | null, role: string, flags = 0, label?: string): ViewEntry {
  return {
    id,
    parentId,
    type: 'message',
    role,
    timestamp: '2026-01-01T00:00:00.000Z',
    text: `${role} ${id}`,
    search: `${role} ${id}`,
    flags,
    ...(label !== undefined ? { label } : {}),
  };
}

/** What a layout draws and answers for every entry of the tree. */
function drawn(layout: GraphLayout, tree: ViewTree, rows: VisibleRows) {
  return {
    nodes: layout.nodes,
    x: Array.from(layout.x),
    y: Array.from(layout.y),
    parent: Array.from(layout.parent),
    bounds: layout.bounds,
    byDepth: layout.byDepth.map((d) => Array.from(d)),
    buses: layout.busesByDepth,
    entries: [...tree.allEntries().map((e) => e.id), 'missing'].map((id) => layout.indexOfEntry.get(id)),
    rows: layout.nodes.map((_, node) => rowOfNode(layout, node, rows)?.id),
  };
}

/** An agent's append as the live store applies it: the tree grows, rows refresh, the leaf follows. */
function append(state: TreeSelectorState, entries: ViewEntry[]): TreeSelectorState {
  state.tree.append(entries);
  const refreshed = treeSelectorReducer(state, { type: 'refresh' });
  return treeSelectorReducer(refreshed, { type: 'setLeaf', leafId: entries[entries.length - 1]!.id });
}

function chain(from: number, length: number, parent: string) {
  return Array.from({ length }, (_, k) =>
    entry(`e${from + k}`, k === 0 ? parent : `e${from + k - 1}`, 'user'),
  );
}

describe('graph layout after an append', () => {
  it('keeps every position when a chain grows at the tip of a run, and draws the new tip there', () => {
    const tree = new ViewTree(chain(0, 6, 'none').map((e, i) => (i === 0 ? { ...e, parentId: null } : e)));
    const derived = createDerived();
    let state = createTreeSelectorState(tree, { leafId: 'e5' });
    const expanded = new Set<string>();
    const before = derived.graphLayoutFor(tree, derived.graphRows(state), expanded)!;
    expect(before.nodes.map((n) => (n.kind === 'run' ? `run(${n.members.join(',')})` : n.id))).toEqual([
      'e0',
      'run(e1,e2,e3,e4)',
      'e5',
    ]);
    state = append(state, chain(6, 2, 'e5'));
    const rows = derived.graphRows(state);
    const after = derived.graphLayoutFor(tree, rows, expanded)!;
    // Not laid out again: the same position arrays, two nodes changed.
    expect(after.x).toBe(before.x);
    expect(after.nodes.map((n) => (n.kind === 'run' ? `run(${n.members.join(',')})` : n.id))).toEqual([
      'e0',
      'run(e1,e2,e3,e4,e5,e6)',
      'e7',
    ]);
    expect(after.indexOfEntry.get('e5')).toBe(1);
    expect(after.indexOfEntry.get('e7')).toBe(2);
    expect(before.indexOfEntry.get('e7')).toBeUndefined();
    const fresh = computeGraphLayout(graphSourceFromRows(tree, rows), { expandedRuns: expanded });
    expect(drawn(after, tree, rows)).toEqual(drawn(fresh, tree, rows));
  });

  it('lays the tree out again, without trying the append, when more entries came than a live append brings', () => {
    const tree = new ViewTree(chain(0, 6, 'none').map((e, i) => (i === 0 ? { ...e, parentId: null } : e)));
    const derived = createDerived();
    let state = createTreeSelectorState(tree, { leafId: 'e5' });
    const expanded = new Set<string>();
    const before = derived.graphLayoutFor(tree, derived.graphRows(state), expanded)!;
    state = append(state, chain(6, MAX_APPENDED_ENTRIES, 'e5'));
    const within = derived.graphLayoutFor(tree, derived.graphRows(state), expanded)!;
    expect(within.x).toBe(before.x);
    state = append(
      state,
      chain(6 + MAX_APPENDED_ENTRIES, MAX_APPENDED_ENTRIES + 1, `e${5 + MAX_APPENDED_ENTRIES}`),
    );
    const rows = derived.graphRows(state);
    const after = derived.graphLayoutFor(tree, rows, expanded)!;
    // Laid out again (new position arrays), and drawn as a fresh layout draws it.
    expect(after.x).not.toBe(within.x);
    const fresh = computeGraphLayout(graphSourceFromRows(tree, rows), { expandedRuns: expanded });
    expect(drawn(after, tree, rows)).toEqual(drawn(fresh, tree, rows));
  });

  it('keeps the layout object when the filter hides everything appended', () => {
    const tree = new ViewTree(chain(0, 6, 'none').map((e, i) => (i === 0 ? { ...e, parentId: null } : e)));
    const derived = createDerived();
    let state = createTreeSelectorState(tree, { leafId: 'e5' });
    const expanded = new Set<string>();
    const before = derived.graphLayoutFor(tree, derived.graphRows(state), expanded)!;
    tree.append([{ ...entry('t6', 'e5', 'assistant'), flags: ViewFlags.ToolOnlyAssistant }]);
    state = treeSelectorReducer(state, { type: 'refresh' });
    expect(derived.graphLayoutFor(tree, derived.graphRows(state), expanded)).toBe(before);
  });

  it('equals the layout computed from scratch after every append, label, jump and filter change', () => {
    const roles = ['user', 'assistant', 'tool-only'] as const;
    const treeArb = fc.array(
      fc.record({ back: fc.nat(), role: fc.constantFrom(...roles), label: fc.boolean() }),
      {
        minLength: 1,
        maxLength: 30,
      },
    );
    const stepArb = fc.oneof(
      // Mostly chains under the leaf, as an agent writes them.
      {
        weight: 6,
        arbitrary: fc.record({
          kind: fc.constant('append' as const),
          length: fc.integer({ min: 1, max: 4 }),
          roles: fc.array(fc.constantFrom(...roles), { minLength: 4, maxLength: 4 }),
          under: fc.option(fc.nat(), { freq: 4 }),
          label: fc.option(fc.nat({ max: 3 }), { freq: 5 }),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('label' as const), target: fc.nat() }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('jump' as const), target: fc.nat() }) },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('filter' as const),
          mode: fc.constantFrom(...FILTER_MODES),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('expand' as const), target: fc.nat() }) },
    );
    const make = (i: number, parent: string | null, role: (typeof roles)[number], label?: string) =>
      entry(
        `e${i}`,
        parent,
        role === 'tool-only' ? 'assistant' : role,
        role === 'tool-only' ? ViewFlags.ToolOnlyAssistant : 0,
        label,
      );
    let fastPaths = 0;
    fc.assert(
      fc.property(treeArb, fc.array(stepArb, { minLength: 1, maxLength: 16 }), (specs, steps) => {
        const entries = specs.map((spec, i) =>
          make(
            i,
            i === 0 ? null : `e${i - 1 - (spec.back % Math.min(i, 3))}`,
            spec.role,
            spec.label && i % 5 === 0 ? `l${i}` : undefined,
          ),
        );
        const tree = new ViewTree(entries);
        const derived = createDerived();
        let state = createTreeSelectorState(tree, { leafId: `e${entries.length - 1}` });
        let expanded: ReadonlySet<string> = new Set<string>();
        let previous: GraphLayout | null = null;
        for (const step of steps) {
          const size = tree.size;
          if (step.kind === 'append') {
            const parent = step.under === null ? state.leafId : `e${step.under % size}`;
            const added = Array.from({ length: step.length }, (_, k) =>
              make(
                size + k,
                k === 0 ? parent : `e${size + k - 1}`,
                step.roles[k]!,
                step.label === k ? `new${size + k}` : undefined,
              ),
            );
            state = append(state, added);
          } else if (step.kind === 'label') {
            tree.setLabel(`e${step.target % size}`, tree.get(`e${step.target % size}`)!.label ? '' : 'x');
            state = treeSelectorReducer(state, { type: 'refresh' });
          } else if (step.kind === 'jump')
            state = treeSelectorReducer(state, { type: 'setLeaf', leafId: `e${step.target % size}` });
          else if (step.kind === 'filter')
            state = treeSelectorReducer(state, { type: 'setFilter', mode: step.mode });
          else expanded = new Set([...expanded, `e${step.target % size}`]);
          const rows = derived.graphRows(state);
          const kept = derived.graphLayoutFor(tree, rows, expanded)!;
          if (previous !== null && kept !== previous && kept.x === previous.x) fastPaths++;
          previous = kept;
          const fresh = computeGraphLayout(graphSourceFromRows(tree, rows), { expandedRuns: expanded });
          expect(drawn(kept, tree, rows)).toEqual(drawn(fresh, tree, rows));
        }
      }),
      { numRuns: 300, seed: 20261201 },
    );
    // The generator must exercise the incremental path, not only the fallback.
    expect(fastPaths).toBeGreaterThan(50);
  });
});

describe('graph layout in slices', () => {
  const forked = (count = 3000) => {
    const entries: ViewEntry[] = [];
    for (let i = 0; i < count; i++)
      entries.push(entry(`e${i}`, i === 0 ? null : `e${i % 7 === 0 ? Math.floor(i / 2) : i - 1}`, 'user'));
    return new ViewTree(entries);
  };

  it('lays a large tree out in slices, showing the last layout of the tree meanwhile, then the new one', () => {
    const tree = forked();
    const derived = createDerived({ slicedLayoutRows: 100 });
    const expanded = new Set<string>();
    let state = createTreeSelectorState(tree, { leafId: 'e2999' });
    const first = derived.graphLayoutSoon(tree, derived.graphRows(state), expanded);
    expect(first.layout).toBeNull();
    let slices = 1;
    while (!first.job!(() => true)) slices++;
    expect(slices).toBeGreaterThan(1);
    const rows = derived.graphRows(state);
    const done = derived.graphLayoutSoon(tree, rows, expanded);
    expect(done.job).toBeNull();
    const fresh = computeGraphLayout(graphSourceFromRows(tree, rows), { expandedRuns: expanded });
    expect(drawn(done.layout!, tree, rows)).toEqual(drawn(fresh, tree, rows));

    // A new fork needs a new layout: the old one shows until it is done.
    state = append(state, [entry('f1', 'e10', 'user')]);
    const next = derived.graphLayoutSoon(tree, derived.graphRows(state), expanded);
    expect(next.layout).toBe(done.layout);
    expect(next.job!(() => false)).toBe(true);
    const nextRows = derived.graphRows(state);
    expect(drawn(derived.graphLayoutSoon(tree, nextRows, expanded).layout!, tree, nextRows)).toEqual(
      drawn(
        computeGraphLayout(graphSourceFromRows(tree, nextRows), { expandedRuns: expanded }),
        tree,
        nextRows,
      ),
    );
  });

  it('abandons a job when other rows are asked for, and never installs its result', () => {
    const tree = forked();
    const derived = createDerived({ slicedLayoutRows: 100 });
    const state = createTreeSelectorState(tree, { leafId: 'e2999' });
    const expanded = new Set<string>();
    const defaultRows = derived.graphRows(state);
    const abandoned = derived.graphLayoutSoon(tree, defaultRows, expanded);
    const all = treeSelectorReducer(state, { type: 'setFilter', mode: 'all' });
    const allRows = derived.graphRows(all);
    const current = derived.graphLayoutSoon(tree, allRows, expanded);
    expect(abandoned.job!(() => false)).toBe(true);
    expect(derived.graphLayoutSoon(tree, allRows, expanded).job).toBe(current.job);
    expect(current.job!(() => false)).toBe(true);
    expect(derived.graphLayoutSoon(tree, allRows, expanded).job).toBeNull();
  });

  it('lays a small tree out at once', () => {
    const tree = forked(SLICED_LAYOUT_ROWS);
    const derived = createDerived();
    const state = createTreeSelectorState(tree, { leafId: `e${SLICED_LAYOUT_ROWS - 1}` });
    const rows = derived.graphRows(state);
    expect(rows.rows.length).toBeLessThanOrEqual(SLICED_LAYOUT_ROWS);
    const soon = derived.graphLayoutSoon(tree, rows, new Set());
    expect(soon.job).toBeNull();
    expect(soon.layout?.nodes.length).toBeGreaterThan(0);
  });

  it('lays a tree of more rows than that out in slices', () => {
    const tree = forked(SLICED_LAYOUT_ROWS + 1);
    const derived = createDerived();
    const state = createTreeSelectorState(tree, { leafId: `e${SLICED_LAYOUT_ROWS}` });
    expect(derived.graphLayoutSoon(tree, derived.graphRows(state), new Set()).job).not.toBeNull();
  });
});
