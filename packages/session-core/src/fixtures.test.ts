// Every fixture loads as the pi that wrote it loads the same file (0.73.1, or 1.6.0 for the files it
// wrote), side by side, and with the facts the generator knows from building it (entry counts, leaves,
// labels, compaction lines, the issue of every damaged line). Fixtures are read from temporary copies.
import { SessionManager as ReferenceSessionManager } from '@mariozechner/pi-coding-agent';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  FIXTURE_NAMES,
  fixtureFacts,
  fixtureIds,
  fixturesDir,
  readFixtureCopy,
  PI16_TEXTS,
  PI16_WRITTEN,
  REFERENCE_WRITTEN,
  removeFixtureCopies,
  type FixtureName,
} from '../test/fixtures';
import { entryOnLine, loadCopy, walk } from '../test/loaded';
import { SessionManager as Pi16SessionManager } from '../test/pi16';
import { SessionManager } from './session-manager';
import type { StoredMessage } from './types';

const load = (name: string) => loadCopy(readFixtureCopy, name);

/** What a loaded session reports, in the terms both implementations share. */
interface Figures {
  entries: number;
  roots: number;
  leafIsLastEntry: boolean;
  pathLength: number;
  contextMessages: number;
  thinking: string;
  model: string | null;
  labelled: number;
}

interface Reportable {
  getEntries(): { id: string }[];
  getTree(): unknown[];
  getLeafId(): string | null;
  getBranch(): unknown[];
  buildSessionContext(): {
    messages: unknown[];
    thinkingLevel: string;
    model: { provider: string; modelId: string } | null;
  };
  getLabel(id: string): string | undefined;
}

function figuresOf(session: Reportable): Figures {
  const entries = session.getEntries();
  const context = session.buildSessionContext();
  return {
    entries: entries.length,
    roots: session.getTree().length,
    leafIsLastEntry: session.getLeafId() === (entries.at(-1)?.id ?? null),
    pathLength: session.getBranch().length,
    contextMessages: context.messages.length,
    thinking: context.thinkingLevel,
    model: context.model ? `${context.model.provider}/${context.model.modelId}` : null,
    labelled: entries.filter((entry) => session.getLabel(entry.id) !== undefined).length,
  };
}

/**
 * The files pi 0.73.1 can read as they were written: not the damaged one (read worse on purpose), the
 * oh-my-pi one, nor those pi 1.6 wrote (0.73.1 does not know their context edits and system messages;
 * they are compared with pi 1.6 below).
 */
const PI_READABLE = FIXTURE_NAMES.filter(
  (name) =>
    name !== 'malformed.jsonl' && name !== 'oh-my-pi-title-slot.jsonl' && !PI16_WRITTEN.includes(name),
);

