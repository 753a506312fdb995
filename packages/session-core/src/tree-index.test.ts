import { describe, expect, it } from 'vitest';
import { TreeIndex } from './tree-index';
import type { SessionEntry, SessionTreeNode } from './types';

let clock = Date.parse('2026-01-01T00:00:00.000Z');

function entry(
  id: string,
  parentId: unknown,
  timestamp?: string,
  extra: Record<string, unknown> = {},
): SessionEntry {
  clock += 1000;
  return {
    type: 'message',
    id,
    parentId,
    timestamp: timestamp ?? new Date(clock).toISOString(),
    message: { role: 'user', content: id, timestamp: clock },
    ...extra,
  } as SessionEntry;
}

function label(id: string, parentId: string | null, targetId: string, text?: string): SessionEntry {
  clock += 1000;
  const value: Record<string, unknown> = {
    type: 'label',
    id,
    parentId,
    timestamp: new Date(clock).toISOString(),
    targetId,
  };
  if (text !== undefined) value.label = text;
  return value as SessionEntry;
}

function build(...entries: SessionEntry[]): TreeIndex {
  const index = new TreeIndex();
  entries.forEach((value, position) => index.add(value, position + 2));
  return index;
}

/** The tree as nested [id, children] pairs, for exact comparison. */
type Shape = [string, Shape[]];
function shape(nodes: readonly SessionTreeNode[]): Shape[] {
  // Breadth-first and iterative, like the code under test.
  const out: Shape[] = [];
  const pending: { node: SessionTreeNode; into: Shape[] }[] = nodes.map((node) => ({ node, into: out }));
  for (let cursor = 0; cursor < pending.length; cursor++) {
    const { node, into } = pending[cursor] as { node: SessionTreeNode; into: Shape[] };
    const children: Shape[] = [];
    into.push([node.entry.id, children]);
    for (const child of node.children) pending.push({ node: child, into: children });
  }
  return out;
}

function countNodes(roots: readonly SessionTreeNode[]): { count: number; ids: Set<string>; depth: number } {
  const ids = new Set<string>();
  let count = 0;
  let depth = 0;
  const stack: [SessionTreeNode, number][] = roots.map((root) => [root, 1]);
  while (stack.length > 0) {
    const [node, level] = stack.pop() as [SessionTreeNode, number];
    count++;
    ids.add(node.entry.id);
    depth = Math.max(depth, level);
    for (const child of node.children) stack.push([child, level + 1]);
  }
  return { count, ids, depth };
}

