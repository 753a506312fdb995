import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FILTER_MODES, type FilterMode } from './filter';
import { tokenizeQuery } from './search';
import { ViewFlags, type ViewEntry } from './view-entry';
import { projectRows as project, readCountedChain } from './testing';
import { ViewTree } from './view-tree';
import { prepareFilterBits, visibilityWork, visibleBits } from './visibility';
import { addSearchMasks, maskWork, prepareSearchMasks, searchMaskColumns, tokenMask } from './search-masks';

const ids = Array.from({ length: 16 }, (_, i) => `e${i}`);
// Letters and digits have a bit each in the search masks; other characters share theirs, as 'é'
// and '%' do (233 and 37 are equal modulo 28: search-masks.ts).
const words = ['ab', 'ba', 'cab', 'abc', 'bb', 'ca', 'a-1', 'é2b', '%c'];

interface EntrySpec {
  parent: number;
  kind: string;
  words: string[];
  second: number;
}

const entryArb: fc.Arbitrary<EntrySpec> = fc.record({
  parent: fc.nat({ max: 40 }),
  kind: fc.constantFrom('user', 'assistant', 'assistant-tools', 'toolResult', 'label', 'model_change'),
  words: fc.array(fc.constantFrom(...words), { maxLength: 3 }),
  second: fc.integer({ min: 0, max: 5 }),
});

type Step =
  | { kind: 'type'; text: string }
  | { kind: 'backspace' }
  | { kind: 'mode'; mode: FilterMode }
  | { kind: 'leaf'; at: number }
  | { kind: 'label'; at: number; label: string | undefined }
  | { kind: 'append'; count: number }
  | { kind: 'masks' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('type' as const),
    text: fc.constantFrom('a', 'b', 'c', ' ', 'ab', '1', '-', 'é', '%', '2b'),
  }),
  fc.constant({ kind: 'backspace' as const }),
  fc.record({ kind: fc.constant('mode' as const), mode: fc.constantFrom(...FILTER_MODES) }),
  fc.record({ kind: fc.constant('leaf' as const), at: fc.nat({ max: 30 }) }),
  fc.record({
    kind: fc.constant('label' as const),
    at: fc.nat({ max: 30 }),
    label: fc.option(fc.constantFrom('cab', 'Bc', ''), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('append' as const), count: fc.integer({ min: 1, max: 4 }) }),
  fc.constant({ kind: 'masks' as const }),
);

function viewOf(spec: EntrySpec, i: number): ViewEntry {
  const message = spec.kind === 'user' || spec.kind.startsWith('assistant') || spec.kind === 'toolResult';
  return {
    id: ids[i % ids.length]! + (i >= ids.length ? `-${i}` : ''),
    // Parents may point forward (orphans adopted later) or nowhere.
    parentId:
      spec.parent === 0
        ? null
        : `${ids[spec.parent % ids.length]!}${spec.parent >= ids.length ? `-${spec.parent}` : ''}`,
    type: message ? 'message' : spec.kind,
    ...(message ? { role: spec.kind.startsWith('assistant') ? 'assistant' : spec.kind } : {}),
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, spec.second)).toISOString(),
    text: spec.words.join(' '),
    search: spec.words.join(' '),
    flags: spec.kind === 'assistant-tools' ? ViewFlags.ToolOnlyAssistant : 0,
  };
}

