import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeRows, rowsPaths, rowsWork, type ComputeRowsOptions } from './flatten';
import { FILTER_MODES } from './filter';
import { renderOutline } from './outline';
import { EntryBuilder, projectRows as project, resolveLabels } from './testing';
import { toViewEntries } from './view-entry';
import { ViewTree } from './view-tree';

function treeOf(b: EntryBuilder): ViewTree {
  return new ViewTree(toViewEntries(b.entries, resolveLabels(b.entries)));
}

function outline(tree: ViewTree, options: ComputeRowsOptions): string[] {
  return renderOutline(computeRows(tree, options).rows);
}

function ids(tree: ViewTree, options: ComputeRowsOptions): string[] {
  return computeRows(tree, options).rows.map((r) => r.id);
}

/** u1 → a1 → {u2a → a2a, u2b → a2b}, the fork example of docs/tree-and-context.md#rows. */
function workedExample(): EntryBuilder {
  const b = new EntryBuilder();
  b.user('u1', null, 'u1');
  b.assistant('a1', 'u1', 'a1');
  b.user('u2a', 'a1', 'u2a');
  b.assistant('a2a', 'u2a', 'a2a');
  b.user('u2b', 'a1', 'u2b');
  b.assistant('a2b', 'u2b', 'a2b');
  return b;
}

