// Cross-check only, run when a maintainer keeps a second, independently made set of session files
// beside the clone (vitest.config.ts includes this file only when that folder exists): each loads with
// the figures its README reports from the reference package. The project's own fixtures are tested by
// fixtures.test.ts, which never needs that folder.
import { afterAll, describe, expect, it } from 'vitest';
import {
  FIXTURES_MISSING_MESSAGE,
  fixtureNames,
  fixturesDir,
  readFixtureCopy,
  removeFixtureCopies,
} from '../test/shared-fixtures';
import { entryOnLine, loadCopy, walk } from '../test/loaded';
import type { StoredMessage } from './types';

interface Figures {
  entries: number;
  roots: number;
  /** null: an empty session; 'last': a migrated file, whose ids are random (the leaf is its last entry). */
  leaf: string | null | 'last';
  pathLength: number;
  contextMessages: number;
  thinking: string;
  model: string | null;
  labelled: number;
}

// The README table of ../shared/fixtures/sessions.
const README_FIGURES: Record<string, Figures> = {
  'all-entry-types.jsonl': {
    entries: 31,
    roots: 1,
    leaf: '26cbcded',
    pathLength: 8,
    contextMessages: 5,
    thinking: 'high',
    model: 'anthropic/claude-sonnet-4-5',
    labelled: 1,
  },
  'branched-from-seed-example.jsonl': {
    entries: 2,
    roots: 1,
    leaf: '132d1404',
    pathLength: 2,
    contextMessages: 2,
    thinking: 'off',
    model: 'anthropic/claude-sonnet-4-5',
    labelled: 0,
  },
  'legacy-v1-before-compaction.jsonl': {
    entries: 1002,
    roots: 1,
    leaf: 'last',
    pathLength: 1002,
    contextMessages: 446,
    thinking: 'off',
    model: 'anthropic/claude-opus-4-5',
    labelled: 0,
  },
  'legacy-v1-large-session.jsonl': {
    entries: 1018,
    roots: 1,
    leaf: 'last',
    pathLength: 1018,
    contextMessages: 914,
    thinking: 'off',
    model: 'anthropic/claude-sonnet-4-5',
    labelled: 0,
  },
  'legacy-v2-hookmessage.jsonl': {
    entries: 5,
    roots: 1,
    leaf: 'a0000005',
    pathLength: 5,
    contextMessages: 3,
    thinking: 'off',
    model: 'anthropic/claude-sonnet-4-5',
    labelled: 0,
  },
  'many-branches.jsonl': {
    entries: 2720,
    roots: 1,
    leaf: '6bdcad3c',
    pathLength: 166,
    contextMessages: 165,
    thinking: 'low',
    model: 'anthropic/claude-sonnet-4-5',
    labelled: 3,
  },
  'seed-example.jsonl': {
    entries: 8,
    roots: 1,
    leaf: '1890bfab',
    pathLength: 6,
    contextMessages: 5,
    thinking: 'off',
    model: 'anthropic/claude-sonnet-4-5',
    labelled: 1,
  },
  'empty.jsonl': {
    entries: 0,
    roots: 0,
    leaf: null,
    pathLength: 0,
    contextMessages: 0,
    thinking: 'off',
    model: null,
    labelled: 0,
  },
};

const load = (name: string) => loadCopy(readFixtureCopy, name);

