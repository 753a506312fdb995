import { describe, expect, it } from 'vitest';
import {
  BOOKKEEPING_ENTRY_TYPES,
  branchSummaryOrigin,
  detailSections,
  ENTRY_TYPES,
  entryKind,
  isOmpEntry,
  isPiOneEntry,
  KNOWN_ENTRY_TYPES,
  MESSAGE_ROLES,
  NEVER_SHOWN_ENTRY_TYPES,
  OMP_ENTRY_TYPES,
  rawUsageOf,
  usageNumbersOf,
} from './entry-types';
import type { DetailSection } from './detail-sections';
import { SessionLineParser } from './parse';
import { passesFilter, FILTER_MODES } from './tree-view/filter';
import { rowText, searchText, toViewEntries } from './tree-view/view-entry';
import type { SessionEntry } from './types';
import { entryFactory } from '../test/messages';

const entry = entryFactory('2026-11-20T00:00:00.000Z');
const noCalls = new Map<string, { name: string; arguments: unknown }>();
const usage = {
  input: 1,
  output: 2,
  cacheRead: 3,
  cacheWrite: 4,
  totalTokens: 10,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.5 },
};

function message(id: string, fields: Record<string, unknown>, parentId: string | null = null): SessionEntry {
  return entry('message', id, parentId, { message: { timestamp: 1, ...fields } });
}

function kinds(sections: DetailSection[]): string[] {
  return sections.map((section) => section.kind);
}