describe('flattening and indentation (docs/tree-and-context.md#rows)', () => {
  it('renders the fork example of docs/tree-and-context.md#rows exactly, with ─ in place of the ⊟ fold glyph since Canopy does not fold', () => {
    expect(outline(treeOf(workedExample()), { leafId: 'a2a' })).toEqual([
      '  • user: u1',
      '  • assistant: a1',
      '  ├─ • user: u2a',
      '  │     • assistant: a2a',
      '  └─ user: u2b',
      '        assistant: a2b',
    ]);
  });

  it('lists the branch holding the leaf first at a fork even when it is the newer one', () => {
    expect(outline(treeOf(workedExample()), { leafId: 'a2b' })).toEqual([
      '  • user: u1',
      '  • assistant: a1',
      '  ├─ • user: u2b',
      '  │     • assistant: a2b',
      '  └─ user: u2a',
      '        assistant: a2a',
    ]);
  });

  it('keeps timestamp order at forks off the active path and with no leaf', () => {
    expect(ids(treeOf(workedExample()), { leafId: null })).toEqual(['u1', 'a1', 'u2a', 'a2a', 'u2b', 'a2b']);
  });

  it('draws two roots at column 0 without connectors and each child 3 spaces in', () => {
    const b = new EntryBuilder();
    b.user('r1', null, 'r1');
    b.assistant('c1', 'r1', 'c1');
    b.user('r2', null, 'r2');
    b.assistant('c2', 'r2', 'c2');
    const tree = treeOf(b);
    expect(outline(tree, { leafId: null })).toEqual([
      '  user: r1',
      '     assistant: c1',
      '  user: r2',
      '     assistant: c2',
    ]);
    const rows = computeRows(tree, { leafId: null }).rows;
    expect(rows.map((r) => [r.indent, r.displayIndent, r.isVirtualRootChild, r.showConnector])).toEqual([
      [1, 0, true, true],
      [2, 1, false, false],
      [1, 0, true, true],
      [2, 1, false, false],
    ]);
  });

  it('puts the root holding the leaf first, the other roots keeping file order', () => {
    const b = new EntryBuilder();
    b.user('r1', null);
    b.user('r2', null);
    b.user('r3', null);
    b.assistant('c3', 'r3');
    expect(ids(treeOf(b), { leafId: 'c3' })).toEqual(['r3', 'c3', 'r1', 'r2']);
  });

  it('keeps a single-child chain at one indent and continues gutters under nested forks', () => {
    // R → {A → A1 → {X → X1, Y → Y1}, B}
    const b = new EntryBuilder();
    b.user('R', null, 'R');
    b.user('A', 'R', 'A');
    b.user('A1', 'A', 'A1');
    b.user('X', 'A1', 'X');
    b.user('X1', 'X', 'X1');
    b.user('Y', 'A1', 'Y');
    b.user('Y1', 'Y', 'Y1');
    b.user('B', 'R', 'B');
    const rows = computeRows(treeOf(b), { leafId: null }).rows;
    expect(renderOutline(rows, { showCursor: false })).toEqual([
      'user: R',
      '├─ user: A',
      '│     user: A1',
      '│     ├─ user: X',
      '│     │     user: X1',
      '│     └─ user: Y',
      '│           user: Y1',
      '└─ user: B',
    ]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get('X1')!.gutters).toEqual([
      { position: 0, show: true },
      { position: 2, show: true },
    ]);
    expect(byId.get('Y1')!.gutters).toEqual([
      { position: 0, show: true },
      { position: 2, show: false },
    ]);
    expect(byId.get('B')!.gutters).toEqual([]);
  });

  it('reports the visible parent, the visible child count, the leaf and the active path of each row', () => {
    const rows = computeRows(treeOf(workedExample()), { leafId: 'a2a' }).rows;
    expect(rows.map((r) => [r.id, r.visibleParentId, r.visibleChildCount, r.onActivePath, r.isLeaf])).toEqual(
      [
        ['u1', null, 1, true, false],
        ['a1', 'u1', 2, true, false],
        ['u2a', 'a1', 1, true, false],
        ['a2a', 'u2a', 0, true, true],
        ['u2b', 'a1', 1, false, false],
        ['a2b', 'u2b', 0, false, false],
      ],
    );
  });

  it('draws no active path for an unknown leaf and selects the last row', () => {
    const result = computeRows(treeOf(workedExample()), { leafId: 'nope' });
    expect(result.rows.some((r) => r.onActivePath)).toBe(false);
    expect(result.selectedIndex).toBe(5);
  });

  it('maps each visible id to its row index', () => {
    const result = computeRows(treeOf(workedExample()), { leafId: 'a2b' });
    expect([...result.indexById]).toEqual(result.rows.map((r, i) => [r.id, i]));
  });

  it('keeps answering for the rows it was computed from after the tree grows: appended entries have no row', () => {
    const b = workedExample();
    const tree = treeOf(b);
    const result = computeRows(tree, { leafId: 'a2b', mode: 'user-only' });
    b.user('u3', 'a2b', 'u3');
    tree.append(toViewEntries(b.entries.slice(-1), resolveLabels(b.entries)));
    expect(result.indexById.get('u3')).toBeUndefined();
    expect(result.indexById.has('u3')).toBe(false);
    expect(result.indexById.get('a1')).toBeUndefined();
    expect(result.indexById.get('missing')).toBeUndefined();
    expect(result.indexById.size).toBe(3);
    expect([...result.indexById.keys()]).toEqual(['u1', 'u2b', 'u2a']);
    expect(['u1', 'u2b', 'u2a'].map((id) => result.indexById.get(id))).toEqual([0, 1, 2]);
    const forEachPairs: [string, number][] = [];
    result.indexById.forEach((row, id) => forEachPairs.push([id, row]));
    expect(forEachPairs).toEqual([...result.indexById.entries()]);
  });
});

/** A session with one entry of every kind the filters tell apart. */
function mixedSession(): EntryBuilder {
  const b = new EntryBuilder();
  b.add('model_change', 'model', null, { provider: 'anthropic', modelId: 'claude' });
  b.add('thinking_level_change', 'think', 'model', { thinkingLevel: 'high' });
  b.add('session_info', 'info', 'think', { name: 'Session' });
  b.user('u1', 'info', 'Fix the parser');
  b.toolCalls('tools', 'u1', [['c1', 'read', { path: 'parser.ts' }]]);
  b.toolResult('result', 'tools', 'c1', 'read', 'source text');
  b.assistant('a1', 'result', 'Fixed it');
  b.add('custom', 'ext', 'a1', { customType: 'todo' });
  b.add('custom_message', 'note', 'ext', { customType: 'reminder', content: 'Keep the API', display: true });
  b.add('branch_summary', 'summary', 'note', { fromId: 'note', summary: 'Tried things' });
  b.add('compaction', 'compact', 'summary', { summary: 's', firstKeptEntryId: 'u1', tokensBefore: 5000 });
  b.message('bash', 'compact', { role: 'bashExecution', command: 'ls', output: '', exitCode: 0 });
  b.add('ttsr_injection', 'ttsr', 'bash', { injectedRules: ['r'] });
  b.add('mode_change', 'mode', 'ttsr', { mode: 'plan' });
  b.add('future_kind', 'future', 'mode', {});
  b.assistant('aborted', 'future', [], { stopReason: 'aborted' });
  b.assistant('errored', 'aborted', [], { stopReason: 'error', errorMessage: 'boom' });
  b.assistant('cut', 'errored', [], { stopReason: 'length' });
  b.user('u2', 'cut', 'Label it');
  b.label('lbl', 'u2', 'u1', 'start');
  b.toolCalls('tail', 'lbl', [['c2', 'ls', {}]]);
  return b;
}

