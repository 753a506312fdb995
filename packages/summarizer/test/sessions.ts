// Sessions for the summariser tests, written through session-core's SessionManager: the shapes pi
// writes (user requests, assistant turns with tool calls, tool results, errors, aborted turns,
// nested branch summaries).
import {
  SessionManager,
  type AssistantMessage,
  type SessionEntry,
  type ToolCall,
  type ToolResultMessage,
  type Usage,
} from '@canopy/session-core';

const usage: Usage = {
  input: 10,
  output: 10,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 20,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** Message timestamps count up from a fixed instant so that every run writes the same messages. */
export class SessionBuilder {
  readonly manager = SessionManager.inMemory('/work/project');
  private clock = Date.UTC(2025, 0, 1);
  private calls = 0;

  private tick(): number {
    this.clock += 1000;
    return this.clock;
  }

  user(text: string): string {
    return this.manager.appendMessage({ role: 'user', content: text, timestamp: this.tick() });
  }

  assistant(
    content: AssistantMessage['content'],
    stopReason: AssistantMessage['stopReason'] = 'stop',
    errorMessage?: string,
  ): string {
    const message: AssistantMessage = {
      role: 'assistant',
      content,
      api: 'openai-completions',
      provider: 'openai',
      model: 'gpt-4o-mini',
      usage,
      stopReason,
      timestamp: this.tick(),
    };
    if (errorMessage !== undefined) message.errorMessage = errorMessage;
    return this.manager.appendMessage(message);
  }

  say(text: string): string {
    return this.assistant([{ type: 'text', text }]);
  }

  toolCall(name: string, args: Record<string, unknown>): ToolCall {
    this.calls++;
    return { type: 'toolCall', id: `call_${this.calls}`, name, arguments: args };
  }

  /** An assistant message calling the tools, then one result per call (`errors` maps a call to its error text). */
  useTools(
    calls: ToolCall[],
    results: Record<string, string> = {},
    errors: Record<string, string> = {},
  ): void {
    this.assistant(calls, 'toolUse');
    for (const call of calls) {
      const isError = call.id in errors;
      const result: ToolResultMessage = {
        role: 'toolResult',
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: 'text', text: isError ? (errors[call.id] as string) : (results[call.id] ?? 'ok') }],
        isError,
        timestamp: this.tick(),
      };
      this.manager.appendMessage(result);
    }
  }

  entries(): SessionEntry[] {
    return this.manager.getBranch();
  }
}

/**
 * A branch of work: a goal, reads and edits with one failing edit and a failing test run, a
 * conclusion, then a second request whose turn was aborted.
 */
export function buildFixBugBranch(): SessionBuilder {
  const s = new SessionBuilder();
  s.user('Fix the crash in src/parser.ts when the input is empty.\nDo not change the exported names.');
  const readParser = s.toolCall('read', { path: 'src/parser.ts' });
  const readTest = s.toolCall('read', { path: 'test/parser.test.ts' });
  s.useTools([readParser, readTest], { [readParser.id]: 'export function parse(text) { return text[0]; }' });
  const badEdit = s.toolCall('edit', { path: 'src/parser.ts', oldText: 'text[0]', newText: 'text.at(0)' });
  s.useTools([badEdit], {}, { [badEdit.id]: 'Could not find the exact text in src/parser.ts' });
  const edit = s.toolCall('edit', {
    path: 'src/parser.ts',
    oldText: 'return text[0];',
    newText: 'return text?.[0];',
  });
  const testRun = s.toolCall('bash', { command: 'npm test -- parser' });
  s.useTools([edit, testRun], {}, { [testRun.id]: 'FAIL test/parser.test.ts\nexpected undefined' });
  const write = s.toolCall('write', { path: 'test/empty-input.test.ts', content: 'test("empty", () => {})' });
  const rerun = s.toolCall('bash', { command: 'npm test -- parser' });
  s.useTools([write, rerun]);
  s.say(
    'The parser now returns undefined for empty input; added test/empty-input.test.ts and the tests pass.',
  );
  s.user('Also handle whitespace-only input');
  s.assistant([{ type: 'text', text: 'Looking at the whitespace case' }], 'aborted', 'Request was aborted');
  return s;
}

/**
 * Every kind of entry a summary reads: thinking, images, a shell command run by the user, an
 * extension message, a compaction, a nested branch summary, model and thinking-level changes,
 * labels and custom entries.
 */
export function buildEveryKindBranch(): SessionBuilder {
  const s = new SessionBuilder();
  const first = s.user('Speed up the importer');
  s.manager.appendThinkingLevelChange('high');
  s.manager.appendModelChange('anthropic', 'claude-sonnet-4-5');
  s.assistant(
    [
      { type: 'thinking', thinking: 'The importer parses each row twice.' },
      { type: 'text', text: 'I will profile it first.' },
      {
        type: 'toolCall',
        id: 'call_p',
        name: 'bash',
        arguments: { command: 'node --prof import.js', timeout: 60 },
      },
    ],
    'toolUse',
  );
  s.manager.appendMessage({
    role: 'toolResult',
    toolCallId: 'call_p',
    toolName: 'bash',
    content: [{ type: 'text', text: 'r'.repeat(3000) }],
    isError: false,
    timestamp: 5,
  });
  s.manager.appendCompaction('Profiled the importer: parseRow dominates.', first, 12000);
  s.manager.appendMessage({
    role: 'user',
    content: [
      { type: 'text', text: 'Here is the flame graph' },
      { type: 'image', data: 'aW1hZ2U=', mimeType: 'image/png' },
    ],
    timestamp: 6,
  });
  s.manager.appendMessage({
    role: 'bashExecution',
    command: 'wc -l data.csv',
    output: '120000 data.csv',
    exitCode: 0,
    cancelled: false,
    truncated: false,
    timestamp: 7,
  });
  s.manager.appendCustomMessageEntry('reminder', 'Keep the CSV dialect unchanged', true);
  s.manager.appendCustomEntry('extension-state', { step: 3 });
  s.manager.appendLabelChange(first, 'perf');
  s.manager.branchWithSummary(
    s.manager.getLeafId(),
    `Tried streaming rows; no gain. ${'Details. '.repeat(40)}`,
    {
      readFiles: ['src/stream.ts'],
      modifiedFiles: ['src/rows.ts'],
    },
  );
  s.useTools([
    s.toolCall('edit', {
      path: 'src/import.ts',
      oldText: 'parseRow(r); parseRow(r)',
      newText: 'parseRow(r)',
    }),
  ]);
  s.say('Parsing once per row halves the import time.');
  return s;
}
