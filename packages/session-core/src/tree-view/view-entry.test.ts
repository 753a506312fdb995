import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentText, normalizeRowText } from '../text';
import type { SessionEntry } from '../types';
import { EntryBuilder } from './testing';
import {
  ROW_TEXT_MAX_LENGTH,
  ToolCallIndex,
  ViewFlags,
  findToolCall,
  formatToolCall,
  rowText,
  searchText,
  toViewEntries,
  viewFlags,
} from './view-entry';

// eslint-disable-next-line no-control-regex -- control characters are what the row text replaces
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

const noCalls = new Map<string, { name: string; arguments: unknown }>();

function row(entry: SessionEntry, options?: { home?: string; dialect?: 'pi' | 'omp' }): string {
  return rowText(entry, noCalls, options);
}

/** The row text of a tool result whose call (name, args) is in the session. */
function toolRow(name: string, args: unknown, options?: { home?: string }): string {
  const b = new EntryBuilder();
  b.toolCalls('a1', null, [['call-1', name, args]]);
  const result = b.toolResult('r1', 'a1', 'call-1', name, 'output');
  const calls = new ToolCallIndex();
  calls.addEntries(b.entries);
  return rowText(result, calls, options);
}

describe('row text of messages', () => {
  const b = new EntryBuilder();

  it('shows a user message as "user: " and its text', () => {
    expect(row(b.user('u', null, 'Hello there'))).toBe('user: Hello there');
  });

  it('joins user text blocks with no separator and ignores images', () => {
    const content = [
      { type: 'text', text: 'Look ' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'text', text: 'here' },
    ];
    expect(row(b.user('u', null, content))).toBe('user: Look here');
  });

  it('cuts user text at 200 characters before trimming', () => {
    const text = 'x'.repeat(250);
    expect(row(b.user('u', null, text))).toBe(`user: ${'x'.repeat(200)}`);
  });

  it('previews any mix of text blocks exactly as the 200-character content text', () => {
    const block = fc.oneof(
      fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 150 }) }),
      fc.record({ type: fc.constant('image'), data: fc.constant(''), mimeType: fc.constant('image/png') }),
    );
    fc.assert(
      fc.property(fc.array(block, { maxLength: 6 }), (content) => {
        const expected = normalizeRowText(contentText(content, { maxLength: 200 })).replace(CONTROL, ' ');
        expect(row(b.user('u', null, content))).toBe(`user: ${expected.trim()}`);
        expect(searchText(b.user('u', null, content))).toBe(
          `user ${contentText(content, { maxLength: 200 })}`.toLowerCase(),
        );
      }),
    );
  });

  it('normalises any text, control characters and Unicode spaces included, as the reference: control characters to spaces, then newlines and tabs, then trimmed', () => {
    const text = fc.string({
      unit: fc.oneof(
        fc.constantFrom('\t', '\n', '\r', '\u000b', '\u0085', '\u00a0', '\u2028', '\ufeff', ' '),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      ),
      maxLength: 60,
    });
    fc.assert(
      fc.property(text, (content) => {
        const expected = normalizeRowText(content.replace(CONTROL, ' '));
        expect(row(b.user('u', null, content))).toBe(`user: ${expected}`);
        const bash = b.message('x', null, {
          role: 'bashExecution',
          command: content,
          output: '',
          exitCode: 0,
        });
        expect(row(bash)).toBe(`[bash]: ${expected}`);
      }),
      { numRuns: 500 },
    );
  });

  it('turns newlines, carriage returns and tabs into spaces and trims', () => {
    expect(row(b.user('u', null, '  line one\nline\ttwo\r\n'))).toBe('user: line one line two');
  });

  it('keeps "user: " for an empty user message', () => {
    expect(row(b.user('u', null, ''))).toBe('user: ');
  });

  it('shows assistant text when there is some', () => {
    expect(row(b.assistant('a', null, 'Sure.'))).toBe('assistant: Sure.');
  });

  it('prefers the text over the aborted marker', () => {
    expect(row(b.assistant('a', null, 'partial', { stopReason: 'aborted' }))).toBe('assistant: partial');
  });

  it('shows "(aborted)" for an aborted assistant message without text', () => {
    expect(
      row(b.assistant('a', null, [], { stopReason: 'aborted', errorMessage: 'Request was aborted' })),
    ).toBe('assistant: (aborted)');
  });

  it('shows the first 80 characters of the error message of a failed assistant message without text', () => {
    const errorMessage = `overloaded:\n${'e'.repeat(100)}`;
    expect(row(b.assistant('a', null, [], { stopReason: 'error', errorMessage }))).toBe(
      `assistant: ${`overloaded: ${'e'.repeat(100)}`.slice(0, 80)}`,
    );
  });

  it('shows "(no content)" for an assistant message with only thinking and tool calls', () => {
    const content = [
      { type: 'thinking', thinking: 'hmm' },
      { type: 'toolCall', id: 'c', name: 'ls', arguments: {} },
    ];
    expect(row(b.assistant('a', null, content, { stopReason: 'toolUse' }))).toBe('assistant: (no content)');
  });

  it('shows a bash execution as "[bash]: " and its command on one line', () => {
    expect(
      row(b.message('x', null, { role: 'bashExecution', command: 'git status\n--short', output: '' })),
    ).toBe('[bash]: git status --short');
  });

  it('shows any other role as the role in brackets', () => {
    expect(row(b.message('x', null, { role: 'custom', customType: 't', content: 'c', display: true }))).toBe(
      '[custom]',
    );
    expect(row(b.message('x', null, { role: 'hookMessage', customType: 't', content: 'c' }))).toBe(
      '[hookMessage]',
    );
    expect(row(b.message('x', null, { role: 'fileMention', files: [] }))).toBe('[fileMention]');
    expect(row(b.message('x', null, { role: 'pythonExecution' }))).toBe('[pythonExecution]');
  });

  it('shows a message entry without a usable message as "[message]"', () => {
    expect(row(b.add('message', 'x', null, { message: 'not an object' }))).toBe('[message]');
    expect(row(b.add('message', 'y', null, { message: { content: 'no role' } }))).toBe('[message]');
  });

  it('replaces control characters (terminal escapes) with spaces', () => {
    expect(row(b.user('u', null, 'red \u001b[31mtext\u0007'))).toBe('user: red  [31mtext');
  });

  it('keeps every message row on one line, whatever part of the file the control characters come from', () => {
    const escape = '\u001b[31m\u0085';
    expect(toolRow('read', { path: `src/${escape}a.ts` })).toBe('[read: src/ [31m a.ts]');
    expect(toolRow(`my${escape}tool`, { x: 1 })).toBe('[my [31m tool: {"x":1}]');
    const orphan = b.message('o', null, {
      role: 'toolResult',
      toolCallId: 'none',
      toolName: `t${escape}`,
      content: [],
    });
    expect(row(orphan)).toBe('[t [31m ]');
    expect(row(b.message('r', null, { role: `odd${escape}`, content: 'x' }))).toBe('[odd [31m ]');
    const failed = { role: 'assistant', content: [], stopReason: 'error', errorMessage: `bad${escape}thing` };
    expect(row(b.message('e', null, failed))).toBe('assistant: bad [31m thing');
    expect(row(b.message('d', null, { role: 'developer', content: `be${escape}brief` }))).toBe(
      'developer: be [31m brief',
    );
  });
});