describe('filter modes (docs/tree-and-context.md#filters)', () => {
  const tree = treeOf(mixedSession());
  const leafId = 'u2';

  // What the default mode shows of mixedSession, in outline order.
  const defaultRows = [
    'u1',
    'result',
    'a1',
    'note',
    'summary',
    'compact',
    'bash',
    'future',
    'aborted',
    'errored',
    'cut',
    'u2',
  ];

  it('default hides the settings entries and tool-only assistants', () => {
    expect(ids(tree, { leafId, mode: 'default' })).toEqual(defaultRows);
  });

  it('no-tools also hides tool results', () => {
    expect(ids(tree, { leafId, mode: 'no-tools' })).toEqual(defaultRows.filter((id) => id !== 'result'));
  });

  it('user-only shows only user messages', () => {
    expect(ids(tree, { leafId, mode: 'user-only' })).toEqual(['u1', 'u2']);
  });

  it('labeled-only shows only labelled entries', () => {
    expect(ids(tree, { leafId, mode: 'labeled-only' })).toEqual(['u1']);
  });

  it('all shows everything except tool-only assistants that are not the leaf', () => {
    expect(ids(tree, { leafId, mode: 'all' })).toEqual([
      'model',
      'think',
      'info',
      'u1',
      'result',
      'a1',
      'ext',
      'note',
      'summary',
      'compact',
      'bash',
      'ttsr',
      'mode',
      'future',
      'aborted',
      'errored',
      'cut',
      'u2',
      'lbl',
    ]);
  });

  it('hides a labelled tool-only assistant even in labeled-only mode', () => {
    const b = mixedSession();
    b.label('lbl2', 'tail', 'tools', 'tool step');
    expect(ids(treeOf(b), { leafId: 'u2', mode: 'labeled-only' })).toEqual(['u1']);
  });

  it('shows a tool-only assistant that is the leaf in every mode that admits assistant messages', () => {
    expect(ids(tree, { leafId: 'tail', mode: 'default' })).toContain('tail');
    expect(ids(tree, { leafId: 'tail', mode: 'no-tools' })).toContain('tail');
    expect(ids(tree, { leafId: 'tail', mode: 'all' })).toContain('tail');
    expect(ids(tree, { leafId: 'tail', mode: 'user-only' })).not.toContain('tail');
    expect(ids(tree, { leafId: 'tail', mode: 'labeled-only' })).not.toContain('tail');
  });

  it('keeps errored, aborted and length-stopped assistants without text visible', () => {
    const rows = computeRows(tree, { leafId, mode: 'default' }).rows;
    const text = new Map(rows.map((r) => [r.id, r.entry.text]));
    expect(text.get('aborted')).toBe('assistant: (aborted)');
    expect(text.get('errored')).toBe('assistant: boom');
    expect(text.get('cut')).toBe('assistant: (no content)');
  });

  it('hangs a visible entry from its nearest visible ancestor and re-runs the indent rules on the visible forest', () => {
    // u1 → tools (tool-only) → {r1 → a1, r2 → a2}: in no-tools, a1 and a2 become a fork under u1.
    const b = new EntryBuilder();
    b.user('u1', null, 'u1');
    b.toolCalls('tools', 'u1', [
      ['c1', 'ls', {}],
      ['c2', 'ls', {}],
    ]);
    b.toolResult('r1', 'tools', 'c1', 'ls', 'x');
    b.assistant('a1', 'r1', 'a1');
    b.toolResult('r2', 'tools', 'c2', 'ls', 'y');
    b.assistant('a2', 'r2', 'a2');
    const tree2 = treeOf(b);
    const result = computeRows(tree2, { leafId: 'a2', mode: 'no-tools' });
    expect(result.rows.map((r) => [r.id, r.visibleParentId])).toEqual([
      ['u1', null],
      ['a2', 'u1'],
      ['a1', 'u1'],
    ]);
    expect(renderOutline(result.rows)).toEqual([
      '  • user: u1',
      '  ├─ • assistant: a2',
      '  └─ assistant: a1',
    ]);
    // In default mode the same entries keep their real structure.
    expect(outline(tree2, { leafId: 'a2', mode: 'default' })).toEqual([
      '  • user: u1',
      '  ├─ • [ls: .]',
      '  │     • assistant: a2',
      '  └─ [ls: .]',
      '        assistant: a1',
    ]);
  });

  it('makes a virtual root when hiding the only root leaves several visible roots', () => {
    const b = new EntryBuilder();
    b.add('model_change', 'm', null, { provider: 'p', modelId: 'x' });
    b.user('u1', 'm', 'u1');
    b.user('u2', 'm', 'u2');
    const result = computeRows(treeOf(b), { leafId: 'u1', mode: 'default' });
    expect(result.multipleRoots).toBe(true);
    expect(renderOutline(result.rows)).toEqual(['  • user: u1', '  user: u2']);
  });

  it('follows the single-child chain rule after re-parenting: one visible child does not indent', () => {
    const b = new EntryBuilder();
    b.user('u1', null, 'u1');
    b.add('custom', 'c', 'u1', { customType: 't' });
    b.assistant('a1', 'c', 'a1');
    expect(outline(treeOf(b), { leafId: 'a1' })).toEqual(['  • user: u1', '  • assistant: a1']);
  });
});

