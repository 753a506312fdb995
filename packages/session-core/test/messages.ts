// Message builders shared by the tests, shaped like the peer suites' helpers (reference-semantics §8):
// `userMsg(t)` and `assistantMsg(t)` with a minimal usage and a stop reason.
import type { AssistantMessage, Usage, UserMessage } from '../src/types';

export function testUsage(): Usage {
  return {
    input: 1,
    output: 1,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 2,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

export function userMsg(text: string): UserMessage {
  return { role: 'user', content: text, timestamp: Date.now() };
}

export function assistantMsg(text: string, overrides: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    role: 'assistant',
    content: [{ type: 'text', text }],
    api: 'anthropic-messages',
    provider: 'anthropic',
    model: 'test',
    usage: testUsage(),
    stopReason: 'stop',
    timestamp: Date.now(),
    ...overrides,
  };
}