describe('row text of tool results', () => {
  it('shows a read with its path', () => {
    expect(toolRow('read', { path: 'src/a.ts' })).toBe('[read: src/a.ts]');
  });

  it('shows a read with offset and limit as a line range', () => {
    expect(toolRow('read', { path: 'src/a.ts', offset: 10, limit: 5 })).toBe('[read: src/a.ts:10-14]');
  });

  it('starts a range at line 1 when only the limit is set', () => {
    expect(toolRow('read', { path: 'a', limit: 20 })).toBe('[read: a:1-20]');
  });

  it('shows only the start when only the offset is set', () => {
    expect(toolRow('read', { path: 'a', offset: 5 })).toBe('[read: a:5]');
  });

  it('omits a range end of 0, as the reference does for limit 0 from line 1', () => {
    expect(toolRow('read', { path: 'a', limit: 0 })).toBe('[read: a:1]');
  });

  it('falls back to file_path for read, write and edit', () => {
    expect(toolRow('read', { file_path: 'b.ts' })).toBe('[read: b.ts]');
    expect(toolRow('write', { file_path: 'b.ts' })).toBe('[write: b.ts]');
    expect(toolRow('edit', { file_path: 'b.ts' })).toBe('[edit: b.ts]');
  });

  it('shows write and edit with their path', () => {
    expect(toolRow('write', { path: 'out.txt', content: 'x' })).toBe('[write: out.txt]');
    expect(toolRow('edit', { path: 'in.txt', oldText: 'a', newText: 'b' })).toBe('[edit: in.txt]');
  });

  it('shows paths under HOME with ~', () => {
    const home = '/home/dev';
    expect(toolRow('read', { path: '/home/dev/p/a.ts' }, { home })).toBe('[read: ~/p/a.ts]');
    expect(toolRow('ls', { path: '/home/dev' }, { home: '/home/dev/' })).toBe('[ls: ~]');
    expect(toolRow('grep', { pattern: 'x', path: '/home/dev/src' }, { home })).toBe('[grep: /x/ in ~/src]');
    expect(toolRow('find', { pattern: '*.ts', path: '/home/dev' }, { home })).toBe('[find: *.ts in ~]');
    expect(toolRow('write', { path: '/home/dev/w' }, { home })).toBe('[write: ~/w]');
    expect(toolRow('edit', { path: '/home/dev/e' }, { home })).toBe('[edit: ~/e]');
  });

  it('does not shorten a sibling directory that merely starts with the HOME text', () => {
    expect(toolRow('read', { path: '/home/dev2/a.ts' }, { home: '/home/dev' })).toBe(
      '[read: /home/dev2/a.ts]',
    );
  });

  it('shows a short bash command whole', () => {
    expect(toolRow('bash', { command: 'npm test' })).toBe('[bash: npm test]');
  });

  it('cuts a bash command to 50 characters on one line and appends "..." when the raw command is longer', () => {
    const command = `echo one\n${'y'.repeat(60)}`;
    expect(toolRow('bash', { command })).toBe(`[bash: ${`echo one ${'y'.repeat(60)}`.slice(0, 50)}...]`);
  });

  it('appends "..." based on the raw length even when trimming makes it shorter', () => {
    const command = `${' '.repeat(10)}${'z'.repeat(45)}`;
    expect(toolRow('bash', { command })).toBe(`[bash: ${'z'.repeat(45)}...]`);
  });

  it('shows grep as /pattern/ in a path, "." by default', () => {
    expect(toolRow('grep', { pattern: 'TODO', path: 'src' })).toBe('[grep: /TODO/ in src]');
    expect(toolRow('grep', { pattern: 'TODO' })).toBe('[grep: /TODO/ in .]');
  });

  it('shows find as pattern in a path, "." by default', () => {
    expect(toolRow('find', { pattern: '*.md' })).toBe('[find: *.md in .]');
  });

  it('shows ls with its path, "." by default', () => {
    expect(toolRow('ls', {})).toBe('[ls: .]');
    expect(toolRow('ls', { path: 'docs' })).toBe('[ls: docs]');
  });

  it('shows another tool with its JSON arguments, whole up to 40 characters', () => {
    const args = { q: 'short' };
    expect(toolRow('web_search', args)).toBe(`[web_search: ${JSON.stringify(args)}]`);
  });

  it('cuts another tool JSON to 40 characters and appends "..."', () => {
    const args = { query: 'a rather long search query that goes on' };
    const json = JSON.stringify(args);
    expect(json.length).toBeGreaterThan(40);
    expect(toolRow('web_search', args)).toBe(`[web_search: ${json.slice(0, 40)}...]`);
  });

  it('shows "[<toolName>]" when the call is not in the session', () => {
    const b = new EntryBuilder();
    expect(rowText(b.toolResult('r', null, 'missing', 'read', 'x'), new ToolCallIndex())).toBe('[read]');
  });

  it('shows "[tool]" when neither the call nor a tool name is known', () => {
    const b = new EntryBuilder();
    const entry = b.message('r', null, { role: 'toolResult', toolCallId: 'missing', content: [] });
    expect(rowText(entry, new ToolCallIndex())).toBe('[tool]');
  });

  it('formats tool calls with malformed arguments without throwing', () => {
    expect(formatToolCall('read', null)).toBe('[read: ]');
    expect(formatToolCall('bash', 'not an object')).toBe('[bash: ]');
    expect(formatToolCall('other', undefined)).toBe('[other: ]');
  });
});

