import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withArchiveTarget } from '../archive';
import type { SessionEntry } from '../types';
import { archivedCounts, archivedMatchCount, subtreeSize } from './archived';
import { FILTER_MODES, type FilterMode } from './filter';
import { computeRows } from './flatten';
import { EntryBuilder, projectRows } from './testing';
import { tidySuggestions } from './tidy';
import { toViewEntries, type ViewEntry } from './view-entry';
import { ViewTree } from './view-tree';

/**
 * u1 ─ a1 ─┬─ u2 ─ a2 ─ u2b        (archived at u2)
 *          ├─ u3 ─ a3               (the leaf)
 *          └─ u4                    (unanswered, not archived)
 */
function session(): { entries: SessionEntry[]; leaf: string } {
  const b = new EntryBuilder();
  b.user('u1', null, 'hello');
  b.assistant('a1', 'u1', 'hi');
  b.user('u2', 'a1', 'try the needle');
  b.assistant('a2', 'u2', 'a needle answer');
  b.user('u2b', 'a2', 'more needle');
  b.user('u3', 'a1', 'try that');
  b.assistant('a3', 'u3', 'that');
  b.user('u4', 'a1', 'never answered');
  return { entries: b.entries, leaf: 'a3' };
}

/** View entries with the ArchiveTarget flag on `archived`, as the tree model sets it from records. */
function viewOf(entries: readonly SessionEntry[], archived: readonly string[]): ViewEntry[] {
  return toViewEntries(entries, new Map()).map((view) =>
    archived.includes(view.id) ? { ...view, flags: withArchiveTarget(view.flags, true) } : view,
  );
}

