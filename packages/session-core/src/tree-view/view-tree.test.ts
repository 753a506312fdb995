import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeRows } from './flatten';
import { FILTER_MODES, type FilterMode } from './filter';
import type { ViewEntry } from './view-entry';
import { ViewTree } from './view-tree';

function view(
  id: string,
  parentId: string | null,
  timestamp = '2026-01-01T00:00:00.000Z',
  extra: Partial<ViewEntry> = {},
): ViewEntry {
  return {
    id,
    parentId,
    type: 'message',
    role: 'user',
    timestamp,
    text: `user: ${id}`,
    search: `user ${id}`,
    flags: 0,
    ...extra,
  };
}

function at(second: number): string {
  return new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
}

/**
 * The tree as nested [id, children] pairs, walked with an explicit stack. Checks on the way that
 * the index-based child access (childCountAt/childAt, for walks that allocate nothing) answers the
 * same children as childrenOf.
 */
function shape(tree: ViewTree): unknown[] {
  for (let index = 0; index < tree.size; index++) {
    const counted = Array.from({ length: tree.childCountAt(index) }, (_, k) => tree.childAt(index, k));
    expect(counted).toEqual(tree.childIndicesAt(index) ?? []);
    expect(counted.map((child) => tree.entryAt(child).id)).toEqual(tree.childrenOf(tree.entryAt(index).id));
  }
  const result: unknown[] = [];
  const stack: { id: string; into: unknown[] }[] = tree
    .rootIds()
    .reverse()
    .map((id) => ({ id, into: result }));
  while (stack.length > 0) {
    const { id, into } = stack.pop()!;
    const children: unknown[] = [];
    into.push([id, children]);
    const kids = tree.childrenOf(id);
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ id: kids[i]!, into: children });
  }
  return result;
}

