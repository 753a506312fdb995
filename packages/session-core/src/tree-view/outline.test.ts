import { describe, expect, it } from 'vitest';
import { computeRows } from './flatten';
import { FILTER_MODES, cycleFilter, filterTag, isFilterMode, toggleFilter } from './filter';
import { displayWidth, outlineWindow, renderFooter, renderOutline, truncateToWidth } from './outline';
import { matchesQuery, tokenizeQuery } from './search';
import { EntryBuilder, resolveLabels } from './testing';
import { toViewEntries } from './view-entry';
import { ViewTree } from './view-tree';

function rowsOf(b: EntryBuilder, leafId: string | null) {
  return computeRows(new ViewTree(toViewEntries(b.entries, resolveLabels(b.entries))), { leafId }).rows;
}

describe('renderOutline', () => {
  const b = new EntryBuilder();
  b.user('u1', null, 'Start task');
  b.assistant('a1', 'u1', 'Plan');
  b.user('u2', 'a1', 'Continue');
  b.label('l1', 'u2', 'u1', 'milestone');

  it('draws the cursor on the selected row and two spaces on the others', () => {
    expect(renderOutline(rowsOf(b, 'u2'), { selectedId: 'a1' })).toEqual([
      '  • [milestone] user: Start task',
      '› • assistant: Plan',
      '  • user: Continue',
    ]);
  });

  it('omits the cursor column when asked', () => {
    expect(renderOutline(rowsOf(b, null), { showCursor: false })).toEqual([
      '[milestone] user: Start task',
      'assistant: Plan',
      'user: Continue',
    ]);
  });

  it('cuts lines to the width with "..."', () => {
    expect(renderOutline(rowsOf(b, null), { width: 20 })).toEqual([
      '  [milestone] use...',
      '  assistant: Plan',
      '  user: Continue',
    ]);
  });

  it('prints "No entries found" for no rows', () => {
    expect(renderOutline([])).toEqual(['  No entries found']);
    expect(renderOutline([], { showCursor: false })).toEqual(['No entries found']);
  });

  it('shows a label with control characters on one line', () => {
    const c = new EntryBuilder();
    c.user('u1', null, 'x');
    c.label('l1', 'u1', 'u1', 'a\nb');
    expect(renderOutline(rowsOf(c, null), { showCursor: false })).toEqual(['[a b] user: x']);
  });
});

describe('renderFooter', () => {
  it('shows the position, the total and the filter tag', () => {
    expect(renderFooter(2, 10, 'default')).toBe('  (3/10)');
    expect(renderFooter(0, 4, 'no-tools')).toBe('  (1/4) [no-tools]');
    expect(renderFooter(0, 4, 'user-only')).toBe('  (1/4) [user]');
    expect(renderFooter(0, 4, 'all')).toBe('  (1/4) [all]');
  });

  it('shows (0/0) for an empty list', () => {
    expect(renderFooter(-1, 0, 'labeled-only')).toBe('  (0/0) [labeled]');
  });
});

describe('outlineWindow', () => {
  it('centres the selection and stays inside the list', () => {
    expect(outlineWindow(50, 100, 10)).toEqual({ start: 45, end: 55 });
    expect(outlineWindow(2, 100, 10)).toEqual({ start: 0, end: 10 });
    expect(outlineWindow(99, 100, 10)).toEqual({ start: 90, end: 100 });
    expect(outlineWindow(3, 4, 10)).toEqual({ start: 0, end: 4 });
  });
});

describe('terminal width', () => {
  it('counts CJK and emoji as two columns and combining marks as none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本')).toBe(4);
    expect(displayWidth('😀x')).toBe(3);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('❤\ufe0f')).toBe(2);
  });

  it('never splits a wide character when cutting', () => {
    expect(truncateToWidth('日本語のテキスト', 8)).toBe('日本...');
    expect(truncateToWidth('日本', 4)).toBe('日本');
    expect(truncateToWidth('abcdef', 2)).toBe('..');
    expect(truncateToWidth('abc', 0)).toBe('');
  });
});

describe('filter modes', () => {
  it('cycles default → no-tools → user-only → labeled-only → all → default, and backwards', () => {
    expect(FILTER_MODES.map((mode) => cycleFilter(mode, 1))).toEqual([
      'no-tools',
      'user-only',
      'labeled-only',
      'all',
      'default',
    ]);
    expect(FILTER_MODES.map((mode) => cycleFilter(mode, -1))).toEqual([
      'all',
      'default',
      'no-tools',
      'user-only',
      'labeled-only',
    ]);
  });

  it('toggles a mode against default', () => {
    expect(toggleFilter('default', 'user-only')).toBe('user-only');
    expect(toggleFilter('user-only', 'user-only')).toBe('default');
    expect(toggleFilter('all', 'user-only')).toBe('user-only');
  });

  it('tags each mode for the footer', () => {
    expect(FILTER_MODES.map(filterTag)).toEqual(['', ' [no-tools]', ' [user]', ' [labeled]', ' [all]']);
  });

  it('recognises the mode names', () => {
    expect(isFilterMode('labeled-only')).toBe(true);
    expect(isFilterMode('labelled-only')).toBe(false);
    expect(isFilterMode(3)).toBe(false);
  });
});

describe('query tokens', () => {
  it('lower-cases and splits on any whitespace, dropping empty tokens', () => {
    expect(tokenizeQuery('  Foo\tBAR\n baz ')).toEqual(['foo', 'bar', 'baz']);
    expect(tokenizeQuery('   ')).toEqual([]);
  });

  it('matches when every token is in the label or the searchable text', () => {
    const entry = {
      id: 'x',
      parentId: null,
      type: 'message',
      role: 'user',
      timestamp: '',
      label: 'MileStone',
      text: '',
      search: 'user fix the parser',
      flags: 0,
    };
    expect(matchesQuery(entry, tokenizeQuery('milestone PARSER'))).toBe(true);
    expect(matchesQuery(entry, tokenizeQuery('milestone lexer'))).toBe(false);
    expect(matchesQuery(entry, [])).toBe(true);
  });
});
