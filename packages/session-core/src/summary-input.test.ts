import { describe, expect, it } from 'vitest';
import { convertToLlm, type LlmMessage } from './context';
import {
  BRANCH_SUMMARY_PREAMBLE,
  computeFileLists,
  collectFileOperations,
  createFileOperations,
  formatFileListsSuffix,
  prepareBranchEntries,
  serializeConversation,
} from './summary-input';
import type { AgentMessage, SessionEntry } from './types';
import { entryFactory } from '../test/messages';

const entry = entryFactory();

function messageEntry(id: string, message: Record<string, unknown>): SessionEntry {
  return entry('message', id, null, { message: { timestamp: 0, ...message } });
}

function toolCall(name: string, args: Record<string, unknown>) {
  return { type: 'toolCall', id: `call-${name}`, name, arguments: args };
}

function roles(messages: AgentMessage[]): string[] {
  return messages.map((m) => m.role);
}

describe('prepareBranchEntries', () => {
  it('skips tool results and entries without conversation content', () => {
    const entries = [
      messageEntry('1', { role: 'user', content: 'q' }),
      messageEntry('2', { role: 'assistant', content: [toolCall('read', { path: 'a.ts' })] }),
      messageEntry('3', {
        role: 'toolResult',
        toolCallId: 'x',
        toolName: 'read',
        content: [],
        isError: false,
      }),
      entry('thinking_level_change', '4', null, { thinkingLevel: 'high' }),
      entry('model_change', '5', null, { provider: 'p', modelId: 'm' }),
      entry('custom', '6', null, { customType: 'k' }),
      entry('label', '7', null, { targetId: '1', label: 'l' }),
      entry('custom_message', '8', null, { customType: 'k', content: 'note', display: true }),
      entry('branch_summary', '9', null, { summary: 'bs', fromId: '1' }),
      entry('compaction', '10', null, { summary: 'cs', firstKeptEntryId: '1', tokensBefore: 3 }),
    ];
    const { messages } = prepareBranchEntries(entries, 0);
    expect(roles(messages)).toEqual(['user', 'assistant', 'custom', 'branchSummary', 'compactionSummary']);
  });

  it('keeps the newest messages that fit the budget, in chronological order', () => {
    // Each user message of 40 characters estimates at 10 tokens.
    const entries = ['a', 'b', 'c', 'd'].map((ch, i) =>
      messageEntry(`${i}`, { role: 'user', content: ch.repeat(40) }),
    );
    const { messages, totalTokens } = prepareBranchEntries(entries, 25);
    expect(messages.map((m) => (m as { content: string }).content[0])).toEqual(['c', 'd']);
    expect(totalTokens).toBe(20);
  });

  it('keeps every message and counts all tokens with no budget', () => {
    const entries = ['a', 'b'].map((ch, i) => messageEntry(`${i}`, { role: 'user', content: ch.repeat(40) }));
    const { messages, totalTokens } = prepareBranchEntries(entries, 0);
    expect(messages).toHaveLength(2);
    expect(totalTokens).toBe(20);
  });

  it('still keeps a summary that exceeds the budget while the total is under 90% of it, then stops', () => {
    const entries = [
      messageEntry('0', { role: 'user', content: 'z'.repeat(40) }),
      entry('branch_summary', '1', null, { summary: 's'.repeat(400), fromId: 'x' }),
      messageEntry('2', { role: 'user', content: 'a'.repeat(40) }),
    ];
    // budget 100: the user message takes 10, the 100-token summary does not fit but 10 < 90.
    const { messages, totalTokens } = prepareBranchEntries(entries, 100);
    expect(roles(messages)).toEqual(['branchSummary', 'user']);
    expect(totalTokens).toBe(110);
  });

  it('drops a summary that does not fit once the total reaches 90% of the budget', () => {
    const entries = [
      entry('compaction', '1', null, { summary: 's'.repeat(400), firstKeptEntryId: 'x', tokensBefore: 1 }),
      messageEntry('2', { role: 'user', content: 'a'.repeat(360) }),
    ];
    // budget 100: the user message takes 90, which is not below 90.
    const { messages, totalTokens } = prepareBranchEntries(entries, 100);
    expect(roles(messages)).toEqual(['user']);
    expect(totalTokens).toBe(90);
  });

  it('does not keep an ordinary message that exceeds the budget', () => {
    const entries = [
      messageEntry('1', { role: 'user', content: 'b'.repeat(400) }),
      messageEntry('2', { role: 'user', content: 'a'.repeat(40) }),
    ];
    expect(roles(prepareBranchEntries(entries, 100).messages)).toEqual(['user']);
  });

  it('merges files from earlier non-extension branch summaries only', () => {
    const entries = [
      entry('branch_summary', '1', null, {
        summary: 'mine',
        fromId: 'x',
        details: { readFiles: ['r1.ts', 'both.ts'], modifiedFiles: ['m1.ts'] },
      }),
      entry('branch_summary', '2', null, {
        summary: 'pi extension',
        fromId: 'x',
        fromHook: true,
        details: { readFiles: ['hook-read.ts'], modifiedFiles: ['hook-mod.ts'] },
      }),
      entry('branch_summary', '3', null, {
        summary: 'omp extension',
        fromId: 'x',
        fromExtension: true,
        details: { readFiles: ['ext-read.ts'], modifiedFiles: ['ext-mod.ts'] },
      }),
      entry('compaction', '4', null, {
        summary: 'compaction details are not merged',
        firstKeptEntryId: 'x',
        tokensBefore: 1,
        details: { readFiles: ['c.ts'], modifiedFiles: ['cm.ts'] },
      }),
    ];
    const { fileOps } = prepareBranchEntries(entries, 0);
    expect([...fileOps.read]).toEqual(['r1.ts', 'both.ts']);
    expect([...fileOps.edited]).toEqual(['m1.ts']);
    expect([...fileOps.written]).toEqual([]);
  });

  it('collects read, write and edit tool-call paths, even from the message that ends the walk', () => {
    const entries = [
      messageEntry('1', {
        role: 'assistant',
        content: [
          { type: 'text', text: 'x'.repeat(4000) },
          toolCall('write', { path: 'early.ts', content: '' }),
        ],
      }),
      messageEntry('2', {
        role: 'assistant',
        content: [
          toolCall('read', { path: 'r.ts' }),
          toolCall('edit', { path: 'e.ts', oldText: 'a', newText: 'b' }),
          toolCall('bash', { command: 'ls', path: 'ignored.ts' }),
          toolCall('read', { file: 'no-path-argument.ts' }),
        ],
      }),
    ];
    const { messages, fileOps } = prepareBranchEntries(entries, 100);
    expect(messages).toHaveLength(1);
    expect([...fileOps.read]).toEqual(['r.ts']);
    expect([...fileOps.edited]).toEqual(['e.ts']);
    expect([...fileOps.written]).toEqual(['early.ts']);
  });
});

