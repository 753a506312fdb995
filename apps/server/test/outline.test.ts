import { SessionManager } from '@canopy/session-core';
import { describe, expect, it } from 'vitest';
import { outlineOfSession } from '../src/outline';

const encoder = new TextEncoder();

function user(text: string) {
  return { role: 'user' as const, content: text, timestamp: Date.now() };
}

function assistant(text: string) {
  return {
    role: 'assistant' as const,
    content: [{ type: 'text' as const, text }],
    api: 'anthropic-messages',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    usage: {
      input: 1,
      output: 1,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 2,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: 'stop' as const,
    timestamp: Date.now(),
  };
}

describe('canopy --outline', () => {
  it('prints the outline rows with connectors, active-path bullets, label chips, the leaf cursor and the footer', () => {
    const sm = SessionManager.inMemory('/home/dev/demo');
    sm.appendMessage(user('Start task'));
    const plan = sm.appendMessage(assistant('Plan'));
    sm.appendMessage(user('Try approach A'));
    sm.branch(plan);
    sm.appendMessage(user('Try approach B'));
    const result = sm.appendMessage(assistant('B result'));
    sm.appendLabelChange(result, 'milestone');
    const lines = outlineOfSession('demo.jsonl', encoder.encode(sm.toJsonl()));
    expect(lines).toEqual([
      '── demo.jsonl · /home/dev/demo (6 entries)',
      '  • user: Start task',
      '  • assistant: Plan',
      '  ├─ • user: Try approach B',
      '› │     • [milestone] assistant: B result',
      '  └─ user: Try approach A',
      '  (4/5)',
    ]);
  });

  it('lists the load issues of a damaged file after its rows', () => {
    const sm = SessionManager.inMemory('/tmp/x');
    sm.appendMessage(user('hello'));
    const text = `${sm.toJsonl()}not json\n`;
    const lines = outlineOfSession('broken.jsonl', encoder.encode(text));
    expect(lines.at(-1)).toMatch(/^ {2}! line 3: not valid JSON/);
  });
});
