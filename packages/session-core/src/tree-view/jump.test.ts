import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FILTER_MODES, type FilterMode } from './filter';
import { computeRows, prepareRowsAhead, rowsPaths, rowsWork } from './flatten';
import { filterScans } from './visibility';
import { projectRows as project } from './testing';
import { ViewFlags, type ViewEntry } from './view-entry';
import { ViewTree } from './view-tree';

// Rows derived from the previous rows after a jump (jump.ts) against rows computed in full on a
// fresh tree, over random trees (forks, hidden entries between visible ones, several roots,
// children out of timestamp order) and random sequences of jumps, filters, queries, selections,
// labels and appends.

const words = ['ab', 'ba', 'cab', 'bb'];

interface EntrySpec {
  /** Offset back from the entry to its parent; 0 makes a root. */
  back: number;
  kind: string;
  words: string[];
  second: number;
}

const entryArb: fc.Arbitrary<EntrySpec> = fc.record({
  back: fc.oneof(fc.constant(1), fc.constant(1), fc.nat({ max: 12 })),
  kind: fc.constantFrom(
    'user',
    'assistant',
    'assistant',
    'assistant-tools',
    'assistant-tools',
    'toolResult',
    'label',
    'model_change',
  ),
  words: fc.array(fc.constantFrom(...words), { maxLength: 2 }),
  second: fc.integer({ min: 0, max: 40 }),
});