describe('search (docs/tree-and-context.md#search)', () => {
  const tree = treeOf(mixedSession());
  const leafId = 'u2';

  it('requires every token, case-insensitively', () => {
    expect(ids(tree, { leafId, mode: 'all', query: 'FIX parser' })).toEqual(['u1']);
    expect(ids(tree, { leafId, mode: 'all', query: 'fix  nothing' })).toEqual([]);
  });

  it('matches the label, the role and the type-specific text', () => {
    expect(ids(tree, { leafId, mode: 'all', query: 'start' })).toEqual(['u1', 'lbl']);
    expect(ids(tree, { leafId, mode: 'all', query: 'toolresult' })).toEqual(['result']);
    expect(ids(tree, { leafId, mode: 'all', query: 'branch summary' })).toEqual(['summary']);
    expect(ids(tree, { leafId, mode: 'all', query: 'model claude' })).toEqual(['model']);
    expect(ids(tree, { leafId, mode: 'all', query: 'reminder api' })).toEqual(['note']);
    expect(ids(tree, { leafId, mode: 'all', query: 'thinking high' })).toEqual(['think']);
  });

  it('finds a tool result by its result text, not by its row label', () => {
    expect(ids(tree, { leafId, mode: 'all', query: 'source' })).toEqual(['result']);
    expect(ids(tree, { leafId, mode: 'all', query: 'parser.ts' })).toEqual([]);
  });

  it('applies the filter mode and the search together', () => {
    expect(ids(tree, { leafId, mode: 'default', query: 'model' })).toEqual([]);
    expect(ids(tree, { leafId, mode: 'user-only', query: 'label' })).toEqual(['u2']);
  });

  it('lays out the matches as a forest of their own', () => {
    const result = computeRows(treeOf(workedExample()), { leafId: 'a2a', query: 'assistant' });
    expect(renderOutline(result.rows)).toEqual([
      '  • assistant: a1',
      '  ├─ • assistant: a2a',
      '  └─ assistant: a2b',
    ]);
  });
});