describe('the fixtures', () => {
  const tempDir = mkdtempSync(join(tmpdir(), 'canopy-fixtures-ref-'));
  afterAll(async () => {
    rmSync(tempDir, { recursive: true, force: true });
    await removeFixtureCopies();
  });

  for (const name of PI_READABLE) {
    it(`${name} loads with the figures the reference reports for the same file`, async () => {
      const { session } = await load(name);
      const referenceCopy = join(tempDir, name);
      copyFileSync(join(fixturesDir(), name), referenceCopy);
      const reference = ReferenceSessionManager.open(referenceCopy, tempDir);

      const expected = figuresOf(reference as unknown as Reportable);
      expect(figuresOf(session)).toEqual(expected);
      expect(walk(session.getTree())).toHaveLength(expected.entries);
      // Ids of v3 files are the file's; legacy v1 ids are random on both sides.
      if (name !== 'legacy-v1-before-compaction.jsonl' && name !== 'legacy-v1-large-session.jsonl')
        expect(session.getLeafId()).toBe(reference.getLeafId());
      expect(session.issues).toEqual([]);

      // And the generator's own figures, so the comparison is not between two empty answers.
      const facts = fixtureFacts(name as FixtureName);
      if (typeof facts.entries === 'number') expect(expected.entries).toBe(facts.entries);
      if (typeof facts.leaf === 'string') expect(session.getLeafId()).toBe(facts.leaf);
      const labels = (facts.labels ?? {}) as Record<string, string>;
      for (const [id, label] of Object.entries(labels)) expect(session.getLabel(id)).toBe(label);
      if (name !== 'empty.jsonl') expect(expected.contextMessages).toBeGreaterThan(0);
    });
  }

  it('the seed example has the /tree example shape: approaches A and B under "Plan", "Continue A" labelled milestone', async () => {
    const { session } = await load('seed-example.jsonl');
    const id = fixtureIds('seed-example.jsonl');
    expect(session.getChildren(id.plan as string).map((entry) => entry.id)).toEqual([id.tryA, id.tryB]);
    expect(session.getBranch().map((entry) => entry.id)).toEqual([
      id.startTask,
      id.plan,
      id.tryA,
      id.aResult,
      id.continueA,
      id.milestoneLabel,
    ]);
    expect(session.getLabel(id.continueA as string)).toBe('milestone');
    const branched = SessionManager.fromJsonl(await readFixtureCopy('branched-from-seed-example.jsonl'));
    expect(branched.getHeader()?.parentSession).toBe('seed-example.jsonl');
    expect(branched.getEntries().map((entry) => entry.id)).toEqual([id.startTask, id.plan]);
  });

  for (const name of PI16_WRITTEN) {
    it(`${name} loads with the figures pi 1.6.0 reports for the same file, without an issue`, async () => {
      const { session } = await load(name);
      const copy = join(tempDir, name);
      copyFileSync(join(fixturesDir(), name), copy);
      const pi = Pi16SessionManager.open(copy, tempDir);
      const expected = figuresOf(pi as unknown as Reportable);
      expect(figuresOf(session)).toEqual(expected);
      expect(session.getLeafId()).toBe(pi.getLeafId());
      expect(session.issues).toEqual([]);
      expect(session.piOne).toBe(true);
      const facts = fixtureFacts(name as FixtureName);
      expect(expected.entries).toBe(facts.entries);
      expect(session.getLeafId()).toBe(facts.leaf);
      // pi 1.6 read it without appending anything (the file ends with a newline).
      expect(readFileSync(copy, 'utf8')).toBe(readFileSync(join(fixturesDir(), name), 'utf8'));
    });
  }

  it('pi073-continued-by-pi16 holds a branch summary of each era, and Canopy reads both fromIds right', async () => {
    const { session } = await load('pi073-continued-by-pi16.jsonl');
    const id = fixtureIds('pi073-continued-by-pi16.jsonl');
    const facts = fixtureFacts('pi073-continued-by-pi16.jsonl');
    const old = session.getEntry(id.oldSummary)!;
    const current = session.getEntry(id.newSummary)!;
    expect(old).toMatchObject({ parentId: id.answer, fromId: facts.oldSummaryFrom });
    expect(current).toMatchObject({ parentId: id.fixed, fromId: facts.newSummaryFrom });
    // The old summary's fromId is its own position: both meanings name the same entry.
    expect(session.branchSummaryOrigin(old).id).toBe(id.answer);
    expect(session.branchSummaryOrigin(current)).toEqual({ meaning: 'left-leaf', id: id.ciAnswer });
    // Without pi 1.x evidence, a file of 0.73.1's reads its summaries as branch points.
    const older = (await load('all-entry-types.jsonl')).session;
    const summary = older.getEntry(fixtureIds('all-entry-types.jsonl').branchSummary)!;
    expect(older.piOne).toBe(false);
    expect(older.branchSummaryOrigin(summary)).toEqual({ meaning: 'branch-point', id: summary.parentId });
  });

  it('pi16-session holds what pi 1.x writes: system messages, context edits of each kind, usage, a retain-none compaction', async () => {
    const { session } = await load('pi16-session.jsonl');
    const id = fixtureIds('pi16-session.jsonl');
    expect(session.getEntry(id.cacheWarm)).toMatchObject({ type: 'usage', kind: 'cache_warm' });
    expect(session.getEntry(id.omitAnswer)).toMatchObject({ targetId: id.done, replacement: null });
    expect(session.getEntry(id.replaceUser)).toMatchObject({
      targetId: id.firstUser,
      replacement: { content: PI16_TEXTS.editedUser },
    });
    expect(session.getEntry(id.replaceResult)).toMatchObject({
      replacement: { content: [{ type: 'text', text: PI16_TEXTS.editedResult }] },
    });
    expect(session.getEntry(id.retainNone)).toMatchObject({ firstKeptEntryId: id.retainNone });
    expect(session.getEntry(id.compaction)).toHaveProperty('systemMessage.sections.env');
    expect(session.getEntry(id.branchSummary)).toMatchObject({
      fromId: fixtureFacts('pi16-session.jsonl').summaryLeftLeaf,
      usage: { cacheRead: 2_000 },
    });
    expect(session.getSessionName()).toBe(PI16_TEXTS.sessionName);
  });

  it('writes the files pi wrote back byte for byte', async () => {
    for (const name of [...REFERENCE_WRITTEN, ...PI16_WRITTEN]) {
      const { session, bytes } = await load(name);
      expect(session.toJsonl()).toBe(new TextDecoder().decode(bytes));
      expect(session.needsRewrite).toBe(false);
    }
  });

  it('migrates legacy-v1-before-compaction: ids, a chain, and compactions keeping from the file lines the generator chose', async () => {
    const { session } = await load('legacy-v1-before-compaction.jsonl');
    const facts = fixtureFacts('legacy-v1-before-compaction.jsonl');
    const compactionLines = facts.compactionLineIndexes as number[];
    const keptLines = facts.firstKeptEntryIndexes as number[];
    expect(session.version).toBe(1);
    expect(session.needsRewrite).toBe(true);
    expect(session.getHeader()?.version).toBe(3);
    const entries = session.getEntries();
    expect(entries.every((entry, i) => entry.parentId === (i === 0 ? null : entries[i - 1]?.id))).toBe(true);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(facts.entries);

    const compactions = entries.filter((entry) => entry.type === 'compaction');
    expect(compactions).toHaveLength(compactionLines.length);
    // firstKeptEntryIndex counts file lines from 0 (the header), so index i is the (i + 1)th line.
    const kept = compactions.map((compaction) => session.getEntry(compaction.firstKeptEntryId as string));
    expect(kept.map((entry) => session.getLine(entry?.id as string))).toEqual(keptLines.map((i) => i + 1));
    expect(kept.map((entry) => (entry as { message: StoredMessage }).message.role)).toEqual(
      keptLines.map(() => 'user'),
    );
    expect(compactions.every((compaction) => !('firstKeptEntryIndex' in compaction))).toBe(true);
    expect(compactions.map((compaction) => session.getLine(compaction.id))).toEqual(
      compactionLines.map((i) => i + 1),
    );
    expect(entryOnLine(session, (keptLines.at(-1) as number) + 1)?.id).toBe(
      compactions.at(-1)?.firstKeptEntryId,
    );
  });

  it('migrates legacy-v1-large-session into a chain of short ids', async () => {
    const { session } = await load('legacy-v1-large-session.jsonl');
    const entries = session.getEntries();
    expect(session.version).toBe(1);
    expect(session.needsRewrite).toBe(true);
    expect(entries).toHaveLength(fixtureFacts('legacy-v1-large-session.jsonl').entries as number);
    expect(entries.every((entry) => /^[0-9a-f]{8}$/.test(entry.id))).toBe(true);
    expect(entries.every((entry, i) => entry.parentId === (i === 0 ? null : entries[i - 1]?.id))).toBe(true);
  });

  it('migrates legacy-v2-hookmessage: the hookMessage role becomes custom, ids stay', async () => {
    const { session } = await load('legacy-v2-hookmessage.jsonl');
    const id = fixtureIds('legacy-v2-hookmessage.jsonl');
    expect(session.version).toBe(2);
    expect(session.needsRewrite).toBe(true);
    expect(session.getEntries().map((entry) => entry.id)).toEqual([
      id.user,
      id.hook,
      id.assistant,
      id.compaction,
      id.thanks,
    ]);
    expect((session.getEntry(id.hook as string) as { message: StoredMessage }).message.role).toBe('custom');
  });

  it('reports every problem of malformed.jsonl with the line and kind the generator damaged', async () => {
    const { session } = await load('malformed.jsonl');
    const facts = fixtureFacts('malformed.jsonl');
    const id = fixtureIds('malformed.jsonl');
    const planned = facts.issues as { line: number; kind: string }[];
    expect(session.issues.map((issue) => `${issue.line}:${issue.kind}`)).toEqual(
      planned.map((issue) => `${issue.line}:${issue.kind}`),
    );
    for (const issue of session.issues) expect(issue.message.startsWith(`line ${issue.line}: `)).toBe(true);
    expect(session.issues[0]?.message).toMatch(/^line 3: not valid JSON \(.+\); skipped$/);
    const duplicate = session.issues.find((issue) => issue.kind === 'duplicate-id');
    expect(duplicate?.message).toBe(
      `line ${duplicate?.line}: duplicate id "${id.hi}" (first used on line 5); this later entry is skipped`,
    );
  });

  it('shows every distinct id of malformed.jsonl exactly once in the tree, cycle members included', async () => {
    const { session } = await load('malformed.jsonl');
    const facts = fixtureFacts('malformed.jsonl');
    const id = fixtureIds('malformed.jsonl');
    const nodes = walk(session.getTree());
    expect(nodes.map((node) => node.entry.id).sort()).toEqual([...(facts.treeIds as string[])].sort());
    expect(session.getTree().map((node) => node.entry.id)).toEqual(facts.roots);
    expect((session.getEntry(id.hi as string) as { message: StoredMessage }).message.role).toBe('assistant');
    expect(session.getLabel(id.hi as string)).toBe('ok');
    expect(session.getLeafId()).toBe(facts.leaf);
    expect(session.getBranch().map((entry) => entry.id)).toEqual(facts.leafPath);
  });

  it('reads the oh-my-pi file: title slot before the header, model_change {model, role}, fromExtension', async () => {
    const { session } = await load('oh-my-pi-title-slot.jsonl');
    const facts = fixtureFacts('oh-my-pi-title-slot.jsonl');
    const id = fixtureIds('oh-my-pi-title-slot.jsonl');
    expect(session.issues).toEqual([]);
    expect(session.dialect).toBe('omp');
    expect(session.getHeaderLine()).toBe(2);
    expect(session.getSessionName()).toBe(facts.title);
    expect(session.getEntries()).toHaveLength(facts.entries as number);
    expect(session.getLeafId()).toBe(facts.leaf);
    expect(session.getEntry(id.modelChange as string)).toMatchObject({
      model: 'anthropic/claude-sonnet-4-5',
      role: 'default',
    });
    expect(session.getEntry(id.compaction as string)).toMatchObject({ fromExtension: true });
    // A change for the "slow" role leaves the default model alone.
    const context = session.buildSessionContext();
    expect(context.model).toEqual({ provider: 'anthropic', modelId: 'claude-sonnet-4-5' });
    expect(context.models).toEqual({ default: 'anthropic/claude-sonnet-4-5', slow: 'openai/gpt-5.1-codex' });
  });
});
