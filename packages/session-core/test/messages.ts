// Message builders shared by the tests, shaped like the reference suites' helpers (docs/reference-tests.md):
// `userMsg(t)` and `assistantMsg(t)` with a minimal usage and a stop reason.
import { freeUsage } from '../../fixtures/src/messages';
import type { AssistantMessage, SessionEntry, Usage, UserMessage } from '../src/types';

/** Usage of `input` and `output` tokens, nothing cached, at no cost. */
export function testUsage(input = 1, output = 1): Usage {
  return freeUsage(input, output);
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

/** Builds entries by hand with timestamps one second apart, in call order (children sort by them). */
export function entryFactory(start = '2025-01-01T00:00:00.000Z') {
  let clock = Date.parse(start);
  return function entry(
    type: string,
    id: string,
    parentId: string | null,
    fields: Record<string, unknown> = {},
  ): SessionEntry {
    clock += 1000;
    return { type, id, parentId, timestamp: new Date(clock).toISOString(), ...fields };
  };
}
