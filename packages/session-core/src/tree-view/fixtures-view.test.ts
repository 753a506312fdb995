// The tree views over the shared session fixtures, loaded through SessionManager: the view tree has
// exactly the shape of getTree() (malformed files included), and the all-entry-types fixture renders
// the rows worked out by hand from docs/tree-and-context.md#selector.

import { existsSync, readdirSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionManager } from '../session-manager';
import type { SessionTreeNode } from '../types';
import { computeRows } from './flatten';
import { FILTER_MODES } from './filter';
import { renderFooter, renderOutline } from './outline';
import { ViewFlags, toViewEntries } from './view-entry';
import { ViewTree } from './view-tree';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const fixturesPath = resolve(repoRoot, '../shared/fixtures/sessions');
const fixturesPresent = existsSync(join(fixturesPath, 'README.md'));

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'canopy-tree-view-fixtures-'));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function load(name: string): Promise<{ sm: SessionManager; tree: ViewTree }> {
  const copy = join(dir, name);
  await copyFile(join(fixturesPath, name), copy);
  const sm = SessionManager.fromJsonl(await readFile(copy));
  const tree = new ViewTree(toViewEntries(sm.getEntries(), (id) => sm.getLabel(id), { dialect: sm.dialect }));
  return { sm, tree };
}

type Shape = [string, string | undefined, Shape[]];

function shapeOfNodes(roots: SessionTreeNode[]): Shape[] {
  const result: Shape[] = [];
  const stack: { node: SessionTreeNode; into: Shape[] }[] = roots
    .map((node) => ({ node, into: result }))
    .reverse();
  while (stack.length > 0) {
    const { node, into } = stack.pop()!;
    const children: Shape[] = [];
    into.push([node.entry.id, node.label, children]);
    for (let i = node.children.length - 1; i >= 0; i--)
      stack.push({ node: node.children[i]!, into: children });
  }
  return result;
}

function shapeOfTree(tree: ViewTree): Shape[] {
  const result: Shape[] = [];
  const stack: { id: string; into: Shape[] }[] = tree
    .rootIds()
    .map((id) => ({ id, into: result }))
    .reverse();
  while (stack.length > 0) {
    const { id, into } = stack.pop()!;
    const children: Shape[] = [];
    into.push([id, tree.get(id)!.label, children]);
    const kids = tree.childrenOf(id);
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ id: kids[i]!, into: children });
  }
  return result;
}

describe.skipIf(!fixturesPresent)('tree views over the fixtures', () => {
  const names = fixturesPresent ? readdirSync(fixturesPath).filter((name) => name.endsWith('.jsonl')) : [];

  for (const name of names) {
    it(`${name}: the view tree has getTree()'s roots, children order and labels, and 'all' shows every entry but hidden tool-only assistants`, async () => {
      const { sm, tree } = await load(name);
      expect(shapeOfTree(tree)).toEqual(shapeOfNodes(sm.getTree()));
      const leafId = sm.getLeafId();
      const hiddenToolOnly = tree
        .allEntries()
        .filter((e) => (e.flags & ViewFlags.ToolOnlyAssistant) !== 0 && e.id !== leafId);
      for (const mode of FILTER_MODES) {
        const rows = computeRows(tree, { leafId, mode }).rows;
        expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
        if (mode === 'all') expect(rows.length).toBe(tree.size - hiddenToolOnly.length);
      }
    });
  }

  it('malformed.jsonl: cycle members, the orphan and the self-parent are extra roots of the outline, in file order', async () => {
    const { sm, tree } = await load('malformed.jsonl');
    const rows = computeRows(tree, { leafId: sm.getLeafId(), mode: 'all' }).rows;
    expect(rows.map((r) => [r.id, r.displayIndent, r.visibleParentId])).toEqual([
      ['m0000001', 0, null],
      ['m0000002', 1, 'm0000001'],
      ['f0000001', 1, 'm0000002'],
      ['l0000001', 1, 'f0000001'],
      ['m0000003', 0, null],
      ['m0000004', 0, null],
      ['c0000001', 0, null],
      ['c0000002', 1, 'c0000001'],
    ]);
    expect(rows.find((r) => r.id === 'f0000001')!.entry.text).toBe('[future entry kind]');
  });

  it('all-entry-types.jsonl: renders the default outline traced by hand from the selector rules (session_info hidden, as in the reference package 0.73.1)', async () => {
    const { sm, tree } = await load('all-entry-types.jsonl');
    const result = computeRows(tree, { leafId: sm.getLeafId(), mode: 'default' });
    const lines = renderOutline(result.rows, { selectedId: result.rows[result.selectedIndex]?.id });
    expect([...lines, renderFooter(result.selectedIndex, result.rows.length, 'default')]).toEqual([
      '  • user: Refactor src/parser.ts to stream lines; here is a screenshot',
      '  ├─ • [branch summary]: Explored streaming the parser; CRLF edit failed once, then a full rewrite passed.',
      "  │     • user: Let's instead keep the old parser and add a fast path.",
      '› │     • assistant: Kept the old parser; added a fast path for ASCII lines.',
      '  └─ [read: src/parser.ts]',
      "        assistant: I'll make the split tolerant of CRLF.",
      '        [edit: src/parser.ts]',
      '        [bash: npm test -- parser]',
      '        assistant: (aborted)',
      '        assistant: overloaded_error: Overloaded',
      '        [bash]: git status --short',
      '        [reminder]: Remember: keep the public API stable.',
      '        [hidden-context]: Invisible context for the model.',
      '        user: Now also handle a truncated last line.',
      '        assistant: Rewriting the parser to stream.',
      '        [write: src/parser.ts]',
      '        assistant: Done: the parser now streams and skips a truncated last line.',
      '        [compaction: 48k tokens]',
      '        [bench] user: Add a benchmark for 100 MB files.',
      '        assistant: Added bench/parse.bench.ts.',
      '  (4/20)',
    ]);
  });

  it('all-entry-types.jsonl: user-only keeps the fork of the two user branches', async () => {
    const { sm, tree } = await load('all-entry-types.jsonl');
    const result = computeRows(tree, { leafId: sm.getLeafId(), mode: 'user-only' });
    expect(renderOutline(result.rows, { showCursor: false })).toEqual([
      '• user: Refactor src/parser.ts to stream lines; here is a screenshot',
      "├─ • user: Let's instead keep the old parser and add a fast path.",
      '└─ user: Now also handle a truncated last line.',
      '      [bench] user: Add a benchmark for 100 MB files.',
    ]);
    expect(result.rows[result.selectedIndex]!.id).toBe('b603dd1c');
  });
});

if (!fixturesPresent) {
  it.skip(`fixture tests need ${fixturesPath}`, () => {});
}
