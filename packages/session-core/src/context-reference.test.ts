// Differential tests of the pure context, navigation and summary-input functions against the
// reference package (@mariozechner/pi-coding-agent 0.73.1): on every fixture and on random trees,
// both must produce the same context, wire messages, abandoned entries and summary input. Token
// estimates, and so what fits a summary's budget, are today's pi's (1.6.0, test/pi16.ts).
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as reference from '@mariozechner/pi-coding-agent';
// pi 1.x serialises the summarised conversation without thinking blocks; its module loads by file.
import { serializeConversation as referenceSerialize16 } from '../../../node_modules/@earendil-works/pi-coding-agent/dist/core/compaction/utils.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSessionContext, convertToLlm } from './context';
import { collectEntriesForBranchSummary, getUserMessagesForForking, type NavigationTree } from './navigation';
import { prepareBranchEntries, serializeConversation } from './summary-input';
import { estimateTokens } from './text';
import type { AgentMessage, SessionEntry } from './types';
import { fixturesDir, LEGACY, REFERENCE_WRITTEN } from '../test/fixtures';
import * as pi16 from '../test/pi16';

type RefEntries = Parameters<typeof reference.buildSessionContext>[0];
type RefMessages = Parameters<typeof reference.convertToLlm>[0];
type RefSession = Parameters<typeof reference.collectEntriesForBranchSummary>[0];
type RefLlmMessages = Parameters<typeof referenceSerialize16>[0];
type Pi16Message = Parameters<typeof pi16.estimateTokens>[0];
type Pi16Entries = Parameters<typeof pi16.prepareBranchEntries>[0];

const FIXTURES = [...REFERENCE_WRITTEN, ...LEGACY];

/** A read-only tree over entries with the reference's getBranch walk (no cycles in these inputs). */
function treeOf(entries: readonly SessionEntry[]): NavigationTree & {
  getBranch(id: string): SessionEntry[];
} {
  const byId = new Map(entries.map((e) => [e.id, e] as const));
  const getBranch = (id: string | null | undefined) => {
    const path: SessionEntry[] = [];
    let current = id ? byId.get(id) : undefined;
    while (current) {
      path.push(current);
      current = current.parentId ? byId.get(current.parentId) : undefined;
    }
    return path.reverse();
  };
  return {
    getEntry: (id) => byId.get(id),
    getShape: (id) => byId.get(id),
    getBranch,
    getBranchShapes: getBranch,
  };
}

function pathOf(entries: readonly SessionEntry[], leafId: string): SessionEntry[] {
  return treeOf(entries).getBranch(leafId);
}

/** Every comparison both implementations must agree on, at one leaf. */
function expectSameAt(entries: SessionEntry[], leafId: string | null | undefined, budget: number): void {
  const mine = buildSessionContext(entries, leafId);
  const theirs = reference.buildSessionContext(entries as unknown as RefEntries, leafId);
  expect(mine.messages).toEqual(theirs.messages);
  expect(mine.thinkingLevel).toBe(theirs.thinkingLevel);
  expect(mine.model).toEqual(theirs.model);

  const myWire = convertToLlm(mine.messages);
  expect(myWire).toEqual(reference.convertToLlm(theirs.messages as unknown as RefMessages));
  // Token estimates are today's pi's: pi 1.x counts a user message's images, 0.73 did not.
  for (const message of mine.messages) {
    expect(estimateTokens(message)).toBe(pi16.estimateTokens(message as unknown as Pi16Message));
  }

  if (typeof leafId !== 'string') return;
  const path = pathOf(entries, leafId);
  const prepared = prepareBranchEntries(path, budget);
  // The budget is counted with those estimates too, so the entries taken are pi 1.6's.
  const refPrepared = pi16.prepareBranchEntries(path as unknown as Pi16Entries, budget);
  expect(prepared.messages).toEqual(refPrepared.messages);
  expect(prepared.totalTokens).toBe(refPrepared.totalTokens);
  expect([...prepared.fileOps.read]).toEqual([...refPrepared.fileOps.read]);
  expect([...prepared.fileOps.written]).toEqual([...refPrepared.fileOps.written]);
  expect([...prepared.fileOps.edited]).toEqual([...refPrepared.fileOps.edited]);
  expect(serializeConversation(convertToLlm(prepared.messages))).toBe(
    referenceSerialize16(
      reference.convertToLlm(refPrepared.messages as unknown as RefMessages) as unknown as RefLlmMessages,
    ),
  );
}