describe('re-selection', () => {
  const tree = treeOf(mixedSession());

  it('selects the requested entry when it is visible', () => {
    const result = computeRows(tree, { leafId: 'u2', selectedId: 'a1' });
    expect(result.rows[result.selectedIndex]!.id).toBe('a1');
  });

  it('selects the leaf by default', () => {
    const result = computeRows(tree, { leafId: 'u2' });
    expect(result.rows[result.selectedIndex]!.id).toBe('u2');
  });

  it('selects the nearest visible ancestor of a hidden entry', () => {
    const result = computeRows(tree, { leafId: 'u2', mode: 'user-only', selectedId: 'a1' });
    expect(result.rows[result.selectedIndex]!.id).toBe('u1');
  });

  it('selects the last row when the entry has no visible ancestor', () => {
    const result = computeRows(tree, { leafId: 'u2', mode: 'default', selectedId: 'model' });
    expect(result.selectedIndex).toBe(result.rows.length - 1);
  });

  it('selects nothing (-1) when no row is visible', () => {
    const result = computeRows(tree, { leafId: 'u2', query: 'zzz' });
    expect(result.rows).toEqual([]);
    expect(result.selectedIndex).toBe(-1);
  });
});

describe('leaf position', () => {
  function labelledLeaf(): EntryBuilder {
    const b = workedExample();
    b.label('lab', 'a2a', 'a2a', 'milestone');
    return b;
  }

  it('marks the leaf row itself when the leaf is visible', () => {
    const result = computeRows(treeOf(workedExample()), { leafId: 'a2a' });
    const marked = result.rows.filter((row) => row.isLeafPosition).map((row) => row.id);
    expect(marked).toEqual(['a2a']);
    expect(result.rows[result.leafIndex]!.id).toBe('a2a');
  });

  it('marks the nearest visible ancestor when the filter hides the leaf (a label just written)', () => {
    const result = computeRows(treeOf(labelledLeaf()), { leafId: 'lab', mode: 'default' });
    expect(result.rows.some((row) => row.isLeaf)).toBe(false);
    expect(result.rows.filter((row) => row.isLeafPosition).map((row) => row.id)).toEqual(['a2a']);
    expect(result.rows[result.leafIndex]!.id).toBe('a2a');
  });

  it('marks the label row itself in the all mode', () => {
    const result = computeRows(treeOf(labelledLeaf()), { leafId: 'lab', mode: 'all' });
    expect(result.rows.filter((row) => row.isLeafPosition).map((row) => row.id)).toEqual(['lab']);
  });

  it('has no leaf row (-1) when the leaf is null or nothing on its path is visible', () => {
    expect(computeRows(treeOf(workedExample()), { leafId: null }).leafIndex).toBe(-1);
    const hidden = computeRows(treeOf(workedExample()), { leafId: 'a2a', query: 'u2b' });
    expect(hidden.leafIndex).toBe(-1);
    expect(hidden.rows.some((row) => row.isLeafPosition)).toBe(false);
  });
});

/** The worked example with a fork under a2b: two more branches, the first answered. */
function threeBranches(): EntryBuilder {
  const b = workedExample();
  b.user('u3', 'a2b', 'third question');
  b.assistant('a3', 'u3', 'third answer');
  b.user('u4', 'a2b', 'fourth question');
  b.assistant('a4', 'u4', 'fourth answer');
  return b;
}

