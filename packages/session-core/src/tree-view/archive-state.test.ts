// The view tree's archive state (archive-state.ts, docs/archive-and-family.md#archive): derived from
// the ArchiveTarget flags alone, kept right through replaced entries, appends and adopted orphans,
// and equal to a fresh build at every step.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withArchiveTarget } from '../archive';
import { ARCHIVE_INSIDE, ARCHIVE_NONE, ARCHIVE_ROOT } from './archive-state';
import { ViewFlags } from './row-format';
import { EntryBuilder } from './testing';
import { toViewEntries, type ViewEntry } from './view-entry';
import { ViewTree } from './view-tree';

const ROOT = ARCHIVE_INSIDE | ARCHIVE_ROOT;

/** r ─ x ─ y ─ z, r ─ w, and a chain of `extra` entries under z. */
function views(extra = 0): ViewEntry[] {
  const b = new EntryBuilder();
  b.user('r', null);
  b.user('x', 'r');
  b.assistant('y', 'x', [
    { type: 'thinking', thinking: 'hm' },
    { type: 'text', text: 'y' },
  ]);
  b.user('z', 'y');
  b.user('w', 'r');
  for (let i = 0; i < extra; i++) b.user(`e${i}`, i === 0 ? 'z' : `e${i - 1}`);
  return toViewEntries(b.entries, new Map());
}

const target = (view: ViewEntry, archived = true): ViewEntry => ({
  ...view,
  flags: withArchiveTarget(view.flags, archived),
});

function countsByWalk(tree: ViewTree): { branches: number; entries: number } {
  let branches = 0;
  let entries = 0;
  for (let node = 0; node < tree.size; node++) {
    const state = tree.archiveStateAt(node);
    if (state !== ARCHIVE_NONE) entries++;
    if (state === ROOT) branches++;
  }
  return { branches, entries };
}

function states(tree: ViewTree): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of tree.allEntries()) out[entry.id] = tree.archiveStateOf(entry.id);
  return out;
}