describe('cached visibility (visibility.ts)', () => {
  it('gives exactly the rows of a tree built from scratch, through any sequence of keystrokes, filters, jumps, labels, appends and search masks', () => {
    fc.assert(
      fc.property(
        fc.array(entryArb, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(stepArb, { maxLength: 25 }),
        (specs, initial, steps) => {
          const all = specs.map(viewOf);
          let shown = Math.min(initial, all.length);
          const labels = new Map<string, string>();
          const current = () =>
            all.slice(0, shown).map((entry) => {
              const label = labels.get(entry.id);
              return label === undefined ? entry : { ...entry, label };
            });
          const live = new ViewTree(current());
          let query = '';
          let mode: FilterMode = 'default';
          let leafId: string | null = all[shown - 1]!.id;
          const check = () => {
            const options = { leafId, mode, query };
            expect(project(live, options)).toEqual(project(new ViewTree(current()), options));
          };
          check();
          for (const step of steps) {
            if (step.kind === 'type') query += step.text;
            else if (step.kind === 'backspace') query = query.slice(0, -1);
            else if (step.kind === 'mode') mode = step.mode;
            else if (step.kind === 'leaf') leafId = all[step.at % shown]!.id;
            else if (step.kind === 'label') {
              const id = all[step.at % shown]!.id;
              if (step.label === undefined || step.label === '') labels.delete(id);
              else labels.set(id, step.label);
              live.setLabel(id, step.label);
            } else if (step.kind === 'masks') {
              prepareSearchMasks(live, () => false);
            } else {
              const next = Math.min(all.length, shown + step.count);
              live.append(all.slice(shown, next));
              shown = next;
            }
            check();
          }
        },
      ),
      { numRuns: 300, seed: 20261201 },
    );
  });

  it('narrows a refined query from the previous matches and returns to earlier queries on backspace', () => {
    const entries: ViewEntry[] = ['ab', 'ba', 'cab', 'abc', 'bb', 'ca'].map((word, i) => ({
      id: `w${i}`,
      parentId: i === 0 ? null : `w${i - 1}`,
      type: 'message',
      role: 'user',
      timestamp: '2026-01-01T00:00:00.000Z',
      text: word,
      search: word,
      flags: 0,
    }));
    const tree = new ViewTree(entries);
    const matching = (query: string) => [...visibleBits(tree, 'all', tokenizeQuery(query))];
    expect(matching('a')).toEqual([1, 1, 1, 1, 0, 1]);
    expect(matching('ab')).toEqual([1, 0, 1, 1, 0, 0]);
    expect(matching('ab c')).toEqual([0, 0, 1, 1, 0, 0]);
    expect(matching('ab')).toEqual([1, 0, 1, 1, 0, 0]);
    expect(matching('b')).toEqual([1, 1, 1, 1, 1, 0]);
  });
});

describe('cached visibility after a change to the tree', () => {
  /** User messages whose search text counts its reads: a read is one entry tested against a query. */
  const countingEntries = (count: number, from = 0) =>
    readCountedChain(
      Array.from({ length: count }, (_, i) => ((from + i) % 2 === 0 ? 'even' : 'odd')),
      'c',
      from,
    );

  it('an append tests only the appended entries against the query, and the bits equal a fresh tree', () => {
    const first = countingEntries(50);
    const tree = new ViewTree(first.entries);
    const tokens = tokenizeQuery('even');
    visibleBits(tree, 'default', tokens);
    expect(first.reads.count).toBe(50);
    const added = countingEntries(3, 50);
    tree.append(added.entries);
    first.reads.count = 0;
    const bits = [...visibleBits(tree, 'default', tokens)];
    expect(first.reads.count).toBe(0);
    expect(added.reads.count).toBe(3);
    const fresh = new ViewTree([...first.entries, ...added.entries]);
    expect(bits).toEqual([...visibleBits(fresh, 'default', tokens)]);
  });

  it('an append brings up to date only the filter in use; the other modes are made again when asked for, equal to a fresh tree', () => {
    const { entries } = countingEntries(400);
    const tree = new ViewTree(entries);
    // Every mode kept, as the page's idle preparation leaves them; the outline shows no-tools.
    for (const mode of FILTER_MODES) while (!prepareFilterBits(tree, mode, () => false));
    visibleBits(tree, 'no-tools', []);
    const catchUps = visibilityWork.filterCatchUps;
    for (let i = 0; i < 5; i++) {
      tree.append(countingEntries(1, 400 + i).entries);
      if (i === 2) tree.setLabel('c7', 'later');
      visibleBits(tree, 'no-tools', []);
    }
    expect(visibilityWork.filterCatchUps - catchUps).toBe(5);
    const fresh = new ViewTree(tree.allEntries());
    for (const mode of FILTER_MODES)
      expect([...visibleBits(tree, mode, [])]).toEqual([...visibleBits(fresh, mode, [])]);
  });

  it('a label set after the cache was filled is seen by the filter and the query', () => {
    const { entries } = countingEntries(6);
    const tree = new ViewTree(entries);
    expect([...visibleBits(tree, 'labeled-only', [])]).toEqual([0, 0, 0, 0, 0, 0]);
    expect([...visibleBits(tree, 'all', tokenizeQuery('pinned'))]).toEqual([0, 0, 0, 0, 0, 0]);
    tree.setLabel('c3', 'Pinned');
    expect([...visibleBits(tree, 'labeled-only', [])]).toEqual([0, 0, 0, 1, 0, 0]);
    expect([...visibleBits(tree, 'all', tokenizeQuery('pinned'))]).toEqual([0, 0, 0, 1, 0, 0]);
  });
  it('read in steps, the filter classes see the labels set and the entries appended between two steps', () => {
    const { entries } = countingEntries(9000);
    const tree = new ViewTree(entries);
    expect(prepareFilterBits(tree, 'labeled-only', () => true)).toBe(false);
    tree.setLabel('c100', 'early');
    tree.setLabel('c8000', 'late');
    tree.append(countingEntries(5, 9000).entries);
    tree.setLabel('c9002', 'appended');
    while (!prepareFilterBits(tree, 'labeled-only', () => true));
    const labelled = (bits: Uint8Array) => [...bits].flatMap((bit, node) => (bit === 1 ? [node] : []));
    expect(labelled(visibleBits(tree, 'labeled-only', []))).toEqual([100, 8000, 9002]);
    const fresh = new ViewTree(tree.allEntries());
    for (const mode of FILTER_MODES)
      expect([...visibleBits(tree, mode, [])]).toEqual([...visibleBits(fresh, mode, [])]);
  });
});

describe('search masks (search-masks.ts)', () => {
  const counted = (texts: readonly string[]) => readCountedChain(texts, 'm');

  it('decide a one-letter or one-digit query without reading any text, and read only the possible entries otherwise', () => {
    const { entries, reads } = counted(['even', 'odd', 'seven 7', 'dove', 'vex-3', 'none']);
    const tree = new ViewTree(entries);
    expect(prepareSearchMasks(tree, () => false)).toBe(true);
    reads.count = 0;
    expect([...visibleBits(tree, 'all', tokenizeQuery('e'))]).toEqual([1, 0, 1, 1, 1, 1]);
    expect([...visibleBits(tree, 'all', tokenizeQuery('7'))]).toEqual([0, 0, 1, 0, 0, 0]);
    expect(reads.count).toBe(0);
    // "ve" needs v and e: four entries have both and are read; "-3" shares bits, so its text is read.
    expect([...visibleBits(tree, 'all', tokenizeQuery('ve'))]).toEqual([1, 0, 1, 1, 1, 0]);
    expect(reads.count).toBe(4);
    reads.count = 0;
    expect([...visibleBits(tree, 'all', tokenizeQuery('x-3'))]).toEqual([0, 0, 0, 0, 1, 0]);
    expect(reads.count).toBe(1);
  });

  it('give a text exactly the bits of its characters, each looked up as tokenMask does', () => {
    const withSearch = (search: string, i: number): ViewEntry => ({
      id: `c${i}`,
      parentId: null,
      type: 'message',
      timestamp: '',
      text: '',
      search,
      flags: 0,
    });
    // Every ASCII character (looked up in a table) and others past it, surrogates included.
    const codes = [...Array(0x300).keys(), 0x2014, 0x4e2d, 0xd83c, 0xdf32, 0xfffd, 0xffff];
    const columns = searchMaskColumns(codes.map((code, i) => withSearch(String.fromCharCode(code), i)));
    codes.forEach((code, i) => {
      const { low, high } = tokenMask(String.fromCharCode(code));
      expect([columns.low[i], columns.high[i]]).toEqual([low, high]);
    });
    const text = 'a%Zé9~🌲 x';
    const whole = searchMaskColumns([withSearch(text, 0)]);
    let low = 0;
    let high = 0;
    for (const unit of text.split('')) {
      low |= tokenMask(unit).low;
      high |= tokenMask(unit).high;
    }
    expect([whole.low[0], whole.high[0]]).toEqual([low, high]);
  });

  it('read the text of a one-character query whose character shares its bit', () => {
    // 'é' (233) and '%' (37) are equal modulo 28: the mask cannot tell them apart.
    const { entries, reads } = counted(['100%', 'café', 'plain']);
    const tree = new ViewTree(entries);
    prepareSearchMasks(tree, () => false);
    reads.count = 0;
    expect([...visibleBits(tree, 'all', tokenizeQuery('é'))]).toEqual([0, 1, 0]);
    expect([...visibleBits(tree, 'all', tokenizeQuery('%'))]).toEqual([1, 0, 0]);
    expect(reads.count).toBe(4);
  });

  it('are kept up to date after an append and a label by masking only what changed', () => {
    const { entries } = counted(['alpha', 'beta']);
    const tree = new ViewTree(entries);
    prepareSearchMasks(tree, () => false);
    const before = maskWork.entries;
    tree.append(
      counted(['gamma', 'delta', 'omega']).entries.map((e, i) => ({ ...e, id: `n${i}`, parentId: 'm1' })),
    );
    tree.setLabel('m0', 'Zed');
    expect([...visibleBits(tree, 'all', tokenizeQuery('z'))]).toEqual([1, 0, 0, 0, 0]);
    expect([...visibleBits(tree, 'all', tokenizeQuery('g'))]).toEqual([0, 0, 1, 0, 1]);
    expect(maskWork.entries - before).toBe(3);
  });

  it('stop when told and go on where they stopped; half made, they decide the entries they cover', () => {
    const texts = Array.from({ length: 3000 }, (_, n) => (n === 2500 ? 'needle' : 'hay'));
    const { entries, reads } = counted(texts);
    const tree = new ViewTree(entries);
    expect(prepareSearchMasks(tree, () => true)).toBe(false);
    reads.count = 0;
    expect(visibleBits(tree, 'all', tokenizeQuery('n'))[2500]).toBe(1);
    // The first 1,024 entries are masked (one slice); the other 1,976 are read.
    expect(reads.count).toBe(3000 - 1024);
    const unmasked = new ViewTree(entries);
    for (const query of ['n', 'ha', 'e'])
      expect([...visibleBits(tree, 'all', tokenizeQuery(query))]).toEqual([
        ...visibleBits(unmasked, 'all', tokenizeQuery(query)),
      ]);
    while (!prepareSearchMasks(tree, () => true));
    reads.count = 0;
    expect(visibleBits(tree, 'all', tokenizeQuery('d'))[2500]).toBe(1);
    expect(reads.count).toBe(0);
  });

  it('made elsewhere from the appended entries (searchMaskColumns), are taken in order and decide alone', () => {
    const texts = Array.from({ length: 3000 }, (_, n) => (n % 7 === 0 ? 'seven' : 'other'));
    const { entries, reads } = counted(texts);
    const tree = new ViewTree();
    const before = maskWork.entries;
    for (let at = 0; at < entries.length; at += 1000) {
      const part = entries.slice(at, at + 1000);
      const columns = searchMaskColumns(part);
      tree.append(part);
      expect(addSearchMasks(tree, at, columns)).toBe(true);
    }
    // Out of order, or past the tree's end, they are refused.
    expect(addSearchMasks(tree, 3500, searchMaskColumns(entries.slice(0, 10)))).toBe(false);
    expect(addSearchMasks(tree, 2995, searchMaskColumns(entries.slice(0, 10)))).toBe(false);
    tree.setLabel('m3', 'Vivid');
    reads.count = 0;
    const bits = [...visibleBits(tree, 'all', tokenizeQuery('v'))];
    expect(reads.count).toBe(0);
    expect(maskWork.entries - before).toBe(0);
    const fresh = new ViewTree(tree.allEntries());
    expect(bits).toEqual([...visibleBits(fresh, 'all', tokenizeQuery('v'))]);
    expect(bits.filter((bit) => bit === 1)).toHaveLength(Math.ceil(3000 / 7) + 1);
  });

  it('masks made elsewhere that do not continue the masks made so far are left out', () => {
    const { entries, reads } = counted(['alpha', 'beta', 'gamma', 'delta']);
    const tree = new ViewTree(entries);
    expect(addSearchMasks(tree, 2, searchMaskColumns(entries.slice(2)))).toBe(false);
    reads.count = 0;
    expect([...visibleBits(tree, 'all', tokenizeQuery('g'))]).toEqual([0, 0, 1, 0]);
    expect(reads.count).toBe(4);
  });

  it('masks made for a part the tree took only some of (a repeated id dropped) are refused', () => {
    const { entries } = counted(['alpha', 'beta', 'gamma', 'delta']);
    const tree = new ViewTree(entries.slice(0, 2));
    expect(prepareSearchMasks(tree, () => false)).toBe(true);
    const part = [entries[2]!, entries[0]!, entries[3]!];
    const columns = searchMaskColumns(part);
    tree.append(part);
    expect(tree.size).toBe(4);
    expect(addSearchMasks(tree, 2, columns)).toBe(false);
    // Made here instead, they decide alike.
    expect([...visibleBits(tree, 'all', tokenizeQuery('d'))]).toEqual([0, 0, 0, 1]);
  });
});