describe('reuse of rows between calls', () => {
  it('keeps the row objects of unchanged entries after an append and replaces the changed one', () => {
    const b = workedExample();
    const tree = treeOf(b);
    const before = computeRows(tree, { leafId: 'a2a' }).rows;
    tree.append(toViewEntries([b.user('u3', 'a2b', 'u3')], new Map()));
    const after = computeRows(tree, { leafId: 'a2a' }).rows;
    expect(after.map((r) => r.id)).toEqual(['u1', 'a1', 'u2a', 'a2a', 'u2b', 'a2b', 'u3']);
    // a2b gained a child; every other row is the same object as before.
    for (let i = 0; i < 5; i++) expect(after[i]).toBe(before[i]);
    expect(after[5]).not.toBe(before[5]);
    expect(after[5]!.visibleChildCount).toBe(1);
  });

  it('keeps the reused rows when a live session grows a few entries at a time', () => {
    // Sizing them again to the tree's exact size copied every row on the first full pass after
    // each append (a search keystroke while an agent writes).
    const b = new EntryBuilder();
    b.user('e0', null, 'question 0');
    for (let i = 1; i < 2000; i++) b.assistant(`e${i}`, `e${i - 1}`, `answer ${i}`);
    const tree = treeOf(b);
    const first = computeRows(tree, { leafId: 'e1999', query: 'answer' }).rows;
    const growths = rowsWork.reuseGrowths;
    let leaf = 'e1999';
    for (let i = 0; i < 50; i++) {
      const id = `live${i}`;
      tree.append(toViewEntries([b.user(id, leaf, `live ${i}`)], new Map()));
      leaf = id;
      const rows = computeRows(tree, { leafId: leaf, query: i % 2 === 0 ? 'answer' : 'live' }).rows;
      expect(rows.length).toBe(i % 2 === 0 ? 1999 : i + 1);
    }
    expect(rowsWork.reuseGrowths).toBe(growths);
    // The rows of unchanged entries are still the same objects.
    const again = computeRows(tree, { leafId: leaf, query: 'answer' }).rows;
    expect(again[10]).toBe(first[10]);
  });

  it('keeps its working arrays across live appends: no pass after an append sizes them again', () => {
    // Sized exactly, the first full pass after every append made seven arrays of the tree's size
    // again (~5.6 MB at 200,000 entries, memory touched for the first time).
    const b = new EntryBuilder();
    b.user('e0', null, 'question 0');
    for (let i = 1; i < 3000; i++) b.assistant(`e${i}`, i % 500 === 0 ? 'e0' : `e${i - 1}`, `answer ${i}`);
    const tree = treeOf(b);
    let leaf = 'e2999';
    computeRows(tree, { leafId: leaf });
    computeRows(tree, { leafId: leaf, query: 'answer' });
    const growths = rowsWork.scratchGrowths;
    // The fresh trees the rows are checked against size working arrays of their own.
    let freshGrowths = 0;
    for (let i = 0; i < 40; i++) {
      const id = `live${i}`;
      tree.append(toViewEntries([b.user(id, leaf, `live ${i}`)], new Map()));
      leaf = id;
      // A live append's own pass, then full passes: a search, a filter, a jump back to the root's
      // first branch, and the rows for the leaf again.
      computeRows(tree, { leafId: leaf });
      computeRows(tree, { leafId: leaf, query: i % 2 === 0 ? 'answer' : 'live' });
      computeRows(tree, { leafId: leaf, mode: 'user-only' });
      computeRows(tree, { leafId: 'e400' });
      const rows = project(tree, { leafId: leaf });
      const before = rowsWork.scratchGrowths;
      const fresh = project(new ViewTree(tree.allEntries()), { leafId: leaf });
      freshGrowths += rowsWork.scratchGrowths - before;
      expect(rows).toEqual(fresh);
    }
    // The tree's own arrays (ViewTree.work): each of the eight may grow once, never once per append.
    expect(rowsWork.scratchGrowths - growths - freshGrowths).toBeLessThanOrEqual(8);
  });

  it('keeps the default view’s rows through a search and a filter change: Esc and the way back reuse every row', () => {
    // With one cache for every view, the search's pass replaced the rows and gutter links of the
    // entries it showed, and the way back built every row again (the outline re-rendered each).
    const tree = treeOf(threeBranches());
    const plain = computeRows(tree, { leafId: 'a3' }).rows;
    expect(computeRows(tree, { leafId: 'a3', query: 'question' }).rows.length).toBeLessThan(plain.length);
    const back = computeRows(tree, { leafId: 'a3' }).rows;
    expect(back.length).toBe(plain.length);
    back.forEach((row, i) => expect(row).toBe(plain[i]));
    computeRows(tree, { leafId: 'a3', mode: 'user-only' });
    computeRows(tree, { leafId: 'a3', mode: 'user-only', query: 'third' });
    const again = computeRows(tree, { leafId: 'a3' }).rows;
    again.forEach((row, i) => expect(row).toBe(plain[i]));
    expect(project(tree, { leafId: 'a3' })).toEqual(
      project(new ViewTree(tree.allEntries()), { leafId: 'a3' }),
    );
  });

  it('answers the default view’s kept rows only while nothing they depend on changed', () => {
    const b = threeBranches();
    const tree = treeOf(b);
    const fresh = (leafId: string) => project(new ViewTree(tree.allEntries()), { leafId });
    computeRows(tree, { leafId: 'a3' });
    computeRows(tree, { leafId: 'a3', query: 'answer' });
    const kept = rowsPaths.kept;
    computeRows(tree, { leafId: 'a3' });
    expect(rowsPaths.kept).toBe(kept + 1);
    // Jumps while searching turn over gutter lines the kept rows hold: back to the same leaf, the
    // default view is computed again, and equals a fresh tree's.
    computeRows(tree, { leafId: 'a3', query: 'answer' });
    computeRows(tree, { leafId: 'a4', query: 'answer' });
    computeRows(tree, { leafId: 'a3', query: 'answer' });
    expect(project(tree, { leafId: 'a3' })).toEqual(fresh('a3'));
    // Another leaf, or entries appended while searching: never the kept rows.
    computeRows(tree, { leafId: 'a3', query: 'answer' });
    expect(project(tree, { leafId: 'a4' })).toEqual(fresh('a4'));
    computeRows(tree, { leafId: 'a3', query: 'answer' });
    tree.append(toViewEntries([b.user('u5', 'a3', 'fifth question')], new Map()));
    computeRows(tree, { leafId: 'a3', query: 'answer' });
    expect(project(tree, { leafId: 'a3' })).toEqual(fresh('a3'));
    // A label set while searching changes the tree's version: computed again.
    computeRows(tree, { leafId: 'a3', query: 'answer' });
    tree.setLabel('u3', 'turning point');
    expect(project(tree, { leafId: 'a3' })).toEqual(fresh('a3'));
  });

  it('gives a fresh tree’s rows when the default view comes back after any views and jumps between', () => {
    // Nested forks, so that jumps turn gutter lines over while another view is shown.
    const b = new EntryBuilder();
    b.user('u1', null, 'root question');
    b.assistant('a1', 'u1', 'root answer');
    for (const x of ['p', 'q', 'r']) {
      b.user(`${x}1`, 'a1', `${x} question`);
      b.assistant(`${x}1a`, `${x}1`, `${x} answer`);
      for (const y of ['s', 't']) {
        b.user(`${x}${y}`, `${x}1a`, `${x}${y} nested question`);
        b.assistant(`${x}${y}a`, `${x}${y}`, `${x}${y} nested answer`);
        b.user(`${x}${y}b`, `${x}${y}a`, `${x}${y} deeper`);
        b.user(`${x}${y}c`, `${x}${y}a`, `${x}${y} deeper two`);
      }
    }
    const views = toViewEntries(b.entries, resolveLabels(b.entries));
    const view = fc.record({
      leafId: fc.constantFrom(...views.map((v) => v.id)),
      mode: fc.constantFrom('default' as const, 'default' as const, 'no-tools' as const, 'all' as const),
      query: fc.constantFrom('', '', 'question', 'answer', 'nested', 'deeper'),
    });
    fc.assert(
      fc.property(fc.array(view, { minLength: 1, maxLength: 16 }), (steps) => {
        const reused = new ViewTree(views);
        for (const options of steps)
          expect(project(reused, options)).toEqual(project(new ViewTree(views), options));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same rows on a tree that computed other views before as on a fresh tree', () => {
    const b = mixedSession();
    b.user('u3', 'a1', 'other branch');
    b.assistant('a3', 'u3', 'reply');
    // A fork nested in a branch: its rows carry two gutters, and the outer one flips when the
    // leaf moves between branches.
    b.user('x1', 'a3', 'nested one');
    b.assistant('x1a', 'x1', 'nested reply');
    b.user('x2', 'a3', 'nested two');
    b.assistant('x2a', 'x2', 'other reply');
    b.user('u4', null, 'second root');
    const views = toViewEntries(b.entries, resolveLabels(b.entries));
    const ids = views.map((v) => v.id);
    const view = fc.record({
      leafId: fc.constantFrom(...ids, null),
      mode: fc.constantFrom(...FILTER_MODES),
      query: fc.constantFrom('', 'user', 'a', 'reply root', 'toolresult'),
      label: fc.option(
        fc.tuple(fc.constantFrom(...ids), fc.option(fc.constantFrom('x', 'y'), { nil: undefined })),
        { nil: undefined },
      ),
    });
    fc.assert(
      fc.property(fc.array(view, { minLength: 1, maxLength: 12 }), (steps) => {
        const reused = new ViewTree(views);
        const labels: [string, string | undefined][] = [];
        for (const step of steps) {
          if (step.label) {
            reused.setLabel(...step.label);
            labels.push(step.label);
          }
          const fresh = new ViewTree(views);
          for (const label of labels) fresh.setLabel(...label);
          const options = { leafId: step.leafId, mode: step.mode, query: step.query };
          expect(project(reused, options)).toEqual(project(fresh, options));
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('scale', () => {
  const SIZE = 200_000;

  function linearChain(): EntryBuilder {
    const b = new EntryBuilder();
    for (let i = 0; i < SIZE; i++) {
      const parent = i === 0 ? null : `e${i - 1}`;
      if (i % 2 === 0) b.user(`e${i}`, parent, `question ${i}`);
      else b.assistant(`e${i}`, parent, `answer ${i}`);
    }
    return b;
  }

  function fanOut(): EntryBuilder {
    const b = new EntryBuilder();
    b.user('root', null, 'root');
    for (let i = 1; i < SIZE; i++) b.assistant(`e${i}`, 'root', `reply ${i}`);
    return b;
  }

  it('flattens a 200,000-entry linear chain in every mode without overflowing the stack', () => {
    const tree = treeOf(linearChain());
    const leafId = `e${SIZE - 1}`;
    const counts = FILTER_MODES.map((mode) => computeRows(tree, { leafId, mode }).rows.length);
    expect(counts).toEqual([SIZE, SIZE, SIZE / 2, 0, SIZE]);
    const found = computeRows(tree, { leafId, query: 'question 100000' }).rows;
    expect(found.map((r) => [r.id, r.visibleParentId])).toEqual([['e100000', null]]);
    const deepest = computeRows(tree, { leafId }).rows[SIZE - 1]!;
    expect([deepest.id, deepest.indent, deepest.onActivePath, deepest.gutters.length]).toEqual([
      leafId,
      0,
      true,
      0,
    ]);
  });

  it('flattens a 200,000-entry fan-out in every mode without overflowing the stack', () => {
    const tree = treeOf(fanOut());
    const leafId = 'e1000';
    const counts = FILTER_MODES.map((mode) => computeRows(tree, { leafId, mode }).rows.length);
    expect(counts).toEqual([SIZE, SIZE, 1, 0, SIZE]);
    const rows = computeRows(tree, { leafId }).rows;
    expect(rows.slice(0, 3).map((r) => r.id)).toEqual(['root', 'e1000', 'e1']);
    expect(rows[SIZE - 1]!.isLast).toBe(true);
    expect(rows[1]!.showConnector).toBe(true);
  });

  it('flattens a 200,000-entry chain of forks (every node a branch point) without building huge gutter arrays', () => {
    const b = new EntryBuilder();
    b.user('n0', null);
    for (let i = 1; i < SIZE / 2; i++) {
      b.user(`n${i}`, `n${i - 1}`);
      b.user(`side${i}`, `n${i - 1}`);
    }
    const tree = treeOf(b);
    const rows = computeRows(tree, { leafId: `n${SIZE / 2 - 1}` }).rows;
    expect(rows.length).toBe(tree.size);
    expect(rows[2]!.id).toBe('n2');
    expect(rows[2]!.gutters).toEqual([{ position: 0, show: true }]);
    expect(rows[3]!.gutters).toEqual([
      { position: 0, show: true },
      { position: 1, show: true },
    ]);
  });
});