describe('the view tree derives archive states from ArchiveTarget flags', () => {
  it('marks the whole subtree of a target, its root as the stub, and leaves the rest alone', () => {
    const tree = new ViewTree(views().map((v) => (v.id === 'x' ? target(v) : v)));
    expect(states(tree)).toEqual({ r: ARCHIVE_NONE, x: ROOT, y: ARCHIVE_INSIDE, z: ARCHIVE_INSIDE, w: 0 });
    // The flags other than ArchiveTarget are the entries' own; no bit is added to them.
    expect(tree.get('y')!.flags & ViewFlags.HasThinking).toBe(ViewFlags.HasThinking);
    expect(tree.archiveStateOf('nope')).toBe(ARCHIVE_NONE);
  });

  it('keeps a nested archive when the outer one is restored, and folds it into the outer one', () => {
    const base = views();
    const tree = new ViewTree(base.map((v) => (v.id === 'y' ? target(v) : v)));
    expect([tree.archiveStateOf('x'), tree.archiveStateOf('y'), tree.archiveStateOf('z')]).toEqual([
      ARCHIVE_NONE,
      ROOT,
      ARCHIVE_INSIDE,
    ]);
    tree.replace(target(base[1]!));
    expect([tree.archiveStateOf('x'), tree.archiveStateOf('y'), tree.archiveStateOf('z')]).toEqual([
      ROOT,
      ARCHIVE_INSIDE,
      ARCHIVE_INSIDE,
    ]);
    tree.replace(base[1]!);
    expect([tree.archiveStateOf('x'), tree.archiveStateOf('y'), tree.archiveStateOf('z')]).toEqual([
      ARCHIVE_NONE,
      ROOT,
      ARCHIVE_INSIDE,
    ]);
  });

  it('lists the nodes a record changed for the caches, or says to start over past a few', () => {
    const base = views();
    const tree = new ViewTree(base);
    const before = tree.version;
    tree.replace(target(base[1]!));
    expect([...tree.entriesChangedSince(before)!].sort()).toEqual([1, 1, 2, 3]);
    // A branch of more entries than the edits kept: caches recompute from scratch.
    const big = views(100);
    const bigTree = new ViewTree(big);
    const version = bigTree.version;
    bigTree.replace(target(big[1]!));
    expect(bigTree.entriesChangedSince(version)).toBeNull();
    expect(bigTree.archiveStateOf('e99')).toBe(ARCHIVE_INSIDE);
    // Coarser, the record is one replaced entry and one subtree, whatever the branch's size.
    expect(bigTree.changesSince(version)).toEqual({ entries: [1], subtrees: [1] });
    const labelled = bigTree.version;
    bigTree.setLabel('e5', 'here');
    expect(bigTree.changesSince(labelled)).toEqual({ entries: [bigTree.indexOf('e5')], subtrees: [] });
    // Revealing archived branches changes every entry's filter class: nothing to catch up from.
    const folded = bigTree.version;
    bigTree.setArchivedRevealed(true);
    expect(bigTree.changesSince(folded)).toBeNull();
  });

  it('keeps the archived counts as states change, without a walk', () => {
    const base = views(10);
    const tree = new ViewTree(base);
    expect(tree.archivedCounts).toEqual({ branches: 0, entries: 0 });
    tree.replace(target(base[3]!)); // z and its 10 entries
    expect(tree.archivedCounts).toEqual({ branches: 1, entries: 11 });
    tree.replace(target(base[1]!)); // x's branch takes z's in
    expect(tree.archivedCounts).toEqual({ branches: 1, entries: 13 });
    tree.replace(target(tree.get('x')!, false));
    expect(tree.archivedCounts).toEqual({ branches: 1, entries: 11 });
  });

  it('an entry appended under an archived entry is inside at once; one appended elsewhere is not', () => {
    const base = views();
    const tree = new ViewTree(base.map((v) => (v.id === 'x' ? target(v) : v)));
    const b = new EntryBuilder(Date.UTC(2026, 1, 1));
    const [under, beside] = toViewEntries([b.user('late', 'z'), b.user('other', 'w')], new Map());
    tree.append([under!, beside!]);
    expect(tree.archiveStateOf('late')).toBe(ARCHIVE_INSIDE);
    expect(tree.archiveStateOf('other')).toBe(ARCHIVE_NONE);
  });

  it('an orphan adopted by a parent inside an archived branch comes inside, and the caches hear of it', () => {
    const b = new EntryBuilder();
    const [root, orphan, child] = toViewEntries(
      [b.user('r', null), b.user('o', 'late-parent'), b.user('c', 'o')],
      new Map(),
    );
    const tree = new ViewTree([target(root!), orphan!, child!]);
    expect(tree.archiveStateOf('o')).toBe(ARCHIVE_NONE);
    const parent = toViewEntries([b.user('late-parent', 'r')], new Map())[0]!;
    const before = tree.version;
    tree.append([parent]);
    expect(states(tree)).toEqual({
      r: ROOT,
      o: ARCHIVE_INSIDE,
      c: ARCHIVE_INSIDE,
      'late-parent': ARCHIVE_INSIDE,
    });
    expect(tree.entriesChangedSince(before)).toEqual([1, 2]);
    expect(tree.changesSince(before)).toEqual({ entries: [], subtrees: [1] });
  });

  it('equals a fresh build after any sequence of records, appends and label changes', () => {
    const all = views(6);
    const ids = all.map((v) => v.id);
    const step = fc.oneof(
      fc.record({ kind: fc.constant('toggle' as const), id: fc.constantFrom(...ids) }),
      fc.record({ kind: fc.constant('label' as const), id: fc.constantFrom(...ids) }),
      fc.record({ kind: fc.constant('append' as const), parent: fc.constantFrom(...ids) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 16 }), (steps) => {
        const tree = new ViewTree(all);
        const current = new Map(all.map((v) => [v.id, v] as const));
        let appended = 0;
        for (const s of steps) {
          if (s.kind === 'toggle') {
            const view = current.get(s.id)!;
            const next = target(view, (view.flags & ViewFlags.ArchiveTarget) === 0);
            current.set(s.id, next);
            tree.replace(next);
          } else if (s.kind === 'label') {
            tree.setLabel(s.id, `label ${s.id}`);
            current.set(s.id, tree.get(s.id)!);
          } else {
            const b = new EntryBuilder(Date.UTC(2026, 2, 1) + appended * 1000);
            const view = toViewEntries([b.user(`n${appended++}`, s.parent)], new Map())[0]!;
            current.set(view.id, view);
            tree.append([view]);
          }
          const fresh = new ViewTree([...current.values()]);
          expect(states(tree)).toEqual(states(fresh));
          expect(tree.archivedCounts).toEqual(countsByWalk(fresh));
        }
      }),
      { numRuns: 200 },
    );
  });
});
