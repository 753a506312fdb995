// Differential tests against pi 1.6.0's tree selector (test/pi16.ts, `TreeSelectorComponent`) on
// sessions written by pi 1.6's own SessionManager with what 1.x added: context edits (their
// `[context omit|replace: <id>]` rows, hidden with the bookkeeping entries in the default and
// no-tools filters), usage entries (hidden in every filter, even as the leaf) and system messages
// (a `[system]` row the default filter shows). The same session, leaf, filter mode and search must
// give the same rendered lines and the same selected entry. As in reference.test.ts, the list is
// driven through its fields, and Canopy's always-unfolded connectors are compared as `─`.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEntry } from '../types';
import { FILTER_MODES, type FilterMode } from './filter';
import { renderFooter, renderOutline } from './outline';
import {
  createTreeSelectorState,
  selectedRow,
  treeSelectorReducer,
  type TreeSelectorState,
} from './selection';
import { toViewEntries } from './view-entry';
import { ViewTree } from './view-tree';
import { fixturesDir, PI16_WRITTEN } from '../../test/fixtures';
import { assistantMsg } from '../../test/messages';
import * as pi16 from '../../test/pi16';

interface RefTreeList {
  filterMode: FilterMode;
  searchQuery: string;
  applyFilter(): void;
  render(width: number): string[];
  getSelectedNode(): { entry: { id: string } } | undefined;
}
type RefManager = ReturnType<typeof pi16.SessionManager.inMemory>;

const WIDTH = 100_000;
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;
const home = process.env.HOME || process.env.USERPROFILE || '';
const START = Date.parse('2026-11-20T09:00:00.000Z');

beforeAll(() => {
  pi16.initTheme('dark');
  // pi stamps entries with the current time; a fixed clock keeps sibling order deterministic.
  let now = START;
  fakeNow = () => (now += 1000);
});
afterAll(() => {
  fakeNow = undefined;
});
let fakeNow: (() => number) | undefined;

function referenceLines(sm: RefManager, leafId: string | null, mode: FilterMode, query: string) {
  const size = sm.getEntries().length;
  const component = new pi16.TreeSelectorComponent(
    sm.getTree(),
    leafId,
    2 * size + 20,
    () => {},
    () => {},
    undefined,
    undefined,
    mode,
  );
  const list = component.getTreeList() as unknown as RefTreeList;
  if (query !== '') {
    list.searchQuery = query;
    list.applyFilter();
  }
  return {
    lines: list.render(WIDTH).map((line) => line.replace(ANSI, '').replace(/[⊟⊞]/g, '─')),
    selected: list.getSelectedNode()?.entry.id,
  };
}

function canopyLines(sm: RefManager, leafId: string | null, mode: FilterMode, query: string) {
  const entries = sm.getEntries() as unknown as SessionEntry[];
  const tree = new ViewTree(toViewEntries(entries, (id) => sm.getLabel(id), { home }));
  let state: TreeSelectorState = createTreeSelectorState(tree, { leafId, mode });
  if (query !== '') state = treeSelectorReducer(state, { type: 'setQuery', query });
  return {
    lines: [
      ...renderOutline(state.rows, { selectedId: selectedRow(state)?.id ?? null }),
      renderFooter(state.selectedIndex, state.rows.length, state.mode),
    ],
    selected: selectedRow(state)?.id,
  };
}

function compareView(sm: RefManager, leafId: string | null, mode: FilterMode, query: string): void {
  const context = `leaf ${leafId}, mode ${mode}, query ${JSON.stringify(query)}`;
  const theirs = referenceLines(sm, leafId, mode, query);
  const mine = canopyLines(sm, leafId, mode, query);
  expect(mine.lines, context).toEqual(theirs.lines);
  expect(mine.selected, context).toBe(theirs.selected);
}

const usage = {
  input: 10,
  output: 2,
  cacheRead: 4000,
  cacheWrite: 0,
  totalTokens: 4012,
  cost: { input: 0, output: 0, cacheRead: 0.01, cacheWrite: 0, total: 0.01 },
};

const operation = fc.oneof(
  fc.record({ op: fc.constant('user' as const), word: fc.constantFrom('alpha', 'beta', 'omit me') }),
  fc.record({ op: fc.constant('assistant' as const), tool: fc.boolean() }),
  fc.record({ op: fc.constant('system' as const), patch: fc.boolean() }),
  fc.record({ op: fc.constant('edit' as const), target: fc.nat(), omit: fc.boolean() }),
  fc.record({ op: fc.constant('usage' as const) }),
  fc.record({ op: fc.constant('label' as const), target: fc.nat() }),
  fc.record({ op: fc.constant('branch' as const), target: fc.nat() }),
  fc.record({ op: fc.constant('summary' as const), target: fc.nat() }),
);
type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

