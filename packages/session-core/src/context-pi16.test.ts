// Differential tests of the model context against pi 1.6.0 (test/pi16.ts): random trees with what pi
// 1.x added (context edits of every kind, system messages and patches, compactions that carry a system
// message and usage, usage entries, messages with a missing content) must give exactly the context,
// wire messages and token estimates pi 1.6's own functions give, at every leaf.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ARGUMENTS_TOO_DEEP,
  buildSessionContext,
  convertToLlm,
  llmText,
  projectContextEntry,
} from './context';
import { estimateTokens } from './text';
import type { SessionEntry } from './types';
import * as pi16 from '../test/pi16';

type PiEntries = Parameters<typeof pi16.buildSessionContext>[0];
type PiMessages = Parameters<typeof pi16.convertToLlm>[0];

function expectSameAt(entries: SessionEntry[], leafId: string | null | undefined): void {
  const mine = buildSessionContext(entries, leafId);
  const theirs = pi16.buildSessionContext(entries as unknown as PiEntries, leafId);
  expect(mine.messages).toEqual(theirs.messages);
  expect(mine.thinkingLevel).toBe(theirs.thinkingLevel);
  expect(mine.model).toEqual(theirs.model);
  expect(convertToLlm(mine.messages)).toEqual(pi16.convertToLlm(theirs.messages as unknown as PiMessages));
  for (const message of mine.messages) {
    expect(estimateTokens(message)).toBe(pi16.estimateTokens(message as unknown as PiMessages[number]));
  }
}

const texts = fc.string({ maxLength: 10 });
const image = fc.constant({ type: 'image', data: 'AAAA', mimeType: 'image/png' });
const blocks = fc.array(
  fc.oneof(
    texts.map((text) => ({ type: 'text', text })),
    image,
  ),
  { maxLength: 3 },
);
const userContent = fc.oneof(texts, blocks);

type Shape = (id: string, parentId: string | null, timestamp: string, ids: string[]) => SessionEntry;

function message(message: Record<string, unknown>): Shape {
  return (id, parentId, timestamp) => ({ type: 'message', id, parentId, timestamp, message });
}

const usage = fc.nat(100).map((n) => ({
  input: n,
  output: 1,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: n + 1,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: n / 100 },
}));

const systemMessage = fc
  .record(
    {
      content: fc.oneof(
        texts,
        texts.map((text) => [{ type: 'text', text }]),
      ),
      sections: fc.dictionary(fc.constantFrom('preamble', 'tools', 'cwd'), fc.option(texts, { nil: null }), {
        maxKeys: 2,
      }),
      toolsAdded: fc.array(
        fc.record({ name: fc.constantFrom('read', 'bash'), description: texts, parameters: fc.constant({}) }),
        { maxLength: 2 },
      ),
      toolsRemoved: fc.array(fc.record({ name: fc.constantFrom('write', 'edit') }), { maxLength: 1 }),
    },
    { requiredKeys: ['content'] },
  )
  .map((fields) => ({ role: 'system', ...fields, timestamp: 5 }));

const replacement = fc.oneof(
  fc.constant(null),
  texts.map((content) => ({ content })),
  blocks.map((content) => ({ content })),
);