describe('TreeIndex.getTree', () => {
  it('returns no roots for an empty index', () => {
    expect(new TreeIndex().getTree()).toEqual([]);
  });

  it('makes null-parent, self-parent, missing-parent and parentless entries roots, in file order', () => {
    const index = build(
      entry('a', null),
      entry('b', 'a'),
      entry('self', 'self'),
      entry('orphan', 'gone'),
      entry('noParent', undefined),
      entry('numeric', 42),
      entry('second', null),
    );
    expect(index.getTree().map((node) => node.entry.id)).toEqual([
      'a',
      'self',
      'orphan',
      'noParent',
      'numeric',
      'second',
    ]);
  });

  it('sorts children by timestamp even when they were appended out of order', () => {
    const index = build(
      entry('root', null, '2026-01-01T00:00:00.000Z'),
      entry('late', 'root', '2026-01-01T00:00:09.000Z'),
      entry('early', 'root', '2026-01-01T00:00:01.000Z'),
      entry('middle', 'root', '2026-01-01T00:00:05.000Z'),
    );
    expect(shape(index.getTree())).toEqual([
      [
        'root',
        [
          ['early', []],
          ['middle', []],
          ['late', []],
        ],
      ],
    ]);
  });

  it('keeps file order for equal timestamps and puts unparsable timestamps last, in file order', () => {
    const same = '2026-01-01T00:00:03.000Z';
    const index = build(
      entry('root', null, '2026-01-01T00:00:00.000Z'),
      entry('bad1', 'root', 'not a date'),
      entry('same1', 'root', same),
      entry('bad2', 'root', undefined, { timestamp: 17 }),
      entry('same2', 'root', same),
      entry('first', 'root', '2026-01-01T00:00:01.000Z'),
    );
    expect(index.getTree()[0]?.children.map((node) => node.entry.id)).toEqual([
      'first',
      'same1',
      'same2',
      'bad1',
      'bad2',
    ]);
  });

  it('returns fresh node objects on every call that reference the original entries', () => {
    const root = entry('root', null);
    const index = build(root, entry('child', 'root'));
    const first = index.getTree();
    const second = index.getTree();
    expect(first[0]).not.toBe(second[0]);
    expect(first[0]?.children).not.toBe(second[0]?.children);
    expect(first[0]?.entry).toBe(root);
  });

  it('shows a two-entry parent cycle with its earliest member as a root and the other under it', () => {
    const index = build(entry('start', null), entry('c1', 'c2'), entry('c2', 'c1'));
    expect(shape(index.getTree())).toEqual([
      ['start', []],
      ['c1', [['c2', []]]],
    ]);
  });

  it('breaks a longer cycle at its earliest member even when the walk enters it elsewhere', () => {
    // Parent links y → z → x → y; y is the earliest line.
    const index = build(entry('tail', 'z'), entry('y', 'z'), entry('x', 'y'), entry('z', 'x'));
    expect(shape(index.getTree())).toEqual([['y', [['x', [['z', [['tail', []]]]]]]]]);
    expect(index.getIssues().map((issue) => `${issue.line}:${issue.kind}`)).toEqual([
      '3:parent-cycle',
      '4:parent-cycle',
      '5:parent-cycle',
    ]);
    expect(index.getIssues()[0]?.message).toBe(
      'line 3: entry "y" is in a parent cycle (y → z → x → y); "y", the earliest, is shown as a root',
    );
  });

  it('attaches labels and the time they were set to the nodes they resolve on', () => {
    const index = build(entry('a', null), entry('b', 'a'), label('l1', 'b', 'a', 'start'));
    const [root] = index.getTree();
    expect(root?.label).toBe('start');
    expect(root?.labelTimestamp).toBe(index.get('l1')?.timestamp);
    expect(root?.children[0]?.label).toBeUndefined();
    expect(root?.children[0] && 'label' in root.children[0]).toBe(false);
  });

  it('places every entry exactly once, whatever the damage', () => {
    const index = build(
      entry('a', null),
      entry('b', 'a'),
      entry('self', 'self'),
      entry('c1', 'c2'),
      entry('c2', 'c1'),
      entry('hang', 'c2'),
      entry('o', 'missing'),
      entry('d', 'o'),
    );
    const { count, ids } = countNodes(index.getTree());
    expect(count).toBe(8);
    expect(ids.size).toBe(8);
  });
});

describe('TreeIndex.add', () => {
  it('keeps the first entry with an id and reports a later one as duplicate-id with both lines', () => {
    const first = entry('a', null);
    const index = new TreeIndex();
    expect(index.add(first, 2)).toBeUndefined();
    const issue = index.add(entry('a', null), 7);
    expect(issue).toEqual({
      line: 7,
      kind: 'duplicate-id',
      message: 'line 7: duplicate id "a" (first used on line 2); this later entry is skipped',
    });
    expect(index.get('a')).toBe(first);
    expect(index.size).toBe(1);
    expect(index.getIssues()).toEqual([issue]);
  });

  it('stops reporting an orphan once its parent arrives', () => {
    const index = build(entry('child', 'parent'));
    expect(index.getIssues().map((issue) => issue.kind)).toEqual(['orphan']);
    index.add(entry('parent', null), 9);
    expect(index.getIssues()).toEqual([]);
    expect(shape(index.getTree())).toEqual([['parent', [['child', []]]]]);
  });

  it('notices a cycle closed by an entry that arrives after its child', () => {
    const index = build(entry('a', 'b'));
    expect(index.getTree().map((node) => node.entry.id)).toEqual(['a']);
    index.add(entry('b', 'a'), 3);
    expect(shape(index.getTree())).toEqual([['a', [['b', []]]]]);
    expect(index.structuralIssuesOf(['b']).map((issue) => `${issue.line}:${issue.kind}`)).toEqual([
      '3:parent-cycle',
    ]);
  });

  it('keeps its issues as a fresh index would find them, asked after every entry, whatever the damage', () => {
    // A small seeded generator: parents that exist, arrive later (orphans that resolve, cycles that
    // close), are the entry itself, are missing or are not strings, and duplicate ids.
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 20; round++) {
      const index = new TreeIndex();
      const added: [SessionEntry, number][] = [];
      for (let i = 0; i < 60; i++) {
        const pick = next(10);
        const parentId =
          pick < 4 && i > 0
            ? `e${next(i)}`
            : pick < 6
              ? `e${i + 1 + next(5)}`
              : pick === 6
                ? `e${i}`
                : pick === 7
                  ? null
                  : pick === 8
                    ? 42
                    : undefined;
        const value = entry(next(12) === 0 && i > 0 ? `e${next(i)}` : `e${i}`, parentId);
        index.add(value, i + 2);
        added.push([value, i + 2]);
        const fresh = new TreeIndex();
        for (const [earlier, line] of added) fresh.add(earlier, line);
        expect(index.getIssues()).toEqual(fresh.getIssues());
        expect(index.issueCount).toBe(fresh.getIssues().length);
      }
    }
  });

  it('finds the issues after one more entry without reading the earlier entries again', () => {
    // What a live tail costs: at 500,000 entries a scan of every entry per append was 100 ms.
    let reads = 0;
    const counted = (id: string, parentId: string | null) => {
      const value = entry(id, parentId);
      return Object.defineProperty(value, 'parentId', {
        get: () => {
          reads++;
          return parentId;
        },
      });
    };
    const index = new TreeIndex();
    index.add(counted('gone-child', 'gone'), 2);
    for (let i = 0; i < 1000; i++) index.add(counted(`e${i}`, i === 0 ? null : `e${i - 1}`), i + 3);
    expect(index.issueCount).toBe(1);
    reads = 0;
    index.add(counted('orphan', 'nowhere'), 1003);
    expect(index.issueCount).toBe(2);
    expect(index.getIssues().map((issue) => issue.kind)).toEqual(['orphan', 'orphan']);
    expect(reads).toBeLessThan(5);
    // The parent an earlier entry awaits arrives: a full recount, then current again.
    index.add(counted('gone', null), 1004);
    expect(index.getIssues().map((issue) => issue.line)).toEqual([1003]);
  });

  it('describes self-parents and orphans with their line', () => {
    const index = build(entry('s', 's'), entry('o', 'gone'), entry('n', undefined));
    expect(index.getIssues().map((issue) => issue.message)).toEqual([
      'line 2: entry "s" is its own parent; it is shown as a root',
      'line 3: the parent "gone" of entry "o" is not in the file; it is shown as a root',
      'line 4: entry "n" has no parentId; it is shown as a root',
    ]);
  });
});