describe('ViewTree shape', () => {
  it('makes roots of entries with a null parent, a self-parent or a missing parent, in file order', () => {
    const tree = new ViewTree([
      view('a', null),
      view('b', 'a'),
      view('self', 'self'),
      view('orphan', 'gone'),
      view('c', null),
    ]);
    expect(tree.rootIds()).toEqual(['a', 'self', 'orphan', 'c']);
    expect(tree.childrenOf('a')).toEqual(['b']);
    expect(tree.parentOf('self')).toBeNull();
    expect(tree.parentOf('b')).toBe('a');
  });

  it('sorts children by timestamp, oldest first, whatever the file order', () => {
    const tree = new ViewTree([
      view('p', null, at(0)),
      view('late', 'p', at(30)),
      view('early', 'p', at(10)),
      view('mid', 'p', at(20)),
    ]);
    expect(tree.childrenOf('p')).toEqual(['early', 'mid', 'late']);
  });

  it('keeps file order among children with equal timestamps', () => {
    const tree = new ViewTree([
      view('p', null, at(0)),
      view('x', 'p', at(5)),
      view('y', 'p', at(5)),
      view('w', 'p', at(1)),
    ]);
    expect(tree.childrenOf('p')).toEqual(['w', 'x', 'y']);
  });

  it('sorts children with invalid timestamps after the valid ones, in file order', () => {
    const tree = new ViewTree([
      view('p', null, at(0)),
      view('bad1', 'p', 'not a date'),
      view('ok2', 'p', at(9)),
      view('bad2', 'p', ''),
      view('ok1', 'p', at(3)),
    ]);
    expect(tree.childrenOf('p')).toEqual(['ok1', 'ok2', 'bad1', 'bad2']);
  });

  it('keeps the first entry of a repeated id and counts the later one as skipped', () => {
    const tree = new ViewTree([
      view('a', null),
      view('dup', 'a', at(1), { text: 'first' }),
      view('dup', 'a', at(2), { text: 'second' }),
    ]);
    expect(tree.size).toBe(2);
    expect(tree.get('dup')!.text).toBe('first');
    expect(tree.skippedCount).toBe(1);
  });

  it('makes the earliest member of a two-entry parent cycle a root with the other under it', () => {
    const tree = new ViewTree([view('c1', 'c2', at(1)), view('c2', 'c1', at(2))]);
    expect(shape(tree)).toEqual([['c1', [['c2', []]]]]);
  });

  it('breaks a three-entry cycle at its earliest member and keeps the entries hanging off it', () => {
    const tree = new ViewTree([
      view('tail', 'y', at(0)),
      view('x', 'z', at(1)),
      view('y', 'x', at(2)),
      view('z', 'y', at(3)),
    ]);
    // Cycle x → z → y → x; x is earliest in file order, so x is the root and z hangs under y.
    expect(shape(tree)).toEqual([
      [
        'x',
        [
          [
            'y',
            [
              ['tail', []],
              ['z', []],
            ],
          ],
        ],
      ],
    ]);
  });

  it('contains every entry exactly once, cycles, orphans and self-parents included', () => {
    const entries = [
      view('m1', null),
      view('m3', 'gone'),
      view('m4', 'm4'),
      view('c1', 'c2'),
      view('c2', 'c1'),
      view('f1', 'm1'),
    ];
    const tree = new ViewTree(entries);
    const seen = JSON.stringify(shape(tree)).match(/"[a-z0-9]+"/g)!;
    expect([...seen].sort()).toEqual(entries.map((e) => `"${e.id}"`).sort());
  });

  it('replaces the entry object when a label is set and clears it with undefined or ""', () => {
    const tree = new ViewTree([view('a', null)]);
    const before = tree.get('a')!;
    const version = tree.version;
    expect(tree.setLabel('a', 'milestone')).toBe(true);
    expect(tree.get('a')!.label).toBe('milestone');
    expect(before.label).toBeUndefined();
    expect(tree.version).toBeGreaterThan(version);
    tree.setLabel('a', '');
    expect('label' in tree.get('a')!).toBe(false);
    tree.setLabel('a', 'x');
    tree.setLabel('a', undefined);
    expect(tree.get('a')!.label).toBeUndefined();
    expect(tree.setLabel('missing', 'x')).toBe(false);
  });

  it('keeps the fields an entry reads through getters on its prototype when it labels it', () => {
    // Like the page's unpacked snapshot nodes: the texts come from the part they arrived in.
    class LazyEntry {
      label?: string;
      constructor(
        readonly id: string,
        readonly parentId: string | null,
        private readonly texts: string[],
      ) {}
      readonly type = 'message';
      readonly role = 'user';
      readonly flags = 0;
      get timestamp(): string {
        return this.texts[0]!;
      }
      get text(): string {
        return this.texts[1]!;
      }
      get search(): string {
        return this.texts[2]!;
      }
    }
    const entry: ViewEntry = new LazyEntry('a', null, [at(1), 'user: hello', 'user: hello']);
    const tree = new ViewTree([entry]);
    tree.setLabel('a', 'milestone');
    const labelled = tree.get('a')!;
    expect(labelled).not.toBe(entry);
    expect(entry.label).toBeUndefined();
    expect([labelled.label, labelled.timestamp, labelled.text, labelled.search]).toEqual([
      'milestone',
      at(1),
      'user: hello',
      'user: hello',
    ]);
    tree.setLabel('a', undefined);
    expect([tree.get('a')!.label, tree.get('a')!.text]).toEqual([undefined, 'user: hello']);
  });
});

describe('ViewTree.replace', () => {
  it('replaces an entry in place, keeping its position, and bumps the version', () => {
    const tree = new ViewTree([view('p', null, at(0)), view('a', 'p', at(10)), view('b', 'p', at(20))]);
    const version = tree.version;
    const replaced = { ...tree.get('a')!, text: 'tool result: read', label: 'seen' };
    expect(tree.replace(replaced)).toBe(true);
    expect(tree.get('a')).toBe(replaced);
    expect(tree.childrenOf('p')).toEqual(['a', 'b']);
    expect(tree.indexOf('a')).toBe(1);
    expect(tree.version).toBeGreaterThan(version);
  });

  it('moves an entry whose timestamp changed to its new place among its siblings', () => {
    const tree = new ViewTree([view('p', null, at(0)), view('a', 'p', at(10)), view('b', 'p', at(20))]);
    tree.replace({ ...tree.get('a')!, timestamp: at(30) });
    expect(tree.childrenOf('p')).toEqual(['b', 'a']);
  });

  it('answers false for an unknown id and leaves the tree alone', () => {
    const tree = new ViewTree([view('p', null, at(0))]);
    const version = tree.version;
    expect(tree.replace(view('missing', 'p', at(1)))).toBe(false);
    expect(tree.version).toBe(version);
    expect(tree.size).toBe(1);
  });
});