const shape: fc.Arbitrary<Shape> = fc.oneof(
  { arbitrary: userContent.map((content) => message({ role: 'user', content, timestamp: 1 })), weight: 4 },
  {
    arbitrary: fc
      .tuple(
        fc.array(
          fc.oneof(
            texts.map((text) => ({ type: 'text', text })),
            texts.map((thinking) => ({ type: 'thinking', thinking })),
            fc.constant({ type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'a.ts' } }),
          ),
          { maxLength: 3 },
        ),
        fc.constantFrom('anthropic', 'openai'),
        usage,
        fc.constantFrom('stop', 'toolUse', 'error', 'deferred'),
      )
      .map(([content, provider, u, stopReason]) =>
        message({
          role: 'assistant',
          content,
          api: 'x',
          provider,
          model: 'm',
          usage: u,
          stopReason,
          thinkingLevel: 'high',
          responseModel: 'm-2026',
          timestamp: 2,
        }),
      ),
    weight: 4,
  },
  {
    arbitrary: fc.tuple(blocks, fc.option(usage, { nil: undefined })).map(([content, u]) =>
      message({
        role: 'toolResult',
        toolCallId: 'c1',
        toolName: 'read',
        content,
        isError: false,
        timestamp: 3,
        ...(u
          ? { usage: u, nestedCalls: { calls: [{ id: 'n1', name: 'bash', status: 'ok' }], complete: true } }
          : {}),
      }),
    ),
    weight: 2,
  },
  { arbitrary: systemMessage.map((system) => message(system)), weight: 2 },
  {
    // A message without content (a hand-edited or old file): pi 1.x sends it with an empty one.
    arbitrary: fc
      .constantFrom('user', 'assistant', 'toolResult', 'system')
      .map((role) =>
        message({ role, timestamp: 6, ...(role === 'assistant' ? { provider: 'p', model: 'm' } : {}) }),
      ),
    weight: 1,
  },
  {
    arbitrary: fc
      .tuple(userContent, fc.boolean())
      .map(([content, display]): Shape => (id, parentId, timestamp) => ({
        type: 'custom_message',
        id,
        parentId,
        timestamp,
        customType: 'k',
        content,
        display,
      })),
    weight: 1,
  },
  {
    arbitrary: fc
      .tuple(fc.nat(), replacement)
      .map(([pick, replacement]): Shape => (id, parentId, timestamp, ids) => ({
        type: 'context_edit',
        id,
        parentId,
        timestamp,
        targetId: ids.length > 0 ? (ids[pick % ids.length] as string) : 'missing',
        replacement,
      })),
    weight: 4,
  },
  {
    arbitrary: usage.map((u): Shape => (id, parentId, timestamp) => ({
      type: 'usage',
      id,
      parentId,
      timestamp,
      kind: 'cache_warm',
      provider: 'anthropic',
      model: 'm',
      usage: u,
    })),
    weight: 1,
  },
  {
    arbitrary: fc
      .tuple(texts, fc.nat(), fc.option(systemMessage, { nil: undefined }), usage)
      .map(([summary, pick, system, u]): Shape => (id, parentId, timestamp, ids) => ({
        type: 'compaction',
        id,
        parentId,
        timestamp,
        summary,
        // Some retain none: a compaction that keeps nothing names itself.
        firstKeptEntryId: ids.length > 0 && pick % 4 !== 0 ? (ids[pick % ids.length] as string) : id,
        tokensBefore: pick,
        usage: u,
        ...(system ? { systemMessage: system } : {}),
      })),
    weight: 2,
  },
  {
    arbitrary: fc.tuple(texts, usage).map(([summary, u]): Shape => (id, parentId, timestamp, ids) => ({
      type: 'branch_summary',
      id,
      parentId,
      timestamp,
      fromId: ids[ids.length - 1] ?? 'root',
      summary,
      usage: u,
    })),
    weight: 1,
  },
  {
    arbitrary: fc.constantFrom('off', 'high').map((thinkingLevel): Shape => (id, parentId, timestamp) => ({
      type: 'thinking_level_change',
      id,
      parentId,
      timestamp,
      thinkingLevel,
    })),
    weight: 1,
  },
);

/** Mostly chains (so edits and compactions land on the path of what they name), sometimes forks and roots. */
const randomEntries = fc
  .array(fc.tuple(shape, fc.nat({ max: 9 }), fc.nat()), { minLength: 1, maxLength: 30 })
  .map((steps) => {
    const entries: SessionEntry[] = [];
    const ids: string[] = [];
    const start = Date.parse('2026-11-20T00:00:00.000Z');
    steps.forEach(([make, branchChance, pick], i) => {
      const id = `e${i}`;
      let parentId: string | null = ids[ids.length - 1] ?? null;
      if (branchChance === 0) parentId = null;
      else if (branchChance === 1 && ids.length > 0) parentId = ids[pick % ids.length] as string;
      entries.push(make(id, parentId, new Date(start + i * 1000).toISOString(), ids));
      ids.push(id);
    });
    return entries;
  });

describe('the context of a pi 1.x file is pi 1.6.0’s', () => {
  it('at every leaf of random trees with context edits, system messages, usage and compactions', () => {
    fc.assert(
      fc.property(randomEntries, (entries) => {
        for (const entry of entries) expectSameAt(entries, entry.id);
        expectSameAt(entries, undefined);
        expectSameAt(entries, null);
        expectSameAt(entries, 'unknown-id');
      }),
      { numRuns: 300 },
    );
  });
});

