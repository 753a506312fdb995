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
  s.user('Fix the crash in src/parser.ts when the input is empty');
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