describe('archived branches in the rows', () => {
  it('fold to their root (the stub) in every mode, and show again when revealed', () => {
    const { entries, leaf } = session();
    const tree = new ViewTree(viewOf(entries, ['u2']));
    const ids = (mode: FilterMode) => computeRows(tree, { leafId: leaf, mode }).rows.map((r) => r.id);
    expect(ids('default')).toEqual(['u1', 'a1', 'u3', 'a3', 'u2', 'u4']);
    // The stub stands for its branch even where its own type would be hidden.
    expect(ids('user-only')).toEqual(['u1', 'u3', 'u2', 'u4']);
    expect(ids('labeled-only')).toEqual(['u2']);
    tree.setArchivedRevealed(true);
    expect(ids('default')).toEqual(['u1', 'a1', 'u3', 'a3', 'u2', 'a2', 'u2b', 'u4']);
    expect(ids('labeled-only')).toEqual([]);
    tree.setArchivedRevealed(false);
    expect(ids('default')).toEqual(['u1', 'a1', 'u3', 'a3', 'u2', 'u4']);
  });

  it('search finds only what is shown, and counts the matches inside archived branches', () => {
    const { entries, leaf } = session();
    const tree = new ViewTree(viewOf(entries, ['u2']));
    expect(computeRows(tree, { leafId: leaf, query: 'needle' }).rows.map((r) => r.id)).toEqual(['u2']);
    expect(archivedMatchCount(tree, 'needle')).toBe(3);
    expect(archivedMatchCount(tree, '')).toBe(0);
    tree.setArchivedRevealed(true);
    expect(computeRows(tree, { leafId: leaf, query: 'needle' }).rows.map((r) => r.id)).toEqual([
      'u2',
      'a2',
      'u2b',
    ]);
  });

  it('say how big each folded branch is, and what the view hides', () => {
    const { entries } = session();
    const tree = new ViewTree(viewOf(entries, ['u2', 'u4']));
    expect(subtreeSize(tree, 'u2')).toBe(3);
    expect(subtreeSize(tree, 'nope')).toBe(0);
    expect(archivedCounts(tree)).toEqual({ branches: 2, entries: 4 });
  });

  it('a leaf another program moved into an archived branch keeps its row', () => {
    const { entries } = session();
    const tree = new ViewTree(viewOf(entries, ['u2']));
    const rows = computeRows(tree, { leafId: 'a2' }).rows;
    expect(rows.map((r) => r.id)).toEqual(['u1', 'a1', 'u2', 'a2', 'u3', 'a3', 'u4']);
    expect(rows.find((r) => r.id === 'a2')?.isLeaf).toBe(true);
  });

  it('every cache answers as a fresh tree after reveals, archives, jumps, filters and searches', () => {
    const { entries } = session();
    const all = entries.map((e) => e.id);
    const step = fc.oneof(
      fc.record({ kind: fc.constant('reveal' as const), on: fc.boolean() }),
      fc.record({ kind: fc.constant('archive' as const), targets: fc.subarray(['u2', 'a2', 'u4', 'u3']) }),
      fc.record({ kind: fc.constant('leaf' as const), id: fc.constantFrom(...all) }),
      fc.record({ kind: fc.constant('mode' as const), mode: fc.constantFrom(...FILTER_MODES) }),
      fc.record({ kind: fc.constant('query' as const), query: fc.constantFrom('', 'needle', 'try', 'a') }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
        let targets: string[] = [];
        const tree = new ViewTree(viewOf(entries, targets));
        let options = { leafId: 'a3' as string | null, mode: 'default' as FilterMode, query: '' };
        for (const s of steps) {
          if (s.kind === 'reveal') tree.setArchivedRevealed(s.on);
          else if (s.kind === 'archive') {
            // Only the entries whose own record changed, as the tree model sends them.
            const changed = new Set(
              [...targets, ...s.targets].filter((id) => !targets.includes(id) || !s.targets.includes(id)),
            );
            targets = s.targets;
            for (const view of viewOf(entries, targets)) if (changed.has(view.id)) tree.replace(view);
          } else if (s.kind === 'leaf') options = { ...options, leafId: s.id };
          else if (s.kind === 'mode') options = { ...options, mode: s.mode };
          else options = { ...options, query: s.query };
          const fresh = new ViewTree(viewOf(entries, targets));
          fresh.setArchivedRevealed(tree.archivedRevealed);
          expect(projectRows(tree, options)).toEqual(projectRows(fresh, options));
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('tidy suggestions', () => {
  it('offers branches off the active path with no answered reply, never the path', () => {
    const { entries, leaf } = session();
    const nodes = toViewEntries(entries, new Map());
    expect(tidySuggestions(nodes, leaf)).toEqual([{ targetId: 'u4', reason: 'unanswered', entries: 1 }]);
    // From u4's point of view, u3's branch is answered and u2's too: nothing else to offer.
    expect(tidySuggestions(nodes, 'u4')).toEqual([]);
  });

  it('counts an error or an abort as unanswered, and skips archived branches', () => {
    const b = new EntryBuilder();
    b.user('u1', null);
    b.assistant('a1', 'u1');
    b.user('u2', 'a1');
    b.assistant('e2', 'u2', 'partial', { stopReason: 'error' });
    b.user('u3', 'a1');
    b.assistant('x3', 'u3', 'partial', { stopReason: 'aborted' });
    b.user('u5', 'a1');
    b.assistant('a5', 'u5');
    const nodes = toViewEntries(b.entries, new Map());
    expect(tidySuggestions(nodes, 'a5').map((s) => s.targetId)).toEqual(['u2', 'u3']);
    const archived = viewOf(b.entries, ['u2']);
    expect(tidySuggestions(archived, 'a5').map((s) => s.targetId)).toEqual(['u3']);
  });

  it('offers the branch a branch summary left, with the summary', () => {
    const b = new EntryBuilder();
    b.user('u1', null);
    b.assistant('a1', 'u1');
    b.user('u2', 'a1');
    b.assistant('a2', 'u2', 'answered');
    b.user('u2c', 'a2');
    b.add('branch_summary', 's1', 'a1', { fromId: 'u2c', summary: 'tried u2' });
    b.user('u3', 's1');
    b.assistant('a3', 'u3');
    const nodes = toViewEntries(b.entries, new Map());
    expect(tidySuggestions(nodes, 'a3', [{ summaryId: 's1', leftLeafId: 'u2c' }])).toEqual([
      { targetId: 'u2', reason: 'summarized', entries: 3, summaryId: 's1' },
    ]);
    expect(tidySuggestions(nodes, 'a3')).toEqual([]);
  });
});