type Step =
  | { kind: 'leaf'; at: number; select: boolean }
  | { kind: 'mode'; mode: FilterMode }
  | { kind: 'query'; query: string }
  | { kind: 'select'; at: number }
  | { kind: 'label'; at: number; label: string | undefined }
  | { kind: 'append'; count: number }
  | { kind: 'archive'; at: number }
  | { kind: 'reveal' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({ kind: fc.constant('leaf' as const), at: fc.nat(), select: fc.boolean() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('mode' as const), mode: fc.constantFrom(...FILTER_MODES) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('query' as const), query: fc.constantFrom('', 'a', 'b', 'ab') }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('select' as const), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('label' as const),
      at: fc.nat(),
      label: fc.option(fc.constantFrom('ab', 'x'), { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('append' as const), count: fc.integer({ min: 1, max: 3 }) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('archive' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reveal' as const) }) },
);

function viewOf(spec: EntrySpec, i: number): ViewEntry {
  const message = spec.kind === 'user' || spec.kind.startsWith('assistant') || spec.kind === 'toolResult';
  return {
    id: `e${i}`,
    parentId: spec.back === 0 || spec.back > i ? null : `e${i - spec.back}`,
    type: message ? 'message' : spec.kind,
    ...(message ? { role: spec.kind.startsWith('assistant') ? 'assistant' : spec.kind } : {}),
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, spec.second)).toISOString(),
    text: spec.words.join(' '),
    search: spec.words.join(' '),
    flags: spec.kind === 'assistant-tools' ? ViewFlags.ToolOnlyAssistant : 0,
  };
}

/** A run of random steps on a live tree, each checked against rows computed on a fresh tree. */
function checkSequences(runs: number, beforeCheck: (live: ViewTree, leafId: string | null) => void): void {
  fc.assert(
    fc.property(
      fc.array(entryArb, { minLength: 1, maxLength: 60 }),
      fc.integer({ min: 1, max: 60 }),
      fc.array(stepArb, { maxLength: 30 }),
      (specs, initial, steps) => {
        const all = specs.map(viewOf);
        let shown = Math.min(initial, all.length);
        const labels = new Map<string, string>();
        const archived = new Set<string>();
        let revealed = false;
        const current = () =>
          all.slice(0, shown).map((entry) => {
            const label = labels.get(entry.id);
            const flags = archived.has(entry.id) ? entry.flags | ViewFlags.ArchiveTarget : entry.flags;
            return label === undefined && flags === entry.flags ? entry : { ...entry, label, flags };
          });
        const live = new ViewTree(current());
        let query = '';
        let mode: FilterMode = 'default';
        let leafId: string | null = all[shown - 1]!.id;
        let selectedId: string | null = null;
        const check = () => {
          beforeCheck(live, leafId);
          const options = { leafId, mode, query, selectedId };
          const fresh = new ViewTree(current());
          fresh.setArchivedRevealed(revealed);
          expect(project(live, options)).toEqual(project(fresh, options));
        };
        check();
        for (const step of steps) {
          if (step.kind === 'leaf') {
            leafId = all[step.at % shown]!.id;
            if (step.select) selectedId = leafId;
          } else if (step.kind === 'mode') mode = step.mode;
          else if (step.kind === 'query') query = step.query;
          else if (step.kind === 'select') selectedId = all[step.at % shown]!.id;
          else if (step.kind === 'label') {
            const id = all[step.at % shown]!.id;
            if (step.label === undefined) labels.delete(id);
            else labels.set(id, step.label);
            live.setLabel(id, step.label);
          } else if (step.kind === 'archive') {
            // An archive record's target flag toggled in place (the server's `changed` node).
            const id = all[step.at % shown]!.id;
            if (!archived.delete(id)) archived.add(id);
            const before = live.get(id)!;
            live.replace({ ...before, flags: before.flags ^ ViewFlags.ArchiveTarget });
          } else if (step.kind === 'reveal') {
            revealed = !revealed;
            live.setArchivedRevealed(revealed);
          } else {
            const next = Math.min(all.length, shown + step.count);
            live.append(all.slice(shown, next));
            shown = next;
          }
          check();
        }
      },
    ),
    { numRuns: runs, seed: 20261201 },
  );
}

/** A user message `id` under `parentId`, written at `second`. */
const entry = (id: string, parentId: string | null, second: number): ViewEntry => ({
  id,
  parentId,
  type: 'message',
  role: 'user',
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
  text: id,
  search: id,
  flags: 0,
});

/** A tree of `[id, parentId]` user messages written in that order. */
function treeOf(shape: readonly (readonly [string, string | null])[]): ViewTree {
  return new ViewTree(shape.map(([id, parentId], second) => entry(id, parentId, second)));
}

/** The rows for `from`, then those of a jump to `to` (checked to be one), and a row by id. */
function jumpRows(tree: ViewTree, from: string, to: string) {
  const first = computeRows(tree, { leafId: from });
  const jumps = rowsPaths.jump;
  const second = computeRows(tree, { leafId: to });
  expect(rowsPaths.jump).toBe(jumps + 1);
  const rowOf = (rows: typeof first.rows, id: string) => rows.find((row) => row.id === id)!;
  return { first, second, rowOf };
}

describe('rows prepared ahead (prepareRowsAhead)', () => {
  it('change no rows, whatever was prepared before any step', () => {
    let calls = 0;
    checkSequences(150, (live, leafId) => {
      // Prepared for the current leaf, a stale one, or not at all.
      calls++;
      if (calls % 3 === 0) prepareRowsAhead(live, leafId);
      else if (calls % 3 === 1) prepareRowsAhead(live, live.rootIds()[0] ?? null, ['user-only', 'all']);
    });
  });

  it('made in steps, read each entry once for every filter mode, go on where they stopped, and spare the next full passes', () => {
    const count = 9_000;
    const entries = Array.from({ length: count }, (_, i) =>
      viewOf(
        {
          back: i % 11 === 5 ? 4 : 1,
          kind: ['user', 'assistant', 'assistant-tools', 'toolResult', 'label'][i % 5]!,
          words: ['ab'],
          second: i % 60,
        },
        i,
      ),
    );
    const tree = new ViewTree(entries);
    const leafId = `e${count - 1}`;
    const scans = filterScans.count;
    let calls = 1;
    // A clock whose time is always up: each call reads the filter class of a few thousand entries.
    while (!prepareRowsAhead(tree, leafId, FILTER_MODES, () => true)) calls++;
    expect(calls).toBe(Math.ceil(count / 4096));
    expect(filterScans.count - scans).toBe(1);
    const traversals = rowsWork.traversals;
    for (const mode of FILTER_MODES) computeRows(tree, { leafId, mode, query: 'ab' });
    expect(rowsWork.traversals).toBe(traversals);
    expect(filterScans.count - scans).toBe(1);
  });

  it('made in steps and interrupted by an append, start the scan again and stay exact', () => {
    const make = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, k) =>
        viewOf(
          { back: 1, kind: (from + k) % 3 === 0 ? 'user' : 'assistant', words: ['ab'], second: 0 },
          from + k,
        ),
      );
    const tree = new ViewTree(make(0, 9000));
    expect(prepareRowsAhead(tree, 'e8999', ['user-only'], () => true)).toBe(false);
    tree.append(make(9000, 9010));
    while (!prepareRowsAhead(tree, 'e9009', ['user-only'], () => true));
    const options = { leafId: 'e9009', mode: 'user-only' as const };
    expect(project(tree, options)).toEqual(project(new ViewTree(make(0, 9010)), options));
  });

  it('spare the next full pass its traversal and filter scans after a jump', () => {
    const entries = Array.from({ length: 40 }, (_, i) =>
      viewOf(
        { back: i % 7 === 3 ? 3 : 1, kind: i % 2 === 0 ? 'user' : 'assistant', words: ['ab'], second: i },
        i,
      ),
    );
    const tree = new ViewTree(entries);
    computeRows(tree, { leafId: 'e39' });
    computeRows(tree, { leafId: 'e20' }); // a jump: rows derived from the last ones, no traversal
    prepareRowsAhead(tree, 'e20');
    const traversals = rowsWork.traversals;
    const scans = filterScans.count;
    computeRows(tree, { leafId: 'e20', mode: 'user-only' });
    computeRows(tree, { leafId: 'e20', query: 'ab' });
    computeRows(tree, { leafId: 'e20', mode: 'no-tools', query: 'ab' });
    expect(rowsWork.traversals).toBe(traversals);
    expect(filterScans.count).toBe(scans);
  });
});