describe.skipIf(!fixturesDir())(fixturesDir() ? 'shared fixtures' : FIXTURES_MISSING_MESSAGE, () => {
  afterAll(removeFixtureCopies);

  it('has README figures for every fixture file', () => {
    expect(fixtureNames().filter((name) => name !== 'malformed.jsonl')).toEqual(
      Object.keys(README_FIGURES).sort(),
    );
  });

  for (const [name, figures] of Object.entries(README_FIGURES)) {
    it(`loads ${name} with the README figures`, async () => {
      const { session } = await load(name);
      const entries = session.getEntries();
      const tree = session.getTree();
      const nodes = walk(tree);
      const context = session.buildSessionContext();

      expect(entries).toHaveLength(figures.entries);
      expect(tree).toHaveLength(figures.roots);
      expect(nodes).toHaveLength(figures.entries);
      if (figures.leaf === 'last') expect(session.getLeafId()).toBe(entries[entries.length - 1]?.id);
      else expect(session.getLeafId()).toBe(figures.leaf);
      expect(session.getBranch()).toHaveLength(figures.pathLength);
      expect(context.messages).toHaveLength(figures.contextMessages);
      expect(context.thinkingLevel).toBe(figures.thinking);
      expect(context.model ? `${context.model.provider}/${context.model.modelId}` : null).toBe(figures.model);
      expect(nodes.filter((node) => node.label !== undefined)).toHaveLength(figures.labelled);
      expect(session.issues).toEqual([]);
    });
  }

  it('writes the v3 fixtures back byte for byte', async () => {
    for (const name of [
      'seed-example.jsonl',
      'all-entry-types.jsonl',
      'many-branches.jsonl',
      'branched-from-seed-example.jsonl',
    ]) {
      const { session, bytes } = await load(name);
      expect(session.toJsonl()).toBe(new TextDecoder().decode(bytes));
      expect(session.needsRewrite).toBe(false);
    }
  });

  it('migrates legacy-v1-before-compaction: ids, a chain, and compactions keeping from file lines 293 and 551', async () => {
    const { session } = await load('legacy-v1-before-compaction.jsonl');
    expect(session.version).toBe(1);
    expect(session.needsRewrite).toBe(true);
    expect(session.getHeader()?.version).toBe(3);
    const entries = session.getEntries();
    expect(entries.every((entry, i) => entry.parentId === (i === 0 ? null : entries[i - 1]?.id))).toBe(true);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(1002);

    const compactions = entries.filter((entry) => entry.type === 'compaction');
    expect(compactions).toHaveLength(2);
    // firstKeptEntryIndex counts file lines from 0 (the header), so index 293 is the 294th line.
    const kept = compactions.map((compaction) => session.getEntry(compaction.firstKeptEntryId as string));
    expect(kept.map((entry) => session.getLine(entry?.id as string))).toEqual([294, 552]);
    expect(kept.map((entry) => (entry as { message: StoredMessage }).message.role)).toEqual(['user', 'user']);
    expect(compactions.every((compaction) => !('firstKeptEntryIndex' in compaction))).toBe(true);
    // The latest compaction is on the 629th line (index 628).
    expect(session.getLine(compactions[1]?.id as string)).toBe(629);
    expect(entryOnLine(session, 552)?.id).toBe(compactions[1]?.firstKeptEntryId);
  });

  it('migrates legacy-v1-large-session into a 1018-entry chain', async () => {
    const { session } = await load('legacy-v1-large-session.jsonl');
    const entries = session.getEntries();
    expect(session.version).toBe(1);
    expect(session.needsRewrite).toBe(true);
    expect(entries).toHaveLength(1018);
    expect(entries.every((entry) => /^[0-9a-f]{8}$/.test(entry.id))).toBe(true);
    expect(entries.every((entry, i) => entry.parentId === (i === 0 ? null : entries[i - 1]?.id))).toBe(true);
  });

  it('migrates legacy-v2-hookmessage: the hookMessage role becomes custom, ids stay', async () => {
    const { session } = await load('legacy-v2-hookmessage.jsonl');
    expect(session.version).toBe(2);
    expect(session.needsRewrite).toBe(true);
    expect(session.getEntries().map((entry) => entry.id)).toEqual([
      'a0000001',
      'a0000002',
      'a0000003',
      'a0000004',
      'a0000005',
    ]);
    expect((session.getEntry('a0000002') as { message: StoredMessage }).message.role).toBe('custom');
  });

  it('reports every problem of malformed.jsonl with its line and reason', async () => {
    const { session } = await load('malformed.jsonl');
    expect(session.issues.map((issue) => `${issue.line}:${issue.kind}`)).toEqual([
      '3:invalid-json',
      '4:not-object',
      '6:orphan',
      '7:self-parent',
      '8:parent-cycle',
      '9:parent-cycle',
      '10:duplicate-id',
      '11:unknown-type',
      // The cut-off line does end with a newline, so it is a complete line that is not valid JSON.
      '13:invalid-json',
    ]);
    for (const issue of session.issues) expect(issue.message.startsWith(`line ${issue.line}: `)).toBe(true);
    expect(session.issues[0]?.message).toMatch(/^line 3: not valid JSON \(.+\); skipped$/);
    expect(session.issues[6]?.message).toBe(
      'line 10: duplicate id "m0000002" (first used on line 5); this later entry is skipped',
    );
  });

  it('shows every distinct id of malformed.jsonl exactly once in the tree, cycle members included', async () => {
    const { session } = await load('malformed.jsonl');
    const nodes = walk(session.getTree());
    expect(nodes.map((node) => node.entry.id).sort()).toEqual(
      ['c0000001', 'c0000002', 'f0000001', 'l0000001', 'm0000001', 'm0000002', 'm0000003', 'm0000004'].sort(),
    );
    expect(session.getTree().map((node) => node.entry.id)).toEqual([
      'm0000001',
      'm0000003',
      'm0000004',
      'c0000001',
    ]);
    expect((session.getEntry('m0000002') as { message: StoredMessage }).message.role).toBe('assistant');
    expect(session.getLabel('m0000002')).toBe('ok');
    expect(session.getLeafId()).toBe('l0000001');
    expect(session.getBranch().map((entry) => entry.id)).toEqual([
      'm0000001',
      'm0000002',
      'f0000001',
      'l0000001',
    ]);
  });
});