describe('TreeIndex labels', () => {
  it('resolves the last label entry in file order across all branches', () => {
    const index = build(
      entry('a', null),
      entry('b1', 'a'),
      label('l1', 'b1', 'a', 'first'),
      entry('b2', 'a'),
      label('l2', 'b2', 'a', 'second'),
    );
    expect(index.getLabel('a')).toBe('second');
  });

  it('clears a label with an empty or missing label value', () => {
    const index = build(entry('a', null), label('l1', 'a', 'a', 'x'), label('l2', 'l1', 'a', ''));
    expect(index.getLabel('a')).toBeUndefined();
    index.add(label('l3', 'l2', 'a', 'again'), 10);
    expect(index.getLabel('a')).toBe('again');
    index.add(label('l4', 'l3', 'a'), 11);
    expect(index.getLabel('a')).toBeUndefined();
  });

  it('keeps a label target in its first place when relabelled, and moves it to the end after a clear', () => {
    const index = build(
      entry('a', null),
      entry('b', 'a'),
      label('l1', 'b', 'a', 'A'),
      label('l2', 'l1', 'b', 'B'),
      label('l3', 'l2', 'a', 'A2'),
    );
    expect([...index.labels]).toEqual([
      ['a', 'A2'],
      ['b', 'B'],
    ]);
    index.add(label('l4', 'l3', 'a', ''), 20);
    index.add(label('l5', 'l4', 'a', 'A3'), 21);
    expect([...index.labels.keys()]).toEqual(['b', 'a']);
  });
});