describe('ViewTree.append', () => {
  it('hangs an appended entry under its parent in timestamp order', () => {
    const tree = new ViewTree([view('p', null, at(0)), view('b', 'p', at(20))]);
    tree.append([view('a', 'p', at(10)), view('c', 'p', at(30))]);
    expect(tree.childrenOf('p')).toEqual(['a', 'b', 'c']);
  });

  it('adopts an earlier orphan when its parent is appended', () => {
    const tree = new ViewTree([view('root', null, at(0)), view('child', 'late', at(2))]);
    expect(tree.rootIds()).toEqual(['root', 'child']);
    tree.append([view('late', 'root', at(1))]);
    expect(shape(tree)).toEqual([['root', [['late', [['child', []]]]]]]);
  });

  it('breaks a cycle closed by an appended entry at its earliest member, as a full build does', () => {
    const entries = [view('a', 'b', at(1)), view('b', 'c', at(2)), view('c', 'a', at(3))];
    const incremental = new ViewTree([]);
    for (const entry of entries) incremental.append([entry]);
    const built = new ViewTree(entries);
    expect(shape(incremental)).toEqual([['a', [['c', [['b', []]]]]]]);
    expect(shape(incremental)).toEqual(shape(built));
  });

  it('ignores an appended entry whose id is already taken', () => {
    const tree = new ViewTree([view('a', null)]);
    tree.append([view('a', null, at(5), { text: 'again' })]);
    expect(tree.size).toBe(1);
    expect(tree.get('a')!.text).toBe('user: a');
  });

  it('keeps the nodes of a type asked about up to date through appends, replaced types and rebuilds', () => {
    const tree = new ViewTree([
      view('a', null),
      view('b', 'a', undefined, { type: 'label' }),
      view('c', 'b'),
    ]);
    expect(tree.indicesOfType('label')).toEqual([1]);
    tree.append([view('d', 'c', undefined, { type: 'label' }), view('e', 'd')]);
    expect(tree.indicesOfType('label')).toEqual([1, 3]);
    expect(tree.indicesOfType('message')).toEqual([0, 2, 4]);
    tree.replace({ ...tree.get('e')!, type: 'label' });
    expect(tree.indicesOfType('label')).toEqual([1, 3, 4]);
    // A replaced timestamp rebuilds the tree: the lists are made again from the entries.
    tree.replace({ ...tree.get('b')!, timestamp: at(5) });
    expect(tree.indicesOfType('label')).toEqual([1, 3, 4]);
    expect(tree.indicesOfType('message')).toEqual([0, 2]);
  });

  it('changes the version on every append', () => {
    const tree = new ViewTree([view('a', null)]);
    const version = tree.version;
    tree.append([view('b', 'a')]);
    expect(tree.version).not.toBe(version);
  });

  it('gives the same shape and rows as building from scratch, for any split into appended batches', () => {
    // Ids come from a small pool so parents often point at later entries (orphans adopted on
    // append), at themselves, at missing ids, and into cycles; ids also repeat.
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'];
    const entryArb = fc.record({
      id: fc.constantFrom(...ids),
      parent: fc.option(fc.constantFrom(...ids, 'missing'), { nil: null }),
      second: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
      kind: fc.constantFrom('user', 'assistant-tools', 'label', 'toolResult'),
      labelled: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(entryArb, { maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 10 }),
        fc.constantFrom(...ids, 'missing'),
        fc.constantFrom(...FILTER_MODES),
        fc.constantFrom('', 'a', 'user b'),
        (specs, splits, leafId, mode: FilterMode, query) => {
          const entries = specs.map((s) =>
            view(s.id, s.parent, s.second === undefined ? 'invalid' : at(s.second), {
              type: s.kind === 'label' ? 'label' : 'message',
              role: s.kind === 'label' ? undefined : s.kind === 'assistant-tools' ? 'assistant' : s.kind,
              flags: s.kind === 'assistant-tools' ? 1 : 0,
              label: s.labelled ? `L${s.id}` : undefined,
            }),
          );
          const built = new ViewTree(entries);
          const grown = new ViewTree([]);
          let offset = 0;
          for (const size of splits) {
            grown.append(entries.slice(offset, offset + size));
            offset += size;
          }
          grown.append(entries.slice(offset));
          expect(shape(grown)).toEqual(shape(built));
          const options = { leafId, mode, query };
          const project = (tree: ViewTree) => {
            const result = computeRows(tree, options);
            return {
              selectedIndex: result.selectedIndex,
              rows: result.rows.map((r) => [
                r.id,
                r.indent,
                r.showConnector,
                r.isLast,
                r.gutters,
                r.onActivePath,
                r.visibleParentId,
              ]),
            };
          };
          expect(project(grown)).toEqual(project(built));
        },
      ),
      { numRuns: 400 },
    );
  });
  it('streamed in chunks of any size, matches the tree built from the same prefix after every chunk (out-of-order timestamps, orphans, wide forks)', () => {
    const entryArb = fc.record({
      // An index into the whole list, before or after the entry itself: -1 is a root.
      parent: fc.integer({ min: -1, max: 199 }),
      second: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        fc.array(entryArb, { minLength: 1, maxLength: 200 }),
        fc.array(fc.integer({ min: 1, max: 80 }), { minLength: 1, maxLength: 8 }),
        (specs, chunks) => {
          // Every entry hangs from one of the first ten half the time, so forks are wide.
          const entries = specs.map((spec, i) =>
            view(
              `n${i}`,
              spec.parent < 0 ? null : `n${i % 2 === 0 ? spec.parent % 10 : spec.parent}`,
              spec.second === undefined ? 'invalid' : at(spec.second),
            ),
          );
          const grown = new ViewTree();
          let offset = 0;
          for (let c = 0; offset < entries.length; c++) {
            const size = chunks[c % chunks.length]!;
            grown.append(entries.slice(offset, offset + size));
            offset = Math.min(entries.length, offset + size);
            const built = new ViewTree(entries.slice(0, offset));
            expect(shape(grown)).toEqual(shape(built));
            expect(grown.rootIds()).toEqual(built.rootIds());
          }
        },
      ),
      { numRuns: 300, seed: 20261201 },
    );
  });
});

