// A small scripting layer over session-core's SessionManager for writing the demo conversations:
// a stepping clock, message builders with plausible usage and cost, and tool rounds (an assistant
// message with tool calls followed by one result per call). Everything goes through SessionManager's
// own append methods, so the files are exactly what session-core writes.
import type {
  AssistantContentBlock,
  AssistantMessage,
  SessionManager,
  StopReason,
  UserContentBlock,
} from '@canopy/session-core';

/**
 * A clock that only moves when the script says so. SessionManager reads it through its `now` option
 * (`now: clock.now`), so headers and entries get the script's timestamps.
 */
export class DemoClock {
  private current: number;

  constructor(startIso: string) {
    this.current = Date.parse(startIso);
  }

  /** The current time in Unix milliseconds (an arrow, so it can be handed over unbound). */
  readonly now = (): number => this.current;

  advance(ms: number): number {
    this.current += Math.round(ms);
    return this.current;
  }
}

export interface ModelInfo {
  api: string;
  provider: string;
  model: string;
  /** Dollars per million tokens. */
  price: { input: number; output: number; cacheRead: number; cacheWrite: number };
}

export const CLAUDE_SONNET: ModelInfo = {
  api: 'anthropic-messages',
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
};

export const CLAUDE_OPUS: ModelInfo = {
  api: 'anthropic-messages',
  provider: 'anthropic',
  model: 'claude-opus-4-5',
  price: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
};

export const CLAUDE_HAIKU: ModelInfo = {
  api: 'anthropic-messages',
  provider: 'anthropic',
  model: 'claude-haiku-4-5',
  price: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
};

/** One tool call and the result the tool gave. */
export interface ToolStep {
  name: string;
  args: Record<string, unknown>;
  result: string;
  isError?: boolean;
  /** Tool-specific details stored on the result (e.g. a diff for edit). */
  details?: unknown;
}

export interface ToolRound {
  assistantId: string;
  resultIds: string[];
}

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

/** Token estimate as the agents make it: one token per four characters. */
const tokensOf = (text: string) => Math.ceil(text.length / 4);