describe('computeFileLists and formatFileListsSuffix', () => {
  it('lists read files minus modified ones and modified as edited plus written, both sorted', () => {
    const fileOps = createFileOperations();
    ['z.ts', 'a.ts', 'w.ts', 'e.ts'].forEach((f) => fileOps.read.add(f));
    fileOps.written.add('w.ts');
    fileOps.edited.add('e.ts');
    fileOps.edited.add('b.ts');
    expect(computeFileLists(fileOps)).toEqual({
      readFiles: ['a.ts', 'z.ts'],
      modifiedFiles: ['b.ts', 'e.ts', 'w.ts'],
    });
  });

  it('formats both lists as blocks after a blank line', () => {
    expect(formatFileListsSuffix(['a.ts', 'z.ts'], ['b.ts'])).toBe(
      '\n\n<read-files>\na.ts\nz.ts\n</read-files>\n\n<modified-files>\nb.ts\n</modified-files>',
    );
  });

  it('leaves out an empty list and gives "" when both are empty', () => {
    expect(formatFileListsSuffix([], ['b.ts'])).toBe('\n\n<modified-files>\nb.ts\n</modified-files>');
    expect(formatFileListsSuffix(['a.ts'], [])).toBe('\n\n<read-files>\na.ts\n</read-files>');
    expect(formatFileListsSuffix([], [])).toBe('');
  });

  it('makes a summary that starts with the preamble and ends with the file blocks', () => {
    const entries = [
      messageEntry('1', { role: 'assistant', content: [toolCall('read', { path: 'src/a.ts' })] }),
      messageEntry('2', { role: 'assistant', content: [toolCall('edit', { path: 'src/b.ts' })] }),
    ];
    const { fileOps } = prepareBranchEntries(entries, 0);
    const { readFiles, modifiedFiles } = computeFileLists(fileOps);
    const summary =
      BRANCH_SUMMARY_PREAMBLE + '## Goal\nfix it' + formatFileListsSuffix(readFiles, modifiedFiles);
    expect(summary).toBe(
      'The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n' +
        '## Goal\nfix it\n\n<read-files>\nsrc/a.ts\n</read-files>\n\n<modified-files>\nsrc/b.ts\n</modified-files>',
    );
  });
});