describe('row text of other entry types', () => {
  const b = new EntryBuilder();

  it('shows a custom_message with its type and full content, not cut at 200 characters', () => {
    const text = 'c'.repeat(300);
    expect(
      row(b.add('custom_message', 'x', null, { customType: 'note', content: text, display: true })),
    ).toBe(`[note]: ${text}`);
  });

  it('joins custom_message text blocks with no separator', () => {
    const content = [
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ];
    expect(row(b.add('custom_message', 'x', null, { customType: 'n', content, display: false }))).toBe(
      '[n]: onetwo',
    );
  });

  it('caps a huge row at ROW_TEXT_MAX_LENGTH characters', () => {
    const text = 'c'.repeat(ROW_TEXT_MAX_LENGTH * 3);
    expect(
      row(b.add('custom_message', 'x', null, { customType: 'n', content: text, display: true })).length,
    ).toBe(ROW_TEXT_MAX_LENGTH);
  });

  it('shows a compaction with its rounded thousands of tokens', () => {
    expect(
      row(b.add('compaction', 'x', null, { summary: 's', firstKeptEntryId: 'a', tokensBefore: 12499 })),
    ).toBe('[compaction: 12k tokens]');
    expect(
      row(b.add('compaction', 'y', null, { summary: 's', firstKeptEntryId: 'a', tokensBefore: 12500 })),
    ).toBe('[compaction: 13k tokens]');
  });

  it('shows a branch summary with its summary on one line', () => {
    expect(row(b.add('branch_summary', 'x', null, { fromId: 'root', summary: 'Tried A.\nFailed.' }))).toBe(
      '[branch summary]: Tried A. Failed.',
    );
  });

  it('shows a pi model_change with its modelId', () => {
    expect(
      row(b.add('model_change', 'x', null, { provider: 'anthropic', modelId: 'claude-sonnet-4-5' })),
    ).toBe('[model: claude-sonnet-4-5]');
  });

  it('shows an oh-my-pi model_change with its provider/id', () => {
    const entry = b.add('model_change', 'x', null, { model: 'anthropic/claude-opus', role: 'slow' });
    expect(row(entry, { dialect: 'omp' })).toBe('[model: anthropic/claude-opus]');
    expect(row(entry)).toBe('[model: anthropic/claude-opus]');
  });

  it('shows a pi-shaped model_change as provider/id in the oh-my-pi dialect', () => {
    expect(
      row(b.add('model_change', 'x', null, { provider: 'openai', modelId: 'gpt' }), { dialect: 'omp' }),
    ).toBe('[model: openai/gpt]');
  });

  it('shows a thinking level change, null meaning off', () => {
    expect(row(b.add('thinking_level_change', 'x', null, { thinkingLevel: 'high' }))).toBe(
      '[thinking: high]',
    );
    expect(row(b.add('thinking_level_change', 'y', null, { thinkingLevel: null }))).toBe('[thinking: off]');
  });

  it('shows a custom entry with its type', () => {
    expect(row(b.add('custom', 'x', null, { customType: 'todo-tracker', data: {} }))).toBe(
      '[custom: todo-tracker]',
    );
  });

  it('shows a label entry with its text, or "(cleared)" when absent or empty', () => {
    expect(row(b.label('x', null, 't', 'milestone'))).toBe('[label: milestone]');
    expect(row(b.label('y', null, 't'))).toBe('[label: (cleared)]');
    expect(row(b.label('z', null, 't', ''))).toBe('[label: (cleared)]');
  });

  it('shows a session_info entry as [title: name], or [title: empty], as the reference package 0.73.1 does', () => {
    expect(row(b.add('session_info', 'x', null, { name: 'My session' }))).toBe('[title: My session]');
    expect(row(b.add('session_info', 'y', null, {}))).toBe('[title: empty]');
  });

  it('shows an unknown entry type as its name with spaces instead of underscores, never a blank row', () => {
    expect(row(b.add('future_entry_kind', 'x', null, { payload: 1 }))).toBe('[future entry kind]');
    expect(row(b.add('ttsr_injection', 'y', null, { injectedRules: ['r'] }))).toBe('[ttsr injection]');
  });

  it('shows the oh-my-pi mode, title, credential and archive entries with their value', () => {
    expect(row(b.add('mode_change', 'x', null, { mode: 'plan' }))).toBe('[mode: plan]');
    expect(row(b.add('title_change', 'x', null, { title: 'New\ntitle' }))).toBe('[title: New title]');
    expect(row(b.add('credential_pin', 'x', null, { provider: 'anthropic', hash: 'h' }))).toBe(
      '[credential pin: anthropic]',
    );
    expect(row(b.add('archive', 'x', null, { targetId: 't1', archived: true }))).toBe('[archived: t1]');
    expect(row(b.add('archive', 'x', null, { targetId: 't1', archived: false }))).toBe('[restored: t1]');
  });
});

