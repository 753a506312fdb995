import { describe, expect, it } from 'vitest';
import {
  BRANCH_SUMMARY_LEAD_IN,
  COMPACTION_SUMMARY_LEAD_IN,
  bashExecutionToText,
  branchSummaryToText,
  buildSessionContext,
  compactionSummaryToText,
  convertToLlm,
  estimateContextTokens,
  fileMentionToText,
  pathToRoot,
  splitModelString,
} from './context';
import type {
  AgentMessage,
  AssistantMessage,
  BashExecutionMessage,
  SessionEntry,
  StoredMessage,
  UserMessage,
} from './types';
import { testUsage } from '../test/messages';

// ---------------------------------------------------------------- helpers (as in docs/reference-tests.md#build-context)

let clock = Date.parse('2025-01-01T00:00:00.000Z');
function nextTimestamp(): string {
  clock += 1000;
  return new Date(clock).toISOString();
}

function assistantMessage(text: string, provider = 'anthropic', model = 'claude-test'): AssistantMessage {
  return {
    role: 'assistant',
    content: [{ type: 'text', text }],
    api: 'anthropic-messages',
    provider,
    model,
    usage: testUsage(),
    stopReason: 'stop',
    timestamp: 0,
  };
}

function msg(id: string, parentId: string | null, role: 'user' | 'assistant', text: string): SessionEntry {
  const message: StoredMessage =
    role === 'user' ? { role: 'user', content: text, timestamp: 0 } : assistantMessage(text);
  return { type: 'message', id, parentId, timestamp: nextTimestamp(), message };
}

function compaction(
  id: string,
  parentId: string | null,
  summary: string,
  firstKeptEntryId: string,
): SessionEntry {
  return {
    type: 'compaction',
    id,
    parentId,
    timestamp: nextTimestamp(),
    summary,
    firstKeptEntryId,
    tokensBefore: 1000,
  };
}

function branchSummary(id: string, parentId: string | null, summary: string, fromId: string): SessionEntry {
  return { type: 'branch_summary', id, parentId, timestamp: nextTimestamp(), summary, fromId };
}

function entry(
  type: string,
  id: string,
  parentId: string | null,
  fields: Record<string, unknown> = {},
): SessionEntry {
  return { type, id, parentId, timestamp: nextTimestamp(), ...fields };
}

/** A short text form of each context message, to compare whole sequences exactly. */
function describeMessage(message: AgentMessage): string {
  const m = message as Record<string, unknown>;
  switch (m.role) {
    case 'user':
      return `user:${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`;
    case 'assistant':
      return `assistant:${((m.content as { text: string }[])[0] as { text: string }).text}`;
    case 'compactionSummary':
    case 'branchSummary':
      return `${String(m.role)}:${String(m.summary)}`;
    default:
      return String(m.role);
  }
}

function texts(entries: SessionEntry[], leafId?: string | null): string[] {
  return buildSessionContext(entries, leafId).messages.map(describeMessage);
}

// ---------------------------------------------------------------- docs/reference-tests.md#build-context