function textOfContent(content: string | readonly UserContentBlock[]): string {
  if (typeof content === 'string') return content;
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** Writes one conversation through a SessionManager, advancing the clock before every entry. */
export class ConversationScript {
  model: ModelInfo;
  private toolCallCount = 0;
  /** Tokens the model has seen so far on this path (drives usage.input and cacheRead). */
  private contextTokens = 1800;

  constructor(
    readonly session: SessionManager,
    readonly clock: DemoClock,
    model: ModelInfo,
    private readonly toolIdPrefix = 'toolu_01',
  ) {
    this.model = model;
  }

  /** Typing and reading time for the user: a pause, then the message. */
  user(content: string | UserContentBlock[], thinkSeconds = 35): string {
    this.clock.advance(thinkSeconds * 1000 + textOfContent(content).length * 120);
    this.contextTokens += tokensOf(textOfContent(content));
    return this.session.appendMessage({ role: 'user', content, timestamp: this.clock.now() });
  }

  /** An assistant message with explicit content and stop reason. */
  assistant(
    content: AssistantContentBlock[],
    stopReason: StopReason = 'stop',
    extra: Partial<AssistantMessage> = {},
  ): string {
    const text = content
      .map((block) =>
        block.type === 'text'
          ? block.text
          : block.type === 'thinking'
            ? block.thinking
            : `${block.name}${JSON.stringify(block.arguments)}`,
      )
      .join('');
    const output = tokensOf(text) + 12;
    this.clock.advance(1500 + output * 25);
    const input = 420 + Math.round(this.contextTokens * 0.04);
    const cacheRead = Math.round(this.contextTokens * 0.96);
    const cacheWrite = Math.round(output * 1.1);
    const price = this.model.price;
    const cost = {
      input: round6((input * price.input) / 1e6),
      output: round6((output * price.output) / 1e6),
      cacheRead: round6((cacheRead * price.cacheRead) / 1e6),
      cacheWrite: round6((cacheWrite * price.cacheWrite) / 1e6),
      total: 0,
    };
    cost.total = round6(cost.input + cost.output + cost.cacheRead + cost.cacheWrite);
    this.contextTokens += output;
    const message: AssistantMessage = {
      role: 'assistant',
      content,
      api: this.model.api,
      provider: this.model.provider,
      model: this.model.model,
      usage: {
        input,
        output,
        cacheRead,
        cacheWrite,
        totalTokens: input + output + cacheRead + cacheWrite,
        cost,
      },
      stopReason,
      timestamp: this.clock.now(),
      ...extra,
    };
    return this.session.appendMessage(message);
  }

  /** A plain answer (optionally after some thinking). */
  answer(text: string, thinking?: string): string {
    const content: AssistantContentBlock[] = [];
    if (thinking) content.push({ type: 'thinking', thinking });
    content.push({ type: 'text', text });
    return this.assistant(content);
  }

  /**
   * One tool round: an assistant message (optional thinking and text, then the calls; without text it is
   * a tool-only message) and a toolResult for each call, in order.
   */
  tools(steps: ToolStep[], lead: { thinking?: string; text?: string } = {}): ToolRound {
    const content: AssistantContentBlock[] = [];
    if (lead.thinking) content.push({ type: 'thinking', thinking: lead.thinking });
    if (lead.text) content.push({ type: 'text', text: lead.text });
    const ids = steps.map(
      () => `${this.toolIdPrefix}${(++this.toolCallCount).toString(36).padStart(6, '0')}`,
    );
    steps.forEach((step, i) => {
      content.push({ type: 'toolCall', id: ids[i] as string, name: step.name, arguments: step.args });
    });
    const assistantId = this.assistant(content, 'toolUse');
    const resultIds = steps.map((step, i) => {
      this.clock.advance(400 + Math.min(step.result.length, 20_000) / 4);
      this.contextTokens += tokensOf(step.result);
      return this.session.appendMessage({
        role: 'toolResult',
        toolCallId: ids[i] as string,
        toolName: step.name,
        content: [{ type: 'text', text: step.result }],
        ...(step.details !== undefined ? { details: step.details } : {}),
        isError: step.isError ?? false,
        timestamp: this.clock.now(),
      });
    });
    return { assistantId, resultIds };
  }

  /** A command the user ran with `!` (or `!!`, kept out of the model's context). */
  userBash(command: string, output: string, exitCode = 0, excludeFromContext = false): string {
    this.clock.advance(20_000);
    return this.session.appendMessage({
      role: 'bashExecution',
      command,
      output,
      exitCode,
      cancelled: false,
      truncated: false,
      ...(excludeFromContext ? { excludeFromContext: true } : {}),
      timestamp: this.clock.now(),
    });
  }

  /** A bookkeeping entry a few seconds after the previous one. */
  soon<T>(append: () => T, seconds = 3): T {
    this.clock.advance(seconds * 1000);
    return append();
  }

  /** The path was compacted or summarised: the model now sees about `tokens` tokens. */
  resetContext(tokens: number): void {
    this.contextTokens = tokens;
  }
}

// ---------------------------------------------------------------- tool result texts

/** `read` output: the file's lines, as the read tool returns them. */
export const readStep = (path: string, content: string): ToolStep => ({
  name: 'read',
  args: { path },
  result: content,
});

export const bashStep = (command: string, output: string, exitCode = 0): ToolStep => ({
  name: 'bash',
  args: { command },
  result: output.length > 0 ? output : '(no output)',
  isError: exitCode !== 0,
});

export const editStep = (path: string, oldText: string, newText: string, error?: string): ToolStep =>
  error
    ? { name: 'edit', args: { path, oldText, newText }, result: error, isError: true }
    : {
        name: 'edit',
        args: { path, oldText, newText },
        result: `Successfully replaced text in ${path}.`,
        details: { diff: `-${oldText.split('\n')[0] ?? ''}\n+${newText.split('\n')[0] ?? ''}` },
      };

export const writeStep = (path: string, content: string): ToolStep => ({
  name: 'write',
  args: { path, content },
  result: `Successfully wrote ${content.length} bytes to ${path}`,
});

/** A vitest run's console output for the given test names (all passing unless listed in `failures`). */
export function vitestOutput(
  file: string,
  tests: readonly string[],
  failures: Readonly<Record<string, string>> = {},
  startedAt = '09:00:00',
): string {
  const failed = tests.filter((name) => failures[name] !== undefined);
  const lines = [' RUN  v4.1.12 /home/dev/projects/tiny-csv', ''];
  const mark = failed.length > 0 ? '❯' : '✓';
  const counts =
    failed.length > 0 ? `(${tests.length} tests | ${failed.length} failed)` : `(${tests.length} tests)`;
  lines.push(` ${mark} ${file} ${counts} ${6 + tests.length}ms`);
  tests.forEach((name, i) => {
    const failure = failures[name];
    lines.push(`   ${failure ? '×' : '✓'} ${name} ${i % 3}ms`);
    if (failure) lines.push(`     → ${failure}`);
  });
  lines.push('');
  lines.push(` Test Files  ${failed.length > 0 ? '1 failed' : '1 passed'} (1)`);
  lines.push(
    `      Tests  ${failed.length > 0 ? `${failed.length} failed | ${tests.length - failed.length} passed` : `${tests.length} passed`} (${tests.length})`,
  );
  lines.push(`   Start at  ${startedAt}`);
  lines.push(`   Duration  ${280 + tests.length * 4}ms`);
  if (failed.length > 0) lines.push('', 'Command exited with code 1');
  return lines.join('\n');
}