describe('searchable text', () => {
  const b = new EntryBuilder();

  it('is the role and the first 200 characters of a message, lower-cased', () => {
    expect(searchText(b.user('u', null, 'Hello World'))).toBe('user hello world');
    expect(searchText(b.user('v', null, `A${'b'.repeat(300)}`))).toBe(`user a${'b'.repeat(199)}`);
  });

  it('searches a tool result by its result text, not by the tool-call label of its row', () => {
    const entry = b.toolResult('r', null, 'c1', 'read', 'File Contents');
    expect(searchText(entry)).toBe('toolresult file contents');
  });

  it('adds the command of a bash execution', () => {
    expect(
      searchText(b.message('x', null, { role: 'bashExecution', command: 'Git Status', output: 'o' })),
    ).toBe('bashexecution git status');
  });

  it('is the role alone for a message without content', () => {
    expect(searchText(b.assistant('a', null, []))).toBe('assistant ');
    expect(searchText(b.message('f', null, { role: 'fileMention', files: [] }))).toBe('filemention');
  });

  it('uses the whole string content of a custom_message but only 200 characters of its text blocks', () => {
    const long = 'q'.repeat(300);
    expect(
      searchText(b.add('custom_message', 'x', null, { customType: 'Note', content: long, display: true })),
    ).toBe(`note ${long}`);
    const blocks = [{ type: 'text', text: long }];
    expect(
      searchText(b.add('custom_message', 'y', null, { customType: 'n', content: blocks, display: true })),
    ).toBe(`n ${'q'.repeat(200)}`);
  });

  it('names the settings and summary types the way the reference does', () => {
    expect(searchText(b.add('compaction', 'x', null, { summary: 'S', tokensBefore: 1 }))).toBe('compaction');
    expect(searchText(b.add('branch_summary', 'x', null, { fromId: 'root', summary: 'Tried A' }))).toBe(
      'branch summary tried a',
    );
    expect(searchText(b.add('model_change', 'x', null, { provider: 'p', modelId: 'M1' }))).toBe('model m1');
    expect(searchText(b.add('model_change', 'x', null, { model: 'p/M2' }))).toBe('model p/m2');
    expect(searchText(b.add('thinking_level_change', 'x', null, { thinkingLevel: 'low' }))).toBe(
      'thinking low',
    );
    expect(searchText(b.add('custom', 'x', null, { customType: 'Todo' }))).toBe('custom todo');
    expect(searchText(b.label('x', null, 't', 'Milestone'))).toBe('label milestone');
    expect(searchText(b.label('y', null, 't'))).toBe('label ');
    expect(searchText(b.add('session_info', 'x', null, { name: 'N' }))).toBe('title n');
    expect(searchText(b.add('mode_change', 'x', null, { mode: 'Plan' }))).toBe('mode plan');
    expect(searchText(b.add('ttsr_injection', 'x', null, { injectedRules: ['Rule-A', 'rule-b'] }))).toBe(
      'ttsr injection rule-a rule-b',
    );
    expect(searchText(b.add('future_entry_kind', 'x', null, {}))).toBe('future entry kind');
  });
});