describe('the entry-type table', () => {
  it('is where the known types, the oh-my-pi types and the filter classes come from', () => {
    expect([...KNOWN_ENTRY_TYPES].sort()).toEqual(Object.keys(ENTRY_TYPES).sort());
    for (const type of ['context_edit', 'usage', 'message', 'session_info'])
      expect(KNOWN_ENTRY_TYPES.has(type)).toBe(true);
    expect(OMP_ENTRY_TYPES.has('ttsr_injection')).toBe(true);
    expect(OMP_ENTRY_TYPES.has('context_edit')).toBe(false);
    expect(BOOKKEEPING_ENTRY_TYPES.has('context_edit')).toBe(true);
    expect([...NEVER_SHOWN_ENTRY_TYPES]).toEqual(['usage']);
  });

  it('lets the parser take pi 1.x types without an unknown-type issue', () => {
    const parser = new SessionLineParser();
    const lines = [
      { type: 'session', version: 3, id: 's', timestamp: '2026-11-20T00:00:00.000Z', cwd: '/p' },
      { type: 'context_edit', id: 'a', parentId: null, timestamp: 't', targetId: 'x', replacement: null },
      {
        type: 'usage',
        id: 'b',
        parentId: 'a',
        timestamp: 't',
        kind: 'cache_warm',
        provider: 'p',
        model: 'm',
        usage,
      },
      { type: 'brand_new', id: 'c', parentId: 'b', timestamp: 't' },
    ];
    const batch = parser.push(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    expect(batch.entries).toHaveLength(3);
    expect(batch.issues.map((issue) => [issue.line, issue.kind])).toEqual([[4, 'unknown-type']]);
  });

  it('gives every known type and role a row that names it, never a blank one', () => {
    for (const type of KNOWN_ENTRY_TYPES) {
      if (type === 'message') continue;
      expect(rowText(entry(type, 'x', null), noCalls), type).not.toBe('');
    }
    for (const role of Object.keys(MESSAGE_ROLES)) {
      expect(rowText(message('m', { role }), noCalls), role).not.toBe('');
    }
  });
});

describe('pi 1.x rows, search and filters', () => {
  const omit = entry('context_edit', 'e1', null, { targetId: 'a1b2c3d4', replacement: null });
  const replace = entry('context_edit', 'e2', null, { targetId: 'a1b2c3d4', replacement: { content: 'x' } });
  const warm = entry('usage', 'w', null, {
    kind: 'cache_warm',
    provider: 'anthropic',
    model: 'claude',
    usage,
  });
  const system = message('s', { role: 'system', content: '', sections: { cwd: '/p' } });

  it('reads a context edit as pi 1.6 does and finds it by its action and target', () => {
    expect(rowText(omit, noCalls)).toBe('[context omit: a1b2c3d4]');
    expect(rowText(replace, noCalls)).toBe('[context replace: a1b2c3d4]');
    expect(searchText(omit)).toBe('context edit omit a1b2c3d4');
  });

  it('shows a system message as [system], in the default filter', () => {
    const [view] = toViewEntries([system], new Map());
    expect(view?.text).toBe('[system]');
    expect(searchText(system)).toBe('system');
    expect(passesFilter(view!, 'default', false)).toBe(true);
    expect(passesFilter(view!, 'no-tools', false)).toBe(true);
    expect(passesFilter(view!, 'user-only', false)).toBe(false);
  });

  it('hides a context edit in the default and no-tools filters only', () => {
    const [view] = toViewEntries([omit], new Map());
    const shown = FILTER_MODES.filter((mode) => passesFilter(view!, mode, false));
    expect(shown).toEqual(['all']);
    const [labelled] = toViewEntries([omit], new Map([['e1', 'mark']]));
    expect(FILTER_MODES.filter((mode) => passesFilter(labelled!, mode, false))).toEqual([
      'labeled-only',
      'all',
    ]);
  });

  it('hides a usage entry in every filter, even as the leaf and labelled', () => {
    const [view] = toViewEntries([warm], new Map([['w', 'mark']]));
    for (const mode of FILTER_MODES) expect(passesFilter(view!, mode, true), mode).toBe(false);
    expect(view?.text).toBe('[usage: cache_warm anthropic/claude]');
  });
});

describe('who wrote the file', () => {
  it('takes pi 1.x types, roles and fields as evidence of a pi 1.x file, and nothing 0.73 wrote', () => {
    const evidence = [
      entry('context_edit', 'a', null, { targetId: 'x', replacement: null }),
      entry('usage', 'b', null, { usage }),
      message('c', { role: 'system', content: '' }),
      message('d', { role: 'assistant', content: [], thinkingLevel: 'high' }),
      message('e', { role: 'assistant', content: [], stopReason: 'deferred' }),
      message('f', { role: 'toolResult', content: [], nestedCalls: { calls: [], complete: true } }),
      message('g', { role: 'toolResult', content: [], usage }),
      entry('compaction', 'h', null, { summary: 's', systemMessage: { role: 'system', content: '' } }),
      entry('branch_summary', 'i', null, { fromId: 'x', summary: 's', usage }),
    ];
    for (const e of evidence) expect(isPiOneEntry(e), e.id).toBe(true);
    const old = [
      message('j', { role: 'assistant', content: [], responseModel: 'm', responseId: 'r', diagnostics: [] }),
      message('k', { role: 'user', content: 'hi' }),
      entry('branch_summary', 'l', null, { fromId: 'x', summary: 's' }),
      entry('compaction', 'm', null, { summary: 's', firstKeptEntryId: 'x', tokensBefore: 1 }),
    ];
    for (const e of old) expect(isPiOneEntry(e), e.id).toBe(false);
    for (const e of [...evidence, ...old]) expect(isOmpEntry(e), e.id).toBe(false);
    expect(isOmpEntry(entry('mode_change', 'n', null, { mode: 'plan' }))).toBe(true);
  });
});

describe('branchSummaryOrigin: the two meanings of fromId', () => {
  const atParent = entry('branch_summary', 'b1', 'p1', { fromId: 'p1', summary: 's' });
  const fromLeft = entry('branch_summary', 'b2', 'p1', { fromId: 'leaf9', summary: 's' });
  const atRoot = entry('branch_summary', 'b3', null, { fromId: 'root', summary: 's' });

  it('reads a pi 0.73 summary (fromId = its own position) as the branch point', () => {
    expect(branchSummaryOrigin(atParent, { dialect: 'pi', piOne: false })).toEqual({
      meaning: 'branch-point',
      id: 'p1',
    });
    expect(branchSummaryOrigin(atRoot, { dialect: 'pi', piOne: false })).toEqual({
      meaning: 'branch-point',
      id: null,
    });
  });

  it('reads fromId as the leaf that was left in a pi 1.x file, or wherever it is not the summary’s position', () => {
    expect(branchSummaryOrigin(fromLeft, { dialect: 'pi', piOne: false })).toEqual({
      meaning: 'left-leaf',
      id: 'leaf9',
    });
    expect(branchSummaryOrigin(fromLeft, { dialect: 'pi', piOne: true })).toEqual({
      meaning: 'left-leaf',
      id: 'leaf9',
    });
    expect(branchSummaryOrigin(atRoot, { dialect: 'pi', piOne: true })).toEqual({
      meaning: 'left-leaf',
      id: null,
    });
  });

  it('reads an oh-my-pi summary as the branch point, its parent', () => {
    expect(branchSummaryOrigin(fromLeft, { dialect: 'omp', piOne: false })).toEqual({
      meaning: 'branch-point',
      id: 'p1',
    });
  });
});

describe('usage sources', () => {
  it('counts the usage of assistants, usage entries, tool results, compactions and branch summaries', () => {
    expect(rawUsageOf(message('a', { role: 'assistant', content: [], usage }))).toBe(usage);
    expect(rawUsageOf(entry('usage', 'b', null, { usage }))).toBe(usage);
    expect(rawUsageOf(message('c', { role: 'toolResult', content: [], usage }))).toBe(usage);
    expect(rawUsageOf(entry('compaction', 'd', null, { usage }))).toBe(usage);
    expect(rawUsageOf(entry('branch_summary', 'e', null, { usage }))).toBe(usage);
    expect(rawUsageOf(entry('model_usage', 'f', null, { usage }))).toBe(usage);
    // oh-my-pi: a task tool's subagent run.
    expect(
      rawUsageOf(message('g', { role: 'toolResult', toolName: 'task', content: [], details: { usage } })),
    ).toBe(usage);
    expect(rawUsageOf(message('h', { role: 'user', content: 'x', usage }))).toBeUndefined();
    expect(rawUsageOf(entry('label', 'i', null, { usage }))).toBeUndefined();
  });
});

describe('detail sections', () => {
  it('link a context edit to its target and show what is sent instead', () => {
    const sections = detailSections(
      entry('context_edit', 'e', null, { targetId: 't1', replacement: { content: 'shorter' } }),
    );
    expect(sections).toContainEqual({
      kind: 'entryLink',
      text: 'replaces',
      id: 't1',
      testId: 'detail.edit-target',
    });
    expect(sections).toContainEqual({ kind: 'content', content: 'shorter', as: 'markdown' });
    expect(
      kinds(detailSections(entry('context_edit', 'f', null, { targetId: 't1', replacement: null }))),
    ).toEqual(['note', 'entryLink']);
  });

  it('show an assistant reply’s thinking level, answering model, blocks and usage', () => {
    const sections = detailSections(
      message('a', {
        role: 'assistant',
        provider: 'anthropic',
        model: 'claude',
        responseModel: 'claude-2026',
        thinkingLevel: 'high',
        stopReason: 'stop',
        content: [{ type: 'text', text: 'hi' }],
        usage,
      }),
    );
    expect(sections[0]).toEqual({
      kind: 'meta',
      items: [
        { text: 'anthropic/claude', mono: true },
        { text: 'answered by claude-2026', mono: true, testId: 'detail.response-model' },
        { text: 'stop: stop' },
        { text: 'thinking: high', testId: 'detail.thinking-level' },
      ],
    });
    expect(kinds(sections)).toEqual(['meta', 'assistantContent', 'usage']);
  });

  it('show a tool result’s call, nested calls and own usage', () => {
    const call = { id: 'c1', name: 'code', arguments: {}, entryId: 'a' };
    const sections = detailSections(
      message('r', {
        role: 'toolResult',
        toolCallId: 'c1',
        toolName: 'code',
        content: [{ type: 'text', text: 'ok' }],
        isError: false,
        usage,
        nestedCalls: {
          calls: [{ id: 'n1', name: 'bash', argumentsBytes: 9000, status: 'ok' }],
          complete: false,
        },
      }),
      { toolCall: call },
    );
    expect(kinds(sections)).toEqual(['toolCall', 'toolResult', 'artifacts', 'nestedCalls', 'usage']);
    expect(sections[0]).toEqual({ kind: 'toolCall', call, callId: 'c1' });
    expect(sections[3]).toEqual({
      kind: 'nestedCalls',
      calls: [{ id: 'n1', name: 'bash', argumentsBytes: 9000, status: 'ok' }],
      complete: false,
    });
  });

  it('show a system message’s sections and tool changes, and a compaction’s stored system message and usage', () => {
    const system = {
      role: 'system',
      content: 'base',
      sections: { cwd: '/p', skills: null },
      toolsAdded: [{ name: 'read', description: 'Read a file', parameters: {} }],
      toolsRemoved: [{ name: 'write' }],
    };
    const prompt = {
      kind: 'systemPrompt',
      content: 'base',
      sections: [
        { name: 'cwd', text: '/p' },
        { name: 'skills', text: null },
      ],
      toolsAdded: [{ name: 'read', description: 'Read a file' }],
      toolsRemoved: ['write'],
    };
    expect(detailSections(message('s', system))).toContainEqual(prompt);
    const compaction = detailSections(
      entry('compaction', 'c', 'p', {
        summary: 's',
        firstKeptEntryId: 'c',
        tokensBefore: 1200,
        usage,
        systemMessage: system,
      }),
    );
    expect(kinds(compaction)).toEqual(['meta', 'note', 'markdown', 'usage', 'note', 'systemPrompt']);
    expect(compaction).toContainEqual(prompt);
  });

  it('link a branch summary to what its fromId names in this file', () => {
    const summary = entry('branch_summary', 'b', 'p', { fromId: 'leaf', summary: 'went nowhere', usage });
    const sections = detailSections(summary, { summaryOrigin: { meaning: 'left-leaf', id: 'leaf' } });
    expect(sections[0]).toEqual({
      kind: 'entryLink',
      text: 'summarises the branch left at',
      id: 'leaf',
      testId: 'detail.summary-from',
    });
    expect(kinds(sections)).toEqual(['entryLink', 'markdown', 'usage']);
  });

  it('say when a type is not known', () => {
    expect(detailSections(entry('brand_new', 'x', null))[0]).toMatchObject({
      kind: 'note',
      testId: 'detail.unknown-type',
    });
  });
});

describe('entryKind', () => {
  it('colours an entry by its role or type', () => {
    expect(entryKind('message', 'user')).toBe('user');
    expect(entryKind('message', 'system')).toBe('settings');
    expect(entryKind('message', 'mystery')).toBe('other');
    expect(entryKind('context_edit', undefined)).toBe('settings');
    expect(entryKind('compaction', undefined)).toBe('summary');
    expect(entryKind('brand_new', undefined)).toBe('other');
  });
});

describe('usageNumbersOf, the usage each tree node carries', () => {
  const entry = (fields: Record<string, unknown>) =>
    ({
      id: 'u1',
      parentId: null,
      timestamp: '2025-01-01T00:00:00.000Z',
      ...fields,
    }) as unknown as SessionEntry;
  const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0 };

  it("counts an assistant message's numbers, each one that is not a finite number as 0", () => {
    const usage = {
      input: 10,
      output: Number.NaN,
      cacheRead: '5',
      cacheWrite: Number.POSITIVE_INFINITY,
      totalTokens: 12.5,
      cost: { total: 0.25 },
    };
    expect(
      usageNumbersOf(entry({ type: 'message', message: { role: 'assistant', content: [], usage } })),
    ).toEqual({
      ...zero,
      input: 10,
      totalTokens: 12.5,
      cost: 0.25,
    });
    // A cost that is missing, not an object, or without a number: 0.
    for (const cost of [undefined, 3, 'x', null, { total: 'much' }])
      expect(
        usageNumbersOf(
          entry({ type: 'message', message: { role: 'assistant', content: [], usage: { input: 1, cost } } }),
        ),
      ).toEqual({ ...zero, input: 1 });
  });

  it("counts a model_usage side call's and a task tool result's subagent usage, and nothing else", () => {
    expect(usageNumbersOf(entry({ type: 'model_usage', usage: { output: 7, cost: { total: 1 } } }))).toEqual({
      ...zero,
      output: 7,
      cost: 1,
    });
    const taskResult = {
      role: 'toolResult',
      toolName: 'task',
      content: [],
      details: { usage: { cacheRead: 3 } },
    };
    expect(usageNumbersOf(entry({ type: 'message', message: taskResult }))).toEqual({
      ...zero,
      cacheRead: 3,
    });
    expect(
      usageNumbersOf(entry({ type: 'message', message: { ...taskResult, toolName: 'bash' } })),
    ).toBeUndefined();
    expect(
      usageNumbersOf(
        entry({ type: 'message', message: { role: 'user', content: 'hi', usage: { input: 1 } } }),
      ),
    ).toBeUndefined();
    expect(
      usageNumbersOf(entry({ type: 'message', message: { role: 'assistant', content: [], usage: 'lots' } })),
    ).toBeUndefined();
    expect(usageNumbersOf(entry({ type: 'label', targetId: 'x', label: 'y' }))).toBeUndefined();
  });
});