describe('serializeConversation', () => {
  it('writes each role with its tag, text before tool calls, joined by blank lines, thinking left out as pi 1.x does', () => {
    const messages: LlmMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'fix ' },
          { type: 'text', text: 'the bug' },
        ],
        timestamp: 0,
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'On it.' },
          { type: 'toolCall', id: 't1', name: 'read', arguments: { path: 'a.ts', limit: 10 } },
          { type: 'thinking', thinking: 'look first' },
          { type: 'text', text: 'Second part.' },
          { type: 'toolCall', id: 't2', name: 'bash', arguments: { command: 'ls "x"' } },
        ],
      } as unknown as LlmMessage,
      {
        role: 'toolResult',
        toolCallId: 't1',
        toolName: 'read',
        content: [{ type: 'text', text: 'contents' }],
        isError: false,
        timestamp: 0,
      },
    ];
    expect(serializeConversation(messages)).toBe(
      '[User]: fix the bug\n\n' +
        '[Assistant]: On it.\nSecond part.\n\n' +
        '[Assistant tool calls]: read(path="a.ts", limit=10); bash(command="ls \\"x\\"")\n\n' +
        '[Tool result]: contents',
    );
  });

  it('cuts a tool result at 2000 characters with a note of what was cut', () => {
    const long = 'x'.repeat(2500);
    const serialized = serializeConversation([
      {
        role: 'toolResult',
        toolCallId: 't',
        toolName: 'read',
        content: [{ type: 'text', text: long }],
        isError: false,
        timestamp: 0,
      },
    ]);
    expect(serialized).toBe(`[Tool result]: ${'x'.repeat(2000)}\n\n[... 500 more characters truncated]`);
  });

  it('leaves out user messages and tool results without text', () => {
    expect(
      serializeConversation([
        { role: 'user', content: '', timestamp: 0 },
        { role: 'toolResult', toolCallId: 't', toolName: 'x', content: [], isError: false, timestamp: 0 },
      ]),
    ).toBe('');
  });

  it('serializes what convertToLlm makes of summaries and bash runs', () => {
    const serialized = serializeConversation(
      convertToLlm([
        { role: 'branchSummary', summary: 'B', fromId: 'x', timestamp: 0 },
        {
          role: 'bashExecution',
          command: 'ls',
          output: '',
          exitCode: 0,
          cancelled: false,
          truncated: false,
          timestamp: 0,
        },
      ]),
    );
    expect(serialized).toBe(
      '[User]: The following is a summary of a branch that this conversation came back from:\n\n<summary>\nB</summary>\n\n' +
        '[User]: Ran `ls`\n(no output)',
    );
  });
});

describe('collectFileOperations', () => {
  it('reads the calls a code-mode script made from its tool result (nestedCalls, pi 1.x)', () => {
    const fileOps = createFileOperations();
    collectFileOperations(
      {
        role: 'toolResult',
        toolCallId: 'c',
        toolName: 'codemode',
        content: [],
        isError: false,
        timestamp: 0,
        nestedCalls: {
          calls: [
            { id: 'n1', name: 'read', arguments: { path: 'src/a.ts' }, status: 'ok' },
            { id: 'n2', name: 'write', arguments: { path: 'src/b.ts' }, status: 'ok' },
            { id: 'n3', name: 'edit', argumentsBytes: 120, status: 'ok' },
          ],
          complete: true,
        },
      } as unknown as AgentMessage,
      fileOps,
    );
    expect([...fileOps.read]).toEqual(['src/a.ts']);
    expect([...fileOps.written]).toEqual(['src/b.ts']);
    expect([...fileOps.edited]).toEqual([]);
  });
});

describe('serializeConversation cuts', () => {
  it('keeps a surrogate pair whole where the 2000-character cut falls inside it', () => {
    const text = `${'x'.repeat(1999)}😀${'y'.repeat(10)}`;
    const serialized = serializeConversation([
      {
        role: 'toolResult',
        toolCallId: 't',
        toolName: 'read',
        content: [{ type: 'text', text }],
        isError: false,
        timestamp: 0,
      },
    ]);
    expect(serialized).toBe(`[Tool result]: ${'x'.repeat(1999)}\n\n[... 11 more characters truncated]`);
  });
});