describe('context edits', () => {
  const entry = (type: string, id: string, parentId: string | null, fields: Record<string, unknown>) =>
    ({ type, id, parentId, timestamp: `2026-11-20T00:00:0${id.length}.000Z`, ...fields }) as SessionEntry;
  const user = entry('message', 'u', null, { message: { role: 'user', content: 'original', timestamp: 1 } });
  const reply = entry('message', 'a', 'u', {
    message: {
      role: 'assistant',
      content: [{ type: 'text', text: 'answer' }],
      provider: 'p',
      model: 'm',
      timestamp: 2,
    },
  });
  const omit = entry('context_edit', 'e1', 'a', { targetId: 'a', replacement: null });
  const replace = entry('context_edit', 'e2', 'e1', { targetId: 'u', replacement: { content: 'edited' } });

  it('leave an omitted entry out and replace the content of a replaced one', () => {
    const context = buildSessionContext([user, reply, omit, replace], 'e2');
    expect(context.messages).toEqual([{ role: 'user', content: 'edited', timestamp: 1 }]);
  });

  it('apply only on the path they are on: before the edit the original is sent again', () => {
    const context = buildSessionContext([user, reply, omit, replace], 'a');
    expect(context.messages.map((m) => (m as { content: unknown }).content)).toEqual([
      'original',
      [{ type: 'text', text: 'answer' }],
    ]);
  });

  it('make a string replacement of an assistant reply one text block', () => {
    const edit = entry('context_edit', 'e3', 'a', { targetId: 'a', replacement: { content: 'short' } });
    expect(projectContextEntry(reply, edit)).toEqual([
      { ...(reply.message as object), content: [{ type: 'text', text: 'short' }] },
    ]);
  });

  it('let the latest edit of a target on the path win', () => {
    const second = entry('context_edit', 'e33', 'e2', { targetId: 'u', replacement: { content: 'again' } });
    const context = buildSessionContext([user, reply, omit, replace, second], 'e33');
    expect(context.messages).toEqual([{ role: 'user', content: 'again', timestamp: 1 }]);
  });

  it('ignore a replacement that is neither null nor an object (a damaged line)', () => {
    const damaged = entry('context_edit', 'e4', 'a', { targetId: 'u', replacement: 'text' });
    expect(buildSessionContext([user, reply, damaged], 'e4').messages).toHaveLength(2);
  });
});

describe('system messages and compactions (pi 1.x)', () => {
  const system = { role: 'system', content: 'You are pi.', sections: { cwd: '/p' }, timestamp: 1 };
  const entries: SessionEntry[] = [
    { type: 'message', id: 's', parentId: null, timestamp: '2026-11-20T00:00:01.000Z', message: system },
    {
      type: 'message',
      id: 'u',
      parentId: 's',
      timestamp: '2026-11-20T00:00:02.000Z',
      message: { role: 'user', content: 'q', timestamp: 2 },
    },
    {
      type: 'compaction',
      id: 'c',
      parentId: 'u',
      timestamp: '2026-11-20T00:00:03.000Z',
      summary: 'sum',
      firstKeptEntryId: 's',
      tokensBefore: 10,
      systemMessage: { ...system, timestamp: 3 },
    },
  ];

  it('are sent as they are, and a compaction sends its stored system message before its summary', () => {
    expect(buildSessionContext(entries, 'u').messages.map((m) => m.role)).toEqual(['system', 'user']);
    // The kept system message gives way to the compaction's own.
    expect(buildSessionContext(entries, 'c').messages.map((m) => m.role)).toEqual([
      'system',
      'compactionSummary',
      'user',
    ]);
    expect(buildSessionContext(entries, 'c').messages[0]).toEqual({ ...system, timestamp: 3 });
    expect(convertToLlm(buildSessionContext(entries, 'c').messages)[0]?.role).toBe('system');
  });
});

describe('llmText: a wire message as the context view lists it', () => {
  it('lists text, thinking, tool calls and images, and a system message as its prompt and tool changes', () => {
    expect(
      llmText({
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'thinking', thinking: 'first the file' },
          { type: 'toolCall', id: 'c', name: 'read', arguments: { path: 'a.ts' } },
        ],
      } as never),
    ).toBe('Reading.\n[thinking] first the file\n[tool call] read({"path":"a.ts"})');
    expect(
      llmText({
        role: 'system',
        content: 'Base.',
        sections: { cwd: '<cwd>/p</cwd>', skills: null },
        toolsAdded: [{ name: 'read' }],
        toolsRemoved: [{ name: 'write' }],
        timestamp: 0,
      }),
    ).toBe(
      'Base.\n\n<cwd>/p</cwd>\n\n[sections removed] skills\n\n[tools added] read\n\n[tools removed] write',
    );
  });

  it('shows tool call arguments nested too deep for JSON.stringify as a note instead of throwing', () => {
    const deep = JSON.parse(`${'{"d":'.repeat(5000)}{}${'}'.repeat(5000)}`) as unknown;
    expect(
      llmText({
        role: 'assistant',
        content: [
          { type: 'text', text: 'Running.' },
          { type: 'toolCall', id: 'c', name: 'bash', arguments: deep },
        ],
      } as never),
    ).toBe(`Running.\n[tool call] bash(${ARGUMENTS_TOO_DEEP})`);
  });
});