describe('rows after a jump (jump.ts)', () => {
  it('equal the rows computed in full on a fresh tree, through any sequence of jumps, filters, queries, selections, labels and appends', () => {
    const before = { ...rowsPaths };
    checkSequences(400, () => {});
    // The property holds for the path under test, not only for full computations.
    expect(rowsPaths.jump - before.jump).toBeGreaterThan(300);
    expect(rowsPaths.same - before.same).toBeGreaterThan(100);
    expect(rowsPaths.append - before.append).toBeGreaterThan(0);
  });

  it('after an archive record or a restore, come from the rows before (only the branch and the leaf computed again) and equal a full computation', () => {
    // r ─ p1 … p40 (the active path), a branch b0 … b199 off p10, and one off p30.
    const shape: Array<[string, string | null]> = [['r', null]];
    for (let i = 1; i <= 40; i++) shape.push([`p${i}`, i === 1 ? 'r' : `p${i - 1}`]);
    for (let i = 0; i < 200; i++) shape.push([`b${i}`, i === 0 ? 'p10' : `b${i - 1}`]);
    shape.push(['c0', 'p30'], ['c1', 'c0']);
    const tree = treeOf(shape);
    let leafId = 'p40';
    const records: Array<[string, boolean]> = [
      ['b0', true],
      ['c0', true],
      ['b0', false],
      ['c0', false],
    ];
    for (const mode of ['default', 'user-only'] as const) {
      computeRows(tree, { leafId, mode });
      for (const [id, archive] of records) {
        const before = { ...rowsPaths };
        const target = tree.get(id)!;
        tree.replace({ ...target, flags: target.flags ^ ViewFlags.ArchiveTarget });
        // The record itself, under the leaf, which moves onto it (as the server sends it).
        const record = { ...entry(`rec-${mode}-${id}-${archive}`, leafId, 100 + tree.size), type: 'custom' };
        tree.append([record]);
        leafId = record.id;
        const rows = computeRows(tree, { leafId, mode });
        expect(rowsPaths.append - before.append).toBe(1);
        expect(rowsPaths.full - before.full).toBe(0);
        const fresh = new ViewTree(tree.allEntries());
        expect(project(tree, { leafId, mode })).toEqual(project(fresh, { leafId, mode }));
        expect(rows.rows.some((row) => row.id === 'b1')).toBe(!tree.archiveStateOf('b0'));
      }
    }
  });

  it('after restoring a branch larger than the walk allows, are computed in full, and the filter classes are caught up without a scan', () => {
    const shape: Array<[string, string | null]> = [
      ['r', null],
      ['p1', 'r'],
      ['p2', 'p1'],
    ];
    for (let i = 0; i < 5000; i++) shape.push([`b${i}`, i === 0 ? 'p1' : `b${i - 1}`]);
    const tree = treeOf(shape);
    computeRows(tree, { leafId: 'p2' });
    for (const archive of [true, false]) {
      const before = { ...rowsPaths };
      const scans = filterScans.count;
      const target = tree.get('b0')!;
      tree.replace({ ...target, flags: target.flags ^ ViewFlags.ArchiveTarget });
      const rows = computeRows(tree, { leafId: 'p2' });
      // Archiving walks only the stub; restoring would walk the 5,000 entries coming back.
      expect(rowsPaths.append - before.append).toBe(archive ? 1 : 0);
      expect(rowsPaths.full - before.full).toBe(archive ? 0 : 1);
      expect(rows.rows.length).toBe(archive ? 4 : 5003);
      expect(filterScans.count).toBe(scans);
      expect(project(tree, { leafId: 'p2' })).toEqual(
        project(new ViewTree(tree.allEntries()), { leafId: 'p2' }),
      );
    }
  });

  it('equal the rows computed in full after live appends, each a child of the leaf or of another entry, with the leaf moved onto it or not', () => {
    const before = { ...rowsPaths };
    fc.assert(
      fc.property(
        fc.array(entryArb, { minLength: 1, maxLength: 40 }),
        fc.array(
          fc.record({
            spec: entryArb,
            onLeaf: fc.boolean(),
            at: fc.nat(),
            moveLeaf: fc.boolean(),
            mode: fc.option(fc.constantFrom(...FILTER_MODES), { nil: undefined }),
          }),
          { maxLength: 20 },
        ),
        fc.constantFrom('', 'a', 'b'),
        (specs, appends, query) => {
          // One root, as in a real session, whose first entry is a user message.
          const all = specs.map((spec, i) =>
            viewOf(
              i === 0 ? { ...spec, kind: 'user' } : { ...spec, back: Math.max(1, Math.min(spec.back, i)) },
              i,
            ),
          );
          const live = new ViewTree(all);
          let mode: FilterMode = 'default';
          let leafId: string | null = all[all.length - 1]!.id;
          const check = () => {
            const options = { leafId, mode, query };
            expect(project(live, options)).toEqual(project(new ViewTree(all), options));
          };
          check();
          for (const step of appends) {
            const parentId = step.onLeaf ? leafId : all[step.at % all.length]!.id;
            const entry: ViewEntry = { ...viewOf(step.spec, all.length), parentId };
            all.push(entry);
            live.append([entry]);
            if (step.moveLeaf) leafId = entry.id;
            if (step.mode !== undefined) mode = step.mode;
            check();
          }
        },
      ),
      { numRuns: 400, seed: 20261202 },
    );
    expect(rowsPaths.append - before.append).toBeGreaterThan(300);
  });

  it('keeps the row objects of every subtree off both active paths whose gutters did not change', () => {
    // r → a → {b1 → c1, b2 → c2, b3 → c3}, timestamps in id order.
    const tree = treeOf([
      ['r', null],
      ['a', 'r'],
      ['b1', 'a'],
      ['c1', 'b1'],
      ['b2', 'a'],
      ['c2', 'b2'],
      ['b3', 'a'],
      ['c3', 'b3'],
    ]);
    const { first, second, rowOf } = jumpRows(tree, 'c1', 'c2');
    expect(second.rows.map((row) => row.id)).toEqual(['r', 'a', 'b2', 'c2', 'b1', 'c1', 'b3', 'c3']);
    // b3 stays last, so its subtree keeps its objects; r is on both paths and its row is unchanged.
    expect(rowOf(second.rows, 'b3')).toBe(rowOf(first.rows, 'b3'));
    expect(rowOf(second.rows, 'c3')).toBe(rowOf(first.rows, 'c3'));
    expect(rowOf(second.rows, 'r')).toBe(rowOf(first.rows, 'r'));
    // The old and new paths changed their marks.
    expect(rowOf(second.rows, 'c1').onActivePath).toBe(false);
    expect(rowOf(second.rows, 'c2').isLeaf).toBe(true);
  });

  it('keeps the rows below a fork child that stops being the last one, and turns their gutter line over', () => {
    // q → {b, a → {a1 → a1r, a2 → a2r}}; the leaf a2r. A jump to b puts b first: a becomes the last
    // answer, so the line a draws at q's fork leaves the gutter of every row below a.
    const tree = treeOf([
      ['q', null],
      ['b', 'q'],
      ['a', 'q'],
      ['a1', 'a'],
      ['a1r', 'a1'],
      ['a2', 'a'],
      ['a2r', 'a2'],
    ]);
    const { first, second, rowOf } = jumpRows(tree, 'a2r', 'b');
    // a1r's own marks do not change: its row object is kept, and it reads the new gutters.
    expect(rowOf(second.rows, 'a1r')).toBe(rowOf(first.rows, 'a1r'));
    expect(rowOf(second.rows, 'a1r').gutters[0]).toEqual({ position: 0, show: false });
    expect(project(tree, { leafId: 'b' })).toEqual(project(new ViewTree(tree.allEntries()), { leafId: 'b' }));
    // And back: the line shows again.
    computeRows(tree, { leafId: 'a2r' });
    expect(rowOf(first.rows, 'a1r').gutters[0]).toEqual({ position: 0, show: true });
    expect(project(tree, { leafId: 'a2r' })).toEqual(
      project(new ViewTree(tree.allEntries()), { leafId: 'a2r' }),
    );
  });

  it('looks only at the rows below the deepest entry on both paths: a jump between neighbours is O(their subtree)', () => {
    // A chain of 2,000 entries (the last an assistant message), then two user messages after it.
    const chain = Array.from({ length: 2000 }, (_, i) => entry(`c${i}`, i === 0 ? null : `c${i - 1}`, i));
    chain[1999] = { ...chain[1999]!, role: 'assistant' };
    const tree = new ViewTree([...chain, entry('x', 'c1999', 2000), entry('y', 'c1999', 2001)]);
    const fresh = () => new ViewTree(tree.allEntries());
    for (const mode of ['default', 'user-only'] as const) {
      // user-only hides the entry both paths last share: the rows below its nearest visible ancestor.
      computeRows(tree, { leafId: 'y', mode });
      const visited = rowsWork.jumpRowsVisited;
      const sizePasses = rowsWork.subtreeSizes;
      const jumps = rowsPaths.jump;
      expect(project(tree, { leafId: 'x', mode })).toEqual(project(fresh(), { leafId: 'x', mode }));
      expect(rowsPaths.jump).toBe(jumps + 1);
      expect(rowsWork.jumpRowsVisited - visited).toBeLessThanOrEqual(4);
      // The rows just computed in full have no subtree sizes yet: the jump counted only its own.
      expect(rowsWork.subtreeSizes).toBe(sizePasses);
    }
  });

  it('shares the node → row map when no row moves, copies it once when rows do, and never changes a result already made', () => {
    // A chain of 300 entries, then two children of its last: x and y.
    const chain = Array.from({ length: 300 }, (_, i) => entry(`c${i}`, i === 0 ? null : `c${i - 1}`, i));
    const tree = new ViewTree([...chain, entry('x', 'c299', 300), entry('y', 'c299', 301)]);
    const fresh = () => new ViewTree(tree.allEntries());
    const atX = computeRows(tree, { leafId: 'x' });
    const idsAtX = atX.rows.map((row) => row.id);
    const copies = rowsWork.jumpMapCopies;
    const jumps = rowsPaths.jump;
    // Up the chain: x stays the first of c299's children (the file's order), no row moves.
    const atC150 = computeRows(tree, { leafId: 'c150' });
    expect(rowsPaths.jump).toBe(jumps + 1);
    expect(rowsWork.jumpMapCopies).toBe(copies);
    expect(project(tree, { leafId: 'c150' })).toEqual(project(fresh(), { leafId: 'c150' }));
    // To y: y becomes c299's first child, x and y change places; the map is copied once.
    const atY = computeRows(tree, { leafId: 'y' });
    expect(rowsPaths.jump).toBe(jumps + 2);
    expect(rowsWork.jumpMapCopies).toBe(copies + 1);
    expect(project(tree, { leafId: 'y' })).toEqual(project(fresh(), { leafId: 'y' }));
    expect(atY.indexById.get('y')).toBe(300);
    expect(atY.indexById.get('x')).toBe(301);
    // The results made before answer as they did.
    expect(atX.rows.map((row) => row.id)).toEqual(idsAtX);
    expect(atX.indexById.get('x')).toBe(300);
    expect(atX.indexById.get('y')).toBe(301);
    expect(atC150.indexById.get('x')).toBe(300);
    expect(atC150.rows[atC150.leafIndex]!.id).toBe('c150');
  });

  it('counts the rows of every subtree once per visible tree, not once per jump', () => {
    // r → {a1 → a2, b1 → b2, c1}: every jump reorders the root's children.
    const entries = ['r', 'a1', 'a2', 'b1', 'b2', 'c1'].map((id, i) =>
      viewOf({ back: 1, kind: 'user', words: ['ab'], second: i }, i),
    );
    const parents: Record<string, string | null> = {
      e0: null,
      e1: 'e0',
      e2: 'e1',
      e3: 'e0',
      e4: 'e3',
      e5: 'e0',
    };
    const tree = new ViewTree(entries.map((entry) => ({ ...entry, parentId: parents[entry.id]! })));
    computeRows(tree, { leafId: 'e2' });
    const jumps = rowsPaths.jump;
    const passes = rowsWork.subtreeSizes;
    for (const leafId of ['e4', 'e5', 'e2', 'e4'])
      expect(project(tree, { leafId })).toEqual(project(new ViewTree(tree.allEntries()), { leafId }));
    expect(rowsPaths.jump).toBe(jumps + 4);
    expect(rowsWork.subtreeSizes).toBe(passes + 1);
  });
});