describe('context and summary input match the reference on every fixture', () => {
  let tempDir = '';
  beforeAll(() => {
    tempDir = mkdtempSync(join(tmpdir(), 'canopy-context-ref-'));
  });
  afterAll(() => {
    rmSync(tempDir, { recursive: true, force: true });
  });

  for (const name of FIXTURES) {
    it(`agrees at every sampled leaf of ${name}`, () => {
      const copy = join(tempDir, name);
      copyFileSync(join(fixturesDir(), name), copy);
      const fileEntries = reference.parseSessionEntries(readFileSync(copy, 'utf8'));
      reference.migrateSessionEntries(fileEntries);
      const entries = fileEntries.filter((e) => e.type !== 'session') as unknown as SessionEntry[];
      expect(entries.length).toBeGreaterThan(0);

      // Long linear files: every 25th leaf keeps the quadratic comparison cheap.
      const step = entries.length > 500 ? 25 : 1;
      for (let i = 0; i < entries.length; i += step)
        expectSameAt(entries, (entries[i] as SessionEntry).id, 0);
      expectSameAt(entries, undefined, 0);
      expectSameAt(entries, null, 0);
      expectSameAt(entries, (entries[entries.length - 1] as SessionEntry).id, 2000);

      const tree = treeOf(entries);
      const session = tree as unknown as RefSession;
      for (let i = 0; i < entries.length; i += Math.max(step, 7)) {
        const from = (entries[i] as SessionEntry).id;
        const to = (entries[(i * 31 + 5) % entries.length] as SessionEntry).id;
        const mine = collectEntriesForBranchSummary(tree, from, to);
        const theirs = reference.collectEntriesForBranchSummary(session, from, to);
        expect(mine.commonAncestorId).toBe(theirs.commonAncestorId);
        expect(mine.entries.map((e) => e.id)).toEqual(theirs.entries.map((e) => e.id));
      }
    });
  }
});

// ---------------------------------------------------------------- random trees

const texts = fc.string({ maxLength: 12 });
const paths = fc.constantFrom('a.ts', 'b.ts', 'src/c.ts', 'z.md');

const userContent = fc.oneof(
  texts,
  fc.array(
    fc.oneof(
      texts.map((text) => ({ type: 'text', text })),
      fc.constant({ type: 'image', data: 'AAAA', mimeType: 'image/png' }),
    ),
    { maxLength: 3 },
  ),
);

const assistantBlock = fc.oneof(
  texts.map((text) => ({ type: 'text', text })),
  texts.map((thinking) => ({ type: 'thinking', thinking })),
  fc
    .tuple(fc.constantFrom('read', 'write', 'edit', 'bash'), paths)
    .map(([name, path]) => ({ type: 'toolCall', id: `c-${name}`, name, arguments: { path } })),
);

type EntryShape = (id: string, parentId: string | null, timestamp: string, ids: string[]) => SessionEntry;