describe('ViewTree child lists', () => {
  /**
   * `e` waits for `f`, which adopts it; `f` waits for `g`, whose parent is `e`: appending `g` closes
   * e → f → g → e, cut at its earliest member `e`, which leaves `f` (its parent until then).
   */
  const cycle = (fChildren: string[], after: string[]) => [
    view('e', 'f', at(0)),
    view('f', 'g', at(1)),
    ...fChildren.map((id, k) => view(id, 'f', at(2 + k))),
    view('g', 'e', at(5)),
    ...after.map((id, k) => view(id, 'f', at(6 + k))),
  ];

  it('leaves a node that loses its only child to a cycle with none', () => {
    const entries = cycle([], []);
    const grown = new ViewTree();
    for (const entry of entries) grown.append([entry]);
    expect(shape(grown)).toEqual([['e', [['g', [['f', []]]]]]]);
    expect(shape(grown)).toEqual(shape(new ViewTree(entries)));
    expect(grown.childCountAt(grown.indexOf('f'))).toBe(0);
  });

  it('keeps the one child left of two as an only child, and lists again when another comes', () => {
    const entries = cycle(['x'], ['y', 'z']);
    const grown = new ViewTree();
    for (const entry of entries.slice(0, 4)) grown.append([entry]);
    expect(shape(grown)).toEqual([['e', [['g', [['f', [['x', []]]]]]]]]);
    expect(grown.childCountAt(grown.indexOf('f'))).toBe(1);
    grown.append(entries.slice(4));
    expect(shape(grown)).toEqual([
      [
        'e',
        [
          [
            'g',
            [
              [
                'f',
                [
                  ['x', []],
                  ['y', []],
                  ['z', []],
                ],
              ],
            ],
          ],
        ],
      ],
    ]);
    expect(shape(grown)).toEqual(shape(new ViewTree(entries)));
  });

  it('keeps two children of three as a list', () => {
    const entries = cycle(['x', 'w'], []);
    const grown = new ViewTree();
    for (const entry of entries) grown.append([entry]);
    expect(shape(grown)).toEqual([
      [
        'e',
        [
          [
            'g',
            [
              [
                'f',
                [
                  ['x', []],
                  ['w', []],
                ],
              ],
            ],
          ],
        ],
      ],
    ]);
    expect(shape(grown)).toEqual(shape(new ViewTree(entries)));
  });
});
