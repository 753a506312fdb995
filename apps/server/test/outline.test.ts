import { SessionManager } from '@canopy/session-core';
import { describe, expect, it } from 'vitest';
import { assistantMsg, userMsg } from '../../../packages/session-core/test/messages';
import { outlineOfSession } from '../src/outline';

const encoder = new TextEncoder();

describe('canopy --outline', () => {
  it('prints the outline rows with connectors, active-path bullets, label chips, the leaf cursor and the footer', () => {
    const sm = SessionManager.inMemory('/home/dev/demo');
    sm.appendMessage(userMsg('Start task'));
    const plan = sm.appendMessage(assistantMsg('Plan'));
    sm.appendMessage(userMsg('Try approach A'));
    sm.branch(plan);
    sm.appendMessage(userMsg('Try approach B'));
    const result = sm.appendMessage(assistantMsg('B result'));
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
    sm.appendMessage(userMsg('hello'));
    const text = `${sm.toJsonl()}not json\n`;
    const lines = outlineOfSession('broken.jsonl', encoder.encode(text));
    expect(lines.at(-1)).toMatch(/^ {2}! line 3: not valid JSON/);
  });
});