const entryShape: fc.Arbitrary<EntryShape> = fc.oneof(
  userContent.map((content): EntryShape => (id, parentId, timestamp) => ({
    type: 'message',
    id,
    parentId,
    timestamp,
    message: { role: 'user', content, timestamp: 1 },
  })),
  fc
    .tuple(
      fc.array(assistantBlock, { maxLength: 4 }),
      fc.constantFrom('anthropic', 'openai'),
      fc.constantFrom('m1', 'm2'),
    )
    .map(([content, provider, model]): EntryShape => (id, parentId, timestamp) => ({
      type: 'message',
      id,
      parentId,
      timestamp,
      message: { role: 'assistant', content, provider, model, api: 'x', stopReason: 'stop', timestamp: 2 },
    })),
  userContent.map((content): EntryShape => (id, parentId, timestamp) => ({
    type: 'message',
    id,
    parentId,
    timestamp,
    message: {
      role: 'toolResult',
      toolCallId: 'c',
      toolName: 'read',
      content: typeof content === 'string' ? [{ type: 'text', text: content }] : content,
      isError: false,
      timestamp: 3,
    },
  })),
  fc
    .record({
      command: texts,
      output: texts,
      exitCode: fc.constantFrom(0, 1, undefined),
      cancelled: fc.boolean(),
      truncated: fc.boolean(),
      fullOutputPath: fc.constantFrom(undefined, '/tmp/out'),
      excludeFromContext: fc.boolean(),
    })
    .map((bash): EntryShape => (id, parentId, timestamp) => ({
      type: 'message',
      id,
      parentId,
      timestamp,
      message: { role: 'bashExecution', ...bash, timestamp: 4 },
    })),
  fc.tuple(userContent, fc.boolean()).map(([content, display]): EntryShape => (id, parentId, timestamp) => ({
    type: 'custom_message',
    id,
    parentId,
    timestamp,
    customType: 'k',
    content,
    display,
  })),
  fc
    .tuple(texts, fc.boolean(), fc.array(paths, { maxLength: 2 }), fc.array(paths, { maxLength: 2 }))
    .map(([summary, fromHook, readFiles, modifiedFiles]): EntryShape => (id, parentId, timestamp) => ({
      type: 'branch_summary',
      id,
      parentId,
      timestamp,
      fromId: parentId ?? 'root',
      summary,
      fromHook,
      details: { readFiles, modifiedFiles },
    })),
  fc
    .tuple(texts, fc.nat(), fc.nat({ max: 5000 }))
    .map(([summary, pick, tokensBefore]): EntryShape => (id, parentId, timestamp, ids) => ({
      type: 'compaction',
      id,
      parentId,
      timestamp,
      summary,
      firstKeptEntryId: ids.length > 0 && pick % 5 !== 0 ? (ids[pick % ids.length] as string) : 'missing',
      tokensBefore,
    })),
  fc.constantFrom('off', 'low', 'high').map((thinkingLevel): EntryShape => (id, parentId, timestamp) => ({
    type: 'thinking_level_change',
    id,
    parentId,
    timestamp,
    thinkingLevel,
  })),
  fc.constantFrom('openai', 'google').map((provider): EntryShape => (id, parentId, timestamp) => ({
    type: 'model_change',
    id,
    parentId,
    timestamp,
    provider,
    modelId: 'x',
  })),
  fc.constant<EntryShape>((id, parentId, timestamp, ids) => ({
    type: 'label',
    id,
    parentId,
    timestamp,
    targetId: ids[0] ?? id,
    label: 'l',
  })),
  fc.constant<EntryShape>((id, parentId, timestamp) => ({
    type: 'custom',
    id,
    parentId,
    timestamp,
    customType: 'k',
  })),
);

/** Entries whose parents are random earlier entries (or none: a new root), never a cycle. */
const randomEntries = fc
  .array(fc.tuple(entryShape, fc.nat(), fc.nat({ max: 9 })), { minLength: 1, maxLength: 40 })
  .map((steps) => {
    const entries: SessionEntry[] = [];
    const ids: string[] = [];
    const start = Date.parse('2025-03-01T00:00:00.000Z');
    steps.forEach(([shape, parentPick, rootChance], i) => {
      const id = `e${i}`;
      const parentId = ids.length === 0 || rootChance === 0 ? null : (ids[parentPick % ids.length] as string);
      entries.push(shape(id, parentId, new Date(start + i * 1000).toISOString(), ids));
      ids.push(id);
    });
    return entries;
  });

describe('context and summary input match the reference on random trees', () => {
  it('agrees at every leaf, for the fork list and for every pair of navigation ends', () => {
    fc.assert(
      fc.property(randomEntries, fc.nat({ max: 60 }), (entries, budget) => {
        for (const e of entries) expectSameAt(entries, e.id, budget);
        expectSameAt(entries, 'unknown-id', budget);

        const myForkList = getUserMessagesForForking(entries);
        const expected = entries
          .filter((e) => e.type === 'message' && (e.message as AgentMessage).role === 'user')
          .map((e) => ({
            entryId: e.id,
            text: extractUserText((e.message as { content: unknown }).content),
          }))
          .filter((item) => item.text);
        expect(myForkList).toEqual(expected);

        const tree = treeOf(entries);
        for (const from of entries) {
          for (const to of entries) {
            const mine = collectEntriesForBranchSummary(tree, from.id, to.id);
            const theirs = reference.collectEntriesForBranchSummary(
              tree as unknown as RefSession,
              from.id,
              to.id,
            );
            expect(mine.commonAncestorId).toBe(theirs.commonAncestorId);
            expect(mine.entries.map((e) => e.id)).toEqual(theirs.entries.map((e) => e.id));
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});

/** The reference's `_extractUserMessageText` (private in AgentSession), restated for the fork list. */
function extractUserText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return (content as { type: string; text?: string }[])
      .filter((c) => c.type === 'text')
      .map((c) => c.text)
      .join('');
  }
  return '';
}