describe('view flags', () => {
  const b = new EntryBuilder();

  it('marks assistant messages without text that are not errors or aborts as tool-only', () => {
    const toolOnly = b.toolCalls('a', null, [['c', 'ls', {}]]);
    const thinkingOnly = b.assistant('t', null, [{ type: 'thinking', thinking: 'x' }]);
    const blankText = b.assistant('w', null, [{ type: 'text', text: '  \n' }], { stopReason: 'toolUse' });
    const noStopReason = b.assistant('n', null, [], { stopReason: undefined });
    for (const entry of [toolOnly, thinkingOnly, blankText, noStopReason]) {
      expect(viewFlags(entry) & ViewFlags.ToolOnlyAssistant).toBe(ViewFlags.ToolOnlyAssistant);
    }
  });

  it('does not mark errored, aborted or length-stopped assistant messages without text as tool-only', () => {
    expect(viewFlags(b.assistant('e', null, [], { stopReason: 'error' }))).toBe(ViewFlags.Error);
    expect(viewFlags(b.assistant('a', null, [], { stopReason: 'aborted' }))).toBe(ViewFlags.Aborted);
    expect(viewFlags(b.assistant('l', null, [], { stopReason: 'length' }))).toBe(ViewFlags.Length);
  });

  it('does not mark an assistant message with text as tool-only', () => {
    const entry = b.assistant('a', null, [
      { type: 'text', text: 'Reading.' },
      { type: 'toolCall', id: 'c', name: 'read', arguments: {} },
    ]);
    expect(viewFlags(entry)).toBe(ViewFlags.HasToolCalls);
  });

  it('marks thinking, tool calls, images, tool errors and bash outcomes', () => {
    expect(
      viewFlags(
        b.assistant('a', null, [
          { type: 'thinking', thinking: 'x' },
          { type: 'text', text: 'y' },
        ]),
      ),
    ).toBe(ViewFlags.HasThinking);
    expect(viewFlags(b.toolResult('r', null, 'c', 'edit', 'failed', true))).toBe(ViewFlags.ToolError);
    expect(viewFlags(b.user('u', null, [{ type: 'image', data: '', mimeType: 'image/png' }]))).toBe(
      ViewFlags.HasImage,
    );
    const bash = (fields: Record<string, unknown>) =>
      viewFlags(b.message('x', null, { role: 'bashExecution', command: 'c', output: '', ...fields }));
    expect(bash({ exitCode: 1, cancelled: false })).toBe(ViewFlags.Error);
    expect(bash({ exitCode: undefined, cancelled: true })).toBe(ViewFlags.Aborted);
    expect(bash({ exitCode: 0, cancelled: false, excludeFromContext: true })).toBe(
      ViewFlags.ExcludedFromContext,
    );
  });
});