function buildSession(ops: Operation[]): RefManager {
  const realNow = Date.now;
  Date.now = fakeNow ?? realNow;
  const RealDate = Date;
  // SessionManager stamps with `new Date()`: route it through the fake clock too.
  globalThis.Date = class extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(Date.now());
      else super(...(args as [number]));
    }
  } as DateConstructor;
  try {
    const sm = pi16.SessionManager.inMemory('/tmp/project');
    sm.appendMessage({ role: 'user', content: 'start', timestamp: 1 });
    let calls = 0;
    const entries = () => sm.getEntries();
    const pick = (n: number) => entries()[n % entries().length]!.id;
    for (const op of ops) {
      switch (op.op) {
        case 'user':
          sm.appendMessage({ role: 'user', content: op.word, timestamp: 1 });
          break;
        case 'assistant':
          if (op.tool) {
            const id = `call-${++calls}`;
            sm.appendMessage(
              assistantMsg('', {
                content: [{ type: 'toolCall', id, name: 'read', arguments: { path: 'a.ts' } }],
                stopReason: 'toolUse',
              }) as never,
            );
            sm.appendMessage({
              role: 'toolResult',
              toolCallId: id,
              toolName: 'read',
              content: [{ type: 'text', text: 'file' }],
              isError: false,
              timestamp: 1,
            } as never);
          } else sm.appendMessage(assistantMsg('reply', { thinkingLevel: 'high' }) as never);
          break;
        case 'system':
          sm.appendMessage({
            role: 'system',
            content: op.patch ? '' : 'You are pi.',
            sections: op.patch ? { skills: null } : { cwd: '/tmp/project' },
            timestamp: 1,
          } as never);
          break;
        case 'edit': {
          const editable = sm
            .getBranch()
            .filter(
              (e) =>
                e.type === 'custom_message' ||
                (e.type === 'message' && ['user', 'assistant', 'toolResult'].includes(e.message.role)),
            );
          if (editable.length === 0) break;
          const target = editable[op.target % editable.length]!.id;
          sm.appendContextEdit(target, op.omit ? null : { content: 'shorter' });
          break;
        }
        case 'usage':
          sm.appendUsage('cache_warm', 'anthropic', 'claude-sonnet-4-5', usage);
          break;
        case 'label':
          sm.appendLabelChange(pick(op.target), 'mark');
          break;
        case 'branch':
          sm.branch(pick(op.target));
          break;
        case 'summary':
          sm.branchWithSummary(pick(op.target), 'what was tried');
          break;
      }
    }
    return sm;
  } finally {
    globalThis.Date = RealDate;
    Date.now = realNow;
  }
}

describe('same rows and selection as pi 1.6.0’s tree on the files it wrote', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'canopy-tree-view-pi16-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const name of PI16_WRITTEN) {
    it(`${name}: every filter mode at the file's leaf and at every entry, and searches`, async () => {
      const copy = join(dir, name);
      await writeFile(copy, readFileSync(join(fixturesDir(), name), 'utf8'));
      const sm = pi16.SessionManager.open(copy, dir);
      const leafId = sm.getLeafId();
      for (const mode of FILTER_MODES) compareView(sm, leafId, mode, '');
      for (const entry of sm.getEntries()) compareView(sm, entry.id, 'default', '');
      for (const query of ['context', 'replace', 'system', 'usage', 'branch summary'])
        compareView(sm, leafId, 'all', query);
    });
  }
});

describe('same rows and selection as pi 1.6.0’s tree on sessions it wrote', () => {
  it('renders every filter mode and search the same, at the session leaf and at any entry as leaf', () => {
    fc.assert(
      fc.property(
        fc.array(operation, { minLength: 1, maxLength: 30 }),
        fc.nat(),
        fc.constantFrom(...FILTER_MODES),
        fc.constantFrom('', 'context', 'omit', 'replace', 'system', 'usage cache', 'edit'),
        (ops, leafPick, mode, query) => {
          const sm = buildSession(ops);
          const entries = sm.getEntries();
          compareView(sm, sm.getLeafId(), mode, query);
          compareView(sm, entries[leafPick % entries.length]!.id, mode, query);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('shows the rows pi 1.6 shows for a context edit of each kind, a system message and a usage entry', () => {
    const sm = buildSession([
      { op: 'system', patch: false },
      { op: 'assistant', tool: false },
      { op: 'edit', target: 1, omit: true },
      { op: 'edit', target: 0, omit: false },
      { op: 'usage' },
    ]);
    const [start, system, reply, omit, replace, usageEntry] = sm.getEntries();
    expect((omit as { targetId?: string }).targetId).toBe(reply!.id);
    expect((replace as { targetId?: string }).targetId).toBe(start!.id);
    const all = canopyLines(sm, sm.getLeafId(), 'all', '').lines;
    expect(all).toEqual([
      '  • user: start',
      '  • [system]',
      '  • assistant: reply',
      `  • [context omit: ${reply!.id}]`,
      `› • [context replace: ${start!.id}]`,
      '  (5/5) [all]',
    ]);
    // The usage entry is the leaf and still has no row; the selection is its nearest visible ancestor.
    expect(all.join('\n')).not.toContain('[usage');
    // The default filter hides both edits like the other bookkeeping entries; the selection falls back.
    expect(canopyLines(sm, usageEntry!.id, 'default', '')).toEqual({
      lines: ['  • user: start', '  • [system]', '› • assistant: reply', '  (3/3)'],
      selected: reply!.id,
    });
    expect(canopyLines(sm, system!.id, 'default', '').selected).toBe(system!.id);
    compareView(sm, sm.getLeafId(), 'all', '');
    compareView(sm, sm.getLeafId(), 'default', '');
  });
});