describe('TreeIndex.getChildren and getBranch', () => {
  it('lists children in insertion order, not time order, and roots for null', () => {
    const index = build(
      entry('root', null, '2026-01-01T00:00:00.000Z'),
      entry('late', 'root', '2026-01-01T00:00:09.000Z'),
      entry('early', 'root', '2026-01-01T00:00:01.000Z'),
      entry('root2', null),
    );
    expect(index.getChildren('root').map((value) => value.id)).toEqual(['late', 'early']);
    expect(index.getChildren(null).map((value) => value.id)).toEqual(['root', 'root2']);
    expect(index.getChildren('nothing')).toEqual([]);
    index.add(entry('newest', 'root'), 9);
    expect(index.getChildren('root').map((value) => value.id)).toEqual(['late', 'early', 'newest']);
  });

  it('answers the same children when its index was prepared a part at a time, entries added meanwhile', () => {
    const entries = [
      entry('root', null),
      entry('a', 'root'),
      entry('b', 'root'),
      entry('c', 'a'),
      entry('orphan', 'missing'),
      entry('self', 'self'),
      entry('root2', null),
      entry('d', 'b'),
    ];
    const whole = build(...entries);
    const ids = (index: TreeIndex, parentId: string | null) => index.getChildren(parentId).map((e) => e.id);
    const parents = [null, 'root', 'a', 'b', 'missing', 'self', 'nothing'];
    for (const step of [1, 2, 3, 100]) {
      const prepared = build(...entries.slice(0, 5));
      const done: boolean[] = [];
      done.push(prepared.prepareChildren(step));
      // Entries added while the index is half made are taken when the build reaches them.
      for (const later of entries.slice(5)) prepared.add(later, 0);
      while (!done.at(-1)) done.push(prepared.prepareChildren(step));
      expect(done.filter((value) => value)).toEqual([true]);
      for (const parentId of parents) expect(ids(prepared, parentId)).toEqual(ids(whole, parentId));
      // Once made it is kept up to date.
      prepared.add(entry('e', 'root'), 0);
      expect(ids(prepared, 'root')).toEqual(['a', 'b', 'e']);
    }
    // A query before the build is done finishes it.
    const half = build(...entries);
    expect(half.prepareChildren(3)).toBe(false);
    expect(ids(half, 'root')).toEqual(['a', 'b']);
    expect(half.prepareChildren(1)).toBe(true);
  });

  it('returns the path root first, and nothing for an unknown or null start', () => {
    const index = build(entry('a', null), entry('b', 'a'), entry('c', 'b'), entry('x', 'a'));
    expect(index.getBranch('c').map((value) => value.id)).toEqual(['a', 'b', 'c']);
    expect(index.getBranch('x').map((value) => value.id)).toEqual(['a', 'x']);
    expect(index.getBranch('nope')).toEqual([]);
    expect(index.getBranch(null)).toEqual([]);
  });

  it('ends a path at a self-parent, an orphan, or the root of a cycle', () => {
    const index = build(
      entry('s', 's'),
      entry('t', 's'),
      entry('o', 'gone'),
      entry('c1', 'c2'),
      entry('c2', 'c1'),
    );
    expect(index.getBranch('t').map((value) => value.id)).toEqual(['s', 't']);
    expect(index.getBranch('o').map((value) => value.id)).toEqual(['o']);
    expect(index.getBranch('c2').map((value) => value.id)).toEqual(['c1', 'c2']);
    expect(index.getBranch('c1').map((value) => value.id)).toEqual(['c1']);
  });
});

describe('TreeIndex at 200,000 entries', () => {
  const size = 200_000;

  it('builds a linear chain, its tree and its branch without recursion', () => {
    const index = new TreeIndex();
    for (let i = 0; i < size; i++) index.add(entry(`e${i}`, i === 0 ? null : `e${i - 1}`), i + 2);
    const roots = index.getTree();
    expect(roots).toHaveLength(1);
    const { count, depth } = countNodes(roots);
    expect(count).toBe(size);
    expect(depth).toBe(size);
    const path = index.getBranch(`e${size - 1}`);
    expect(path).toHaveLength(size);
    expect(path[0]?.id).toBe('e0');
  });

  it('builds a fan-out under one root with children in time order', () => {
    const index = new TreeIndex();
    index.add(entry('root', null, '2026-01-01T00:00:00.000Z'), 2);
    const base = Date.parse('2026-01-02T00:00:00.000Z');
    // Appended in reverse time order, so the sort has the whole group to reorder.
    for (let i = 0; i < size; i++) {
      index.add(entry(`c${i}`, 'root', new Date(base + (size - i) * 1000).toISOString()), i + 3);
    }
    const [root] = index.getTree();
    expect(root?.children).toHaveLength(size);
    expect(root?.children[0]?.entry.id).toBe(`c${size - 1}`);
    expect(root?.children[size - 1]?.entry.id).toBe('c0');
    expect(index.getBranch('c5').map((value) => value.id)).toEqual(['root', 'c5']);
  });

  it('survives one parent cycle through every entry', () => {
    const index = new TreeIndex();
    for (let i = 0; i < size; i++) index.add(entry(`e${i}`, `e${(i + 1) % size}`), i + 2);
    const roots = index.getTree();
    expect(roots.map((node) => node.entry.id)).toEqual(['e0']);
    expect(countNodes(roots).count).toBe(size);
    expect(index.getBranch('e0').map((value) => value.id)).toEqual(['e0']);
    expect(index.getBranch('e1')).toHaveLength(size);
    expect(index.getIssues()).toHaveLength(size);
  });
});