describe('toViewEntries', () => {
  it('builds id, parent, type, role, timestamp, label, text, search and flags of each entry', () => {
    const b = new EntryBuilder();
    b.user('u1', null, 'Read it');
    b.toolCalls('a1', 'u1', [['c1', 'read', { path: 'x.ts' }]]);
    b.toolResult('r1', 'a1', 'c1', 'read', 'contents');
    const views = toViewEntries(b.entries, new Map([['u1', 'start']]));
    expect(views).toEqual([
      {
        id: 'u1',
        parentId: null,
        type: 'message',
        role: 'user',
        timestamp: b.entries[0]!.timestamp,
        label: 'start',
        text: 'user: Read it',
        search: 'user read it',
        flags: 0,
      },
      {
        id: 'a1',
        parentId: 'u1',
        type: 'message',
        role: 'assistant',
        timestamp: b.entries[1]!.timestamp,
        text: 'assistant: (no content)',
        search: 'assistant ',
        flags: ViewFlags.ToolOnlyAssistant | ViewFlags.HasToolCalls,
      },
      {
        id: 'r1',
        parentId: 'a1',
        type: 'message',
        role: 'toolResult',
        timestamp: b.entries[2]!.timestamp,
        text: '[read: x.ts]',
        search: 'toolresult contents',
        flags: 0,
      },
    ]);
  });

  it('accepts the labels as a lookup function', () => {
    const b = new EntryBuilder();
    b.user('u1', null);
    b.user('u2', 'u1');
    const views = toViewEntries(b.entries, (id) => (id === 'u2' ? 'second' : undefined));
    expect(views.map((v) => v.label)).toEqual([undefined, 'second']);
  });

  it('labels tool results of a live append through the index kept from the earlier batch', () => {
    const b = new EntryBuilder();
    b.toolCalls('a1', null, [['c1', 'bash', { command: 'ls -la' }]]);
    const toolCalls = new ToolCallIndex();
    toViewEntries(b.entries, new Map(), { toolCalls });
    const appended = b.toolResult('r1', 'a1', 'c1', 'bash', 'listing');
    expect(toViewEntries([appended], new Map(), { toolCalls })[0]!.text).toBe('[bash: ls -la]');
  });

  it('finds a tool call in another branch', () => {
    const b = new EntryBuilder();
    b.user('u1', null);
    b.toolCalls('a1', 'u1', [['c1', 'ls', { path: 'src' }]]);
    b.toolResult('r1', 'u1', 'c1', 'ls', 'x');
    expect(toViewEntries(b.entries, new Map())[2]!.text).toBe('[ls: src]');
  });

  it('keeps the first tool call when two share an id', () => {
    const b = new EntryBuilder();
    b.toolCalls('a1', null, [['c1', 'ls', { path: 'first' }]]);
    b.toolCalls('a2', 'a1', [['c1', 'ls', { path: 'second' }]]);
    b.toolResult('r1', 'a2', 'c1', 'ls', 'x');
    expect(toViewEntries(b.entries, new Map())[2]!.text).toBe('[ls: first]');
  });

  it('turns a missing or non-string parentId into null', () => {
    const entry = { type: 'custom', id: 'x', timestamp: 't', customType: 'c' } as unknown as SessionEntry;
    expect(toViewEntries([entry], new Map())[0]!.parentId).toBeNull();
  });
});

describe('findToolCall', () => {
  it('finds the call a tool result answers in the assistant messages above it, and no further than asked', () => {
    const b = new EntryBuilder();
    b.toolCalls('a1', null, [['call-1', 'read', { path: 'a.ts' }]]);
    b.user('u1', 'a1', 'go on');
    const result = b.toolResult('r1', 'u1', 'call-1', 'read', 'text');
    const byId = new Map(b.entries.map((entry) => [entry.id, entry]));
    const get = (id: string) => byId.get(id);
    expect(findToolCall(get, result, 'call-1')).toEqual({
      id: 'call-1',
      name: 'read',
      arguments: { path: 'a.ts' },
      entryId: 'a1',
    });
    expect(findToolCall(get, result, 'call-2')).toBeUndefined();
    expect(findToolCall(get, result, 'call-1', 1)).toBeUndefined();
  });
});