describe('buildSessionContext (reference build-context cases)', () => {
  it('gives the empty context for no entries', () => {
    expect(buildSessionContext([])).toEqual({
      messages: [],
      thinkingLevel: 'off',
      model: null,
      models: {},
      injectedTtsrRules: [],
      mode: 'none',
    });
  });

  it('gives one user message for a single user entry', () => {
    expect(texts([msg('1', null, 'user', 'hello')])).toEqual(['user:hello']);
  });

  it('gives user, assistant, user, assistant for a simple conversation', () => {
    const entries = [
      msg('1', null, 'user', 'q1'),
      msg('2', '1', 'assistant', 'r1'),
      msg('3', '2', 'user', 'q2'),
      msg('4', '3', 'assistant', 'r2'),
    ];
    expect(buildSessionContext(entries).messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('tracks thinking level changes and emits no message for them', () => {
    const entries = [
      msg('1', null, 'user', 'q'),
      entry('thinking_level_change', '2', '1', { thinkingLevel: 'high' }),
      msg('3', '2', 'assistant', 'r'),
    ];
    const context = buildSessionContext(entries);
    expect(context.thinkingLevel).toBe('high');
    expect(context.messages).toHaveLength(2);
  });

  it('tracks the model from an assistant message in both shapes', () => {
    const context = buildSessionContext([msg('1', null, 'user', 'q'), msg('2', '1', 'assistant', 'r')]);
    expect(context.model).toEqual({ provider: 'anthropic', modelId: 'claude-test' });
    expect(context.models).toEqual({ default: 'anthropic/claude-test' });
  });

  it('lets a later assistant message override an earlier pi model_change', () => {
    const entries = [
      msg('1', null, 'user', 'q'),
      entry('model_change', '2', '1', { provider: 'openai', modelId: 'gpt-4' }),
      msg('3', '2', 'assistant', 'r'),
    ];
    const context = buildSessionContext(entries);
    expect(context.model).toEqual({ provider: 'anthropic', modelId: 'claude-test' });
    expect(context.models).toEqual({ default: 'anthropic/claude-test' });
  });

  it('emits the compaction summary, then the kept entries, then what follows', () => {
    const entries = [
      msg('1', null, 'user', 'first'),
      msg('2', '1', 'assistant', 'response1'),
      msg('3', '2', 'user', 'second'),
      msg('4', '3', 'assistant', 'response2'),
      compaction('5', '4', 'Summary of first', '3'),
      msg('6', '5', 'user', 'third'),
      msg('7', '6', 'assistant', 'response3'),
    ];
    expect(texts(entries)).toEqual([
      'compactionSummary:Summary of first',
      'user:second',
      'assistant:response2',
      'user:third',
      'assistant:response3',
    ]);
  });

  it('keeps everything before a compaction that keeps from the first message', () => {
    const entries = [
      msg('1', null, 'user', 'first'),
      msg('2', '1', 'assistant', 'response1'),
      compaction('3', '2', 'Summary', '1'),
      msg('4', '3', 'user', 'second'),
    ];
    expect(texts(entries)).toEqual([
      'compactionSummary:Summary',
      'user:first',
      'assistant:response1',
      'user:second',
    ]);
  });

  it('uses only the latest of several compactions and drops the earlier summary', () => {
    const entries = [
      msg('1', null, 'user', 'a'),
      msg('2', '1', 'assistant', 'b'),
      compaction('3', '2', 'First summary', '1'),
      msg('4', '3', 'user', 'c'),
      msg('5', '4', 'assistant', 'd'),
      compaction('6', '5', 'Second summary', '4'),
      msg('7', '6', 'user', 'e'),
    ];
    expect(texts(entries)).toEqual(['compactionSummary:Second summary', 'user:c', 'assistant:d', 'user:e']);
  });

  it('follows the path to the given leaf', () => {
    const entries = [
      msg('1', null, 'user', 'start'),
      msg('2', '1', 'assistant', 'r1'),
      msg('3', '2', 'user', 'branch A'),
      msg('4', '2', 'user', 'branch B'),
    ];
    expect(texts(entries, '3')).toEqual(['user:start', 'assistant:r1', 'user:branch A']);
    expect(texts(entries, '4')).toEqual(['user:start', 'assistant:r1', 'user:branch B']);
  });

  it('includes a branch summary on the path as a branchSummary message', () => {
    const entries = [
      msg('1', null, 'user', 'start'),
      msg('2', '1', 'assistant', 'r1'),
      msg('3', '2', 'user', 'abandoned'),
      branchSummary('4', '2', 'Summary of abandoned work', '3'),
      msg('5', '4', 'user', 'new direction'),
    ];
    const context = buildSessionContext(entries, '5');
    expect(context.messages.map(describeMessage)).toEqual([
      'user:start',
      'assistant:r1',
      'branchSummary:Summary of abandoned work',
      'user:new direction',
    ]);
    expect(context.messages[2]).toEqual({
      role: 'branchSummary',
      summary: 'Summary of abandoned work',
      fromId: '3',
      timestamp: Date.parse((entries[3] as SessionEntry).timestamp),
    });
  });

  it('handles a complex tree with a compaction on one branch and a branch summary on another', () => {
    const entries = [
      msg('1', null, 'user', 'start'),
      msg('2', '1', 'assistant', 'r1'),
      msg('3', '2', 'user', 'q2'),
      msg('4', '3', 'assistant', 'r2'),
      compaction('5', '4', 'Compacted history', '3'),
      msg('6', '5', 'user', 'q3'),
      msg('7', '6', 'assistant', 'r3'),
      msg('8', '3', 'user', 'wrong approach'),
      msg('9', '8', 'assistant', 'wrong response'),
      branchSummary('10', '3', 'Tried wrong approach', '9'),
      msg('11', '10', 'user', 'better approach'),
    ];
    expect(texts(entries, '7')).toEqual([
      'compactionSummary:Compacted history',
      'user:q2',
      'assistant:r2',
      'user:q3',
      'assistant:r3',
    ]);
    expect(texts(entries, '11')).toEqual([
      'user:start',
      'assistant:r1',
      'user:q2',
      'branchSummary:Tried wrong approach',
      'user:better approach',
    ]);
  });

  it('uses the last entry when the leaf id is not found', () => {
    const entries = [msg('1', null, 'user', 'q'), msg('2', '1', 'assistant', 'r')];
    expect(texts(entries, 'nonexistent')).toEqual(['user:q', 'assistant:r']);
  });

  it('stops the path at an orphan whose parent is missing', () => {
    const entries = [msg('1', null, 'user', 'q'), msg('2', 'missing', 'assistant', 'orphan')];
    expect(texts(entries, '2')).toEqual(['assistant:orphan']);
  });
});

// ---------------------------------------------------------------- more of docs/tree-and-context.md#context

describe('buildSessionContext (leaf choice and message conversion)', () => {
  const entries = [msg('1', null, 'user', 'q'), msg('2', '1', 'assistant', 'r')];

  it('gives the empty context for an explicit null leaf even with entries', () => {
    const context = buildSessionContext(entries, null);
    expect(context.messages).toEqual([]);
    expect(context.model).toBeNull();
    expect(context.thinkingLevel).toBe('off');
  });

  it('uses the last entry for an undefined or empty-string leaf', () => {
    expect(texts(entries)).toEqual(['user:q', 'assistant:r']);
    expect(texts(entries, '')).toEqual(['user:q', 'assistant:r']);
  });

  it('uses the index passed in instead of the entries for the path walk', () => {
    const other = msg('x', null, 'user', 'only in index');
    const leaf = msg('y', 'x', 'assistant', 'leaf');
    const byId = new Map<string, SessionEntry>([
      ['x', other],
      ['y', leaf],
    ]);
    expect(buildSessionContext([leaf], 'y', byId).messages.map(describeMessage)).toEqual([
      'user:only in index',
      'assistant:leaf',
    ]);
  });

  it('turns a custom_message entry into a custom message timed by the entry', () => {
    const custom = entry('custom_message', '2', '1', {
      customType: 'note',
      content: [{ type: 'text', text: 'injected' }],
      display: false,
      details: { k: 1 },
    });
    const context = buildSessionContext([msg('1', null, 'user', 'q'), custom]);
    expect(context.messages[1]).toEqual({
      role: 'custom',
      customType: 'note',
      content: [{ type: 'text', text: 'injected' }],
      display: false,
      details: { k: 1 },
      timestamp: Date.parse(custom.timestamp),
    });
  });

  it('passes a message entry of any role through as the same object', () => {
    const bash: BashExecutionMessage = {
      role: 'bashExecution',
      command: 'ls',
      output: 'a',
      exitCode: 0,
      cancelled: false,
      truncated: false,
      timestamp: 5,
    };
    const developer = { role: 'developer', content: 'x', timestamp: 6 };
    const entries2 = [
      entry('message', '1', null, { message: bash }),
      entry('message', '2', '1', { message: developer }),
    ];
    const messages = buildSessionContext(entries2).messages;
    expect(messages[0]).toBe(bash);
    expect(messages[1]).toBe(developer);
  });

  it('skips a branch summary with an empty summary', () => {
    const entries2 = [
      msg('1', null, 'user', 'q'),
      branchSummary('2', '1', '', '1'),
      msg('3', '2', 'user', 'next'),
    ];
    expect(texts(entries2)).toEqual(['user:q', 'user:next']);
  });

  it('emits no message for settings, custom, label, session_info, ttsr, mode and unknown entries', () => {
    const entries2 = [
      msg('1', null, 'user', 'q'),
      entry('thinking_level_change', '2', '1', { thinkingLevel: 'low' }),
      entry('model_change', '3', '2', { provider: 'openai', modelId: 'gpt-4' }),
      entry('custom', '4', '3', { customType: 'state', data: { a: 1 } }),
      entry('label', '5', '4', { targetId: '1', label: 'l' }),
      entry('session_info', '6', '5', { name: 'n' }),
      entry('ttsr_injection', '7', '6', { injectedRules: ['r'] }),
      entry('mode_change', '8', '7', { mode: 'plan' }),
      entry('future_type', '9', '8', { payload: 1 }),
      msg('10', '9', 'assistant', 'r'),
    ];
    expect(texts(entries2)).toEqual(['user:q', 'assistant:r']);
  });

  it('keeps nothing before the compaction when its first kept entry is not on the path', () => {
    const entries2 = [
      msg('1', null, 'user', 'a'),
      msg('2', '1', 'assistant', 'b'),
      compaction('3', '2', 'S', 'elsewhere'),
      msg('4', '3', 'user', 'c'),
    ];
    expect(texts(entries2)).toEqual(['compactionSummary:S', 'user:c']);
  });

  it('emits the compaction summary message with tokensBefore and the entry time', () => {
    const c = compaction('2', '1', 'S', '1');
    const first = buildSessionContext([msg('1', null, 'user', 'a'), c]).messages[0];
    expect(first).toEqual({
      role: 'compactionSummary',
      summary: 'S',
      tokensBefore: 1000,
      timestamp: Date.parse(c.timestamp),
    });
  });

  it('keeps entries of every type from the first kept one, including a branch summary before the compaction', () => {
    const entries2 = [
      msg('1', null, 'user', 'a'),
      branchSummary('2', '1', 'earlier branch', 'x'),
      msg('3', '2', 'user', 'b'),
      compaction('4', '3', 'S', '2'),
    ];
    expect(texts(entries2)).toEqual(['compactionSummary:S', 'branchSummary:earlier branch', 'user:b']);
  });

  it('terminates on a parent cycle and keeps each cycle member once', () => {
    const a = msg('a', 'b', 'user', 'in cycle a');
    const b = msg('b', 'a', 'assistant', 'in cycle b');
    expect(texts([a, b], 'a')).toEqual(['assistant:in cycle b', 'user:in cycle a']);
    const self = msg('s', 's', 'user', 'self parent');
    expect(texts([self], 's')).toEqual(['user:self parent']);
  });

  it('builds the context of a 200,000-entry chain', () => {
    const chain: SessionEntry[] = [];
    for (let i = 0; i < 200_000; i++) {
      chain.push({
        type: 'message',
        id: `e${i}`,
        parentId: i === 0 ? null : `e${i - 1}`,
        timestamp: '2025-01-01T00:00:00.000Z',
        message: { role: 'user', content: `m${i}`, timestamp: i },
      });
    }
    const context = buildSessionContext(chain);
    expect(context.messages).toHaveLength(200_000);
    expect((context.messages[0] as UserMessage).content).toBe('m0');
    expect((context.messages[199_999] as UserMessage).content).toBe('m199999');
  });
});

describe('pathToRoot', () => {
  it('returns the path root first and stops at an empty-string parent', () => {
    const a = msg('a', null, 'user', 'a');
    const b = msg('b', 'a', 'user', 'b');
    const c = msg('c', '', 'user', 'c');
    const byId = new Map([a, b, c].map((e) => [e.id, e] as const));
    expect(pathToRoot(b, byId).map((e) => e.id)).toEqual(['a', 'b']);
    expect(pathToRoot(c, byId).map((e) => e.id)).toEqual(['c']);
  });
});

// ---------------------------------------------------------------- settings, oh-my-pi dialect

describe('buildSessionContext (settings of both dialects)', () => {
  it('fills the models map by role from oh-my-pi model_change entries and the pi model from the default role', () => {
    const entries = [
      msg('1', null, 'user', 'q'),
      entry('model_change', '2', '1', { model: 'openai/gpt-4o/mini' }),
      entry('model_change', '3', '2', { model: 'google/gemini-flash', role: 'smol' }),
    ];
    const context = buildSessionContext(entries);
    expect(context.models).toEqual({ default: 'openai/gpt-4o/mini', smol: 'google/gemini-flash' });
    expect(context.model).toEqual({ provider: 'openai', modelId: 'gpt-4o/mini' });
  });

  it('does not change the pi model for a non-default role', () => {
    const entries = [
      msg('1', null, 'user', 'q'),
      msg('2', '1', 'assistant', 'r'),
      entry('model_change', '3', '2', { model: 'google/gemini-flash', role: 'slow' }),
    ];
    const context = buildSessionContext(entries);
    expect(context.model).toEqual({ provider: 'anthropic', modelId: 'claude-test' });
    expect(context.models).toEqual({ default: 'anthropic/claude-test', slow: 'google/gemini-flash' });
  });

  it('lets a later assistant message override an oh-my-pi default model_change (oh-my-pi 5.x)', () => {
    const entries = [
      msg('1', null, 'user', 'q'),
      entry('model_change', '2', '1', { model: 'openai/gpt-4' }),
      msg('3', '2', 'assistant', 'r'),
    ];
    expect(buildSessionContext(entries).models).toEqual({ default: 'anthropic/claude-test' });
  });

  it('lets a model_change after the assistant message win', () => {
    const entries = [
      msg('1', null, 'user', 'q'),
      msg('2', '1', 'assistant', 'r'),
      entry('model_change', '3', '2', { provider: 'openai', modelId: 'gpt-4' }),
    ];
    const context = buildSessionContext(entries);
    expect(context.model).toEqual({ provider: 'openai', modelId: 'gpt-4' });
    expect(context.models).toEqual({ default: 'openai/gpt-4' });
  });

  it('ignores model settings that are off the path', () => {
    const entries = [
      msg('1', null, 'user', 'q'),
      entry('model_change', '2', '1', { provider: 'openai', modelId: 'gpt-4' }),
      entry('thinking_level_change', '3', '1', { thinkingLevel: 'high' }),
    ];
    const context = buildSessionContext(entries, '3');
    expect(context.model).toBeNull();
    expect(context.models).toEqual({});
    expect(context.thinkingLevel).toBe('high');
  });

  it('treats an oh-my-pi null thinking level as "off"', () => {
    const entries = [
      entry('thinking_level_change', '1', null, { thinkingLevel: 'high' }),
      entry('thinking_level_change', '2', '1', { thinkingLevel: null }),
    ];
    expect(buildSessionContext(entries).thinkingLevel).toBe('off');
  });

  it('deduplicates injected ttsr rules in first-seen order', () => {
    const entries = [
      entry('ttsr_injection', '1', null, { injectedRules: ['b', 'a'] }),
      entry('ttsr_injection', '2', '1', { injectedRules: ['a', 'c', 'b'] }),
    ];
    expect(buildSessionContext(entries).injectedTtsrRules).toEqual(['b', 'a', 'c']);
  });

  it('takes mode and mode data from the last mode_change, clearing data a later change lacks', () => {
    const entries = [
      entry('mode_change', '1', null, { mode: 'plan', data: { planFile: 'plan.md' } }),
      msg('2', '1', 'user', 'q'),
    ];
    const planned = buildSessionContext(entries);
    expect(planned.mode).toBe('plan');
    expect(planned.modeData).toEqual({ planFile: 'plan.md' });

    entries.push(entry('mode_change', '3', '2', { mode: 'none' }));
    const cleared = buildSessionContext(entries);
    expect(cleared.mode).toBe('none');
    expect(cleared.modeData).toBeUndefined();
  });

  it('splits a model string at the first slash only', () => {
    expect(splitModelString('openrouter/meta/llama')).toEqual({
      provider: 'openrouter',
      modelId: 'meta/llama',
    });
    expect(splitModelString('noslash')).toBeNull();
  });
});

// ---------------------------------------------------------------- wire form

const bashBase: BashExecutionMessage = {
  role: 'bashExecution',
  command: 'npm test',
  output: 'ok',
  exitCode: 0,
  cancelled: false,
  truncated: false,
  timestamp: 42,
};

describe('bashExecutionToText', () => {
  it('fences the output of a successful command', () => {
    expect(bashExecutionToText(bashBase)).toBe('Ran `npm test`\n```\nok\n```');
  });

  it('says "(no output)" when there is no output', () => {
    expect(bashExecutionToText({ ...bashBase, output: '' })).toBe('Ran `npm test`\n(no output)');
  });

  it('notes a non-zero exit code', () => {
    expect(bashExecutionToText({ ...bashBase, exitCode: 2 })).toBe(
      'Ran `npm test`\n```\nok\n```\n\nCommand exited with code 2',
    );
  });

  it('notes cancellation instead of the exit code', () => {
    expect(bashExecutionToText({ ...bashBase, cancelled: true, exitCode: 130 })).toBe(
      'Ran `npm test`\n```\nok\n```\n\n(command cancelled)',
    );
  });

  it('says nothing about an undefined exit code', () => {
    expect(bashExecutionToText({ ...bashBase, exitCode: undefined })).toBe('Ran `npm test`\n```\nok\n```');
  });

  it('points at the full output of a truncated run only when the path exists', () => {
    expect(
      bashExecutionToText({ ...bashBase, truncated: true, fullOutputPath: '/tmp/out.log', exitCode: 1 }),
    ).toBe(
      'Ran `npm test`\n```\nok\n```\n\nCommand exited with code 1\n\n[Output truncated. Full output: /tmp/out.log]',
    );
    expect(bashExecutionToText({ ...bashBase, truncated: true })).toBe('Ran `npm test`\n```\nok\n```');
  });
});

describe('summary text forms', () => {
  it('wraps a branch summary with no newline before the closing tag', () => {
    expect(branchSummaryToText('did X')).toBe(
      'The following is a summary of a branch that this conversation came back from:\n\n<summary>\ndid X</summary>',
    );
    expect(BRANCH_SUMMARY_LEAD_IN).toBe(
      'The following is a summary of a branch that this conversation came back from:',
    );
  });

  it('wraps a compaction summary with a newline before the closing tag', () => {
    expect(compactionSummaryToText('did Y')).toBe(
      'The conversation history before this point was compacted into the following summary:\n\n<summary>\ndid Y\n</summary>',
    );
    expect(COMPACTION_SUMMARY_LEAD_IN).toBe(
      'The conversation history before this point was compacted into the following summary:',
    );
  });

  it('wraps mentioned files in a system reminder, one file block each', () => {
    expect(
      fileMentionToText([
        { path: 'a.ts', content: 'const a = 1;' },
        { path: 'empty.txt', content: '' },
      ]),
    ).toBe(
      '<system-reminder>\n<file path="a.ts">\nconst a = 1;\n</file>\n\n<file path="empty.txt">\n</file>\n</system-reminder>',
    );
  });
});

describe('convertToLlm', () => {
  it('passes user, assistant and toolResult messages through unchanged', () => {
    const user: UserMessage = { role: 'user', content: 'q', timestamp: 1 };
    const assistant = assistantMessage('r');
    const toolResult = {
      role: 'toolResult' as const,
      toolCallId: 't1',
      toolName: 'read',
      content: [{ type: 'text' as const, text: 'file' }],
      isError: false,
      timestamp: 3,
    };
    const converted = convertToLlm([user, assistant, toolResult]);
    expect(converted).toHaveLength(3);
    expect(converted[0]).toBe(user);
    expect(converted[1]).toBe(assistant);
    expect(converted[2]).toBe(toolResult);
  });

  it('turns a bash execution into a user text message and drops an excluded one', () => {
    expect(convertToLlm([bashBase, { ...bashBase, excludeFromContext: true }])).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Ran `npm test`\n```\nok\n```' }], timestamp: 42 },
    ]);
  });

  it('turns custom and hookMessage messages into user messages with their content', () => {
    const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };
    expect(
      convertToLlm([
        { role: 'custom', customType: 'k', content: 'note', display: true, timestamp: 7 },
        {
          role: 'hookMessage',
          customType: 'k',
          content: [{ type: 'text', text: 'x' }, image],
          display: false,
          timestamp: 8,
        },
      ]),
    ).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'note' }], timestamp: 7 },
      { role: 'user', content: [{ type: 'text', text: 'x' }, image], timestamp: 8 },
    ]);
  });

  it('turns summaries into user messages with their lead-ins', () => {
    expect(
      convertToLlm([
        { role: 'branchSummary', summary: 'B', fromId: 'x', timestamp: 1 },
        { role: 'compactionSummary', summary: 'C', tokensBefore: 10, timestamp: 2 },
      ]),
    ).toEqual([
      { role: 'user', content: [{ type: 'text', text: branchSummaryToText('B') }], timestamp: 1 },
      { role: 'user', content: [{ type: 'text', text: compactionSummaryToText('C') }], timestamp: 2 },
    ]);
  });

  it('turns a file mention into a system reminder followed by the image blocks', () => {
    const image = { type: 'image', data: 'AAAA', mimeType: 'image/png' };
    expect(
      convertToLlm([
        {
          role: 'fileMention',
          files: [
            { path: 'a.txt', content: 'A', lineCount: 1 },
            { path: 'p.png', content: '', image },
          ],
          timestamp: 9,
        },
      ]),
    ).toEqual([
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: '<system-reminder>\n<file path="a.txt">\nA\n</file>\n\n<file path="p.png">\n</file>\n</system-reminder>',
          },
          image,
        ],
        timestamp: 9,
      },
    ]);
  });

  it('drops roles that never reach the model', () => {
    expect(convertToLlm([{ role: 'developer', content: 'x', timestamp: 1 }])).toEqual([]);
  });
});

describe('estimateContextTokens', () => {
  it('sums the per-message estimates', () => {
    const messages: AgentMessage[] = [
      { role: 'user', content: 'abcde', timestamp: 0 },
      { role: 'compactionSummary', summary: 'abcd', tokensBefore: 1, timestamp: 0 },
    ];
    expect(estimateContextTokens(messages)).toBe(3);
  });
});
