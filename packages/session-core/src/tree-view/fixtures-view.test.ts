// The tree views over the session fixtures, loaded through SessionManager: the view tree has
// exactly the shape of getTree() (malformed files included), and the all-entry-types fixture renders
// the rows worked out by hand from what the generator wrote.

import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionManager } from '../session-manager';
import type { SessionTreeNode } from '../types';
import { computeRows } from './flatten';
import { FILTER_MODES } from './filter';
import { renderFooter, renderOutline } from './outline';
import { ViewFlags, toViewEntries } from './view-entry';
import { ViewTree } from './view-tree';
import { ALL_ENTRY_TYPES_TEXTS as T, fixtureIds, fixtureNames, fixturesDir } from '../../test/fixtures';

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'canopy-tree-view-fixtures-'));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function load(name: string): Promise<{ sm: SessionManager; tree: ViewTree }> {
  const copy = join(dir, name);
  await copyFile(join(fixturesDir(), name), copy);
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

describe('tree views over the fixtures', () => {
  for (const name of fixtureNames()) {
    it(`${name}: the view tree has getTree()'s roots, children order and labels, and 'all' shows every entry but hidden tool-only assistants and usage entries`, async () => {
      const { sm, tree } = await load(name);
      expect(shapeOfTree(tree)).toEqual(shapeOfNodes(sm.getTree()));
      const leafId = sm.getLeafId();
      const hiddenToolOnly = tree
        .allEntries()
        .filter(
          (e) => ((e.flags & ViewFlags.ToolOnlyAssistant) !== 0 && e.id !== leafId) || e.type === 'usage',
        );
      for (const mode of FILTER_MODES) {
        const rows = computeRows(tree, { leafId, mode }).rows;
        expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
        if (mode === 'all') expect(rows.length).toBe(tree.size - hiddenToolOnly.length);
      }
    });
  }

  it('malformed.jsonl: cycle members, the orphan and the self-parent are extra roots of the outline, in file order', async () => {
    const { sm, tree } = await load('malformed.jsonl');
    const id = fixtureIds('malformed.jsonl');
    const rows = computeRows(tree, { leafId: sm.getLeafId(), mode: 'all' }).rows;
    expect(rows.map((r) => [r.id, r.displayIndent, r.visibleParentId])).toEqual([
      [id.hello, 0, null],
      [id.hi, 1, id.hello],
      [id.second, 1, id.hi],
      [id.unknown, 1, id.second],
      [id.label, 1, id.unknown],
      [id.orphan, 0, null],
      [id.selfParent, 0, null],
      [id.cycleOne, 0, null],
      [id.cycleTwo, 1, id.cycleOne],
    ]);
    expect(rows.find((r) => r.id === id.unknown)!.entry.text).toBe('[future entry kind]');
  });

  it('all-entry-types.jsonl: renders the default outline traced by hand from the entries the generator wrote (session_info hidden, as in the reference package 0.73.1)', async () => {
    const { sm, tree } = await load('all-entry-types.jsonl');
    const result = computeRows(tree, { leafId: sm.getLeafId(), mode: 'default' });
    const lines = renderOutline(result.rows, { selectedId: result.rows[result.selectedIndex]?.id });
    expect([...lines, renderFooter(result.selectedIndex, result.rows.length, 'default')]).toEqual([
      `  • user: ${T.firstUser}`,
      `  ├─ • [branch summary]: ${T.branchSummary}`,
      `  │     • user: ${T.branchUser}`,
      `› │     • assistant: ${T.branchAnswer}`,
      '  └─ [read: src/log-reader.ts]',
      '        assistant: First the split gets CRLF-tolerant.',
      '        [edit: src/log-reader.ts]',
      '        [bash: npm test -- log-reader]',
      '        assistant: (aborted)',
      '        assistant: overloaded_error: the service is overloaded',
      '        [bash]: git diff --stat',
      '        [reminder]: Remember: the public API of readLog stays as it is.',
      '        [hidden-context]: Context the model sees and the user does not.',
      `        user: ${T.secondUser}`,
      '        assistant: Rewriting the reader to stream.',
      '        [write: src/log-reader.ts]',
      '        assistant: Done: the reader streams and skips a cut-off last line.',
      '        [compaction: 51k tokens]',
      `        [bench] user: ${T.thirdUser}`,
      '        assistant: Added bench/log-reader.bench.ts.',
      '  (4/20)',
    ]);
  });

  it('all-entry-types.jsonl: user-only keeps the fork of the two user branches', async () => {
    const { sm, tree } = await load('all-entry-types.jsonl');
    const result = computeRows(tree, { leafId: sm.getLeafId(), mode: 'user-only' });
    expect(renderOutline(result.rows, { showCursor: false })).toEqual([
      `• user: ${T.firstUser}`,
      `├─ • user: ${T.branchUser}`,
      `└─ user: ${T.secondUser}`,
      `      [bench] user: ${T.thirdUser}`,
    ]);
    expect(result.rows[result.selectedIndex]!.id).toBe(fixtureIds('all-entry-types.jsonl').branchUser);
  });
});
