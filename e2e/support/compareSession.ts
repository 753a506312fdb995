// The compare view's session (e2e/tests/compare.spec.ts, compare-screenshots.spec.ts): written by
// session-core's SessionManager, two approaches with known edits and known costs.
import { SessionManager, type AssistantContentBlock } from '@canopy/session-core';
import { assistantReplyOf } from './sessionFile';

/** A reply that cost `cost` dollars, so the lanes' costs differ by a known amount. */
function reply(content: AssistantContentBlock[], cost: number) {
  return {
    ...assistantReplyOf(content, 0),
    usage: {
      input: 100,
      output: 50,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 150,
      cost: { input: cost / 2, output: cost / 2, cacheRead: 0, cacheWrite: 0, total: cost },
    },
  };
}

/** start → plan; A writes src/app.ts and edits it (cheap); B writes src/app.ts and src/extra.ts (costly, the leaf). */
export function makeCompareSession() {
  const sm = SessionManager.inMemory('/home/dev/projects/app');
  const user = (text: string) => sm.appendMessage({ role: 'user', content: text, timestamp: 0 });
  const result = (toolCallId: string, toolName: string) =>
    sm.appendMessage({
      role: 'toolResult',
      toolCallId,
      toolName,
      content: [{ type: 'text', text: 'ok' }],
      isError: false,
      timestamp: 0,
    });
  user('Make the app greet people');
  const plan = sm.appendMessage(reply([{ type: 'text', text: 'Two ways: A or B.' }], 0.01));
  const tryA = user('Try approach A');
  const writeA = sm.appendMessage(
    reply(
      [
        {
          type: 'toolCall',
          id: 'call-a1',
          name: 'write',
          arguments: { path: 'src/app.ts', content: 'export const greet = () => "hi";\n' },
        },
      ],
      0.02,
    ),
  );
  const writeAResult = result('call-a1', 'write');
  const editA = sm.appendMessage(
    reply(
      [
        {
          type: 'toolCall',
          id: 'call-a2',
          name: 'edit',
          arguments: { path: 'src/app.ts', edits: [{ oldText: '"hi"', newText: '"hello"' }] },
        },
      ],
      0.02,
    ),
  );
  const editAResult = result('call-a2', 'edit');
  const doneA = sm.appendMessage(
    reply([{ type: 'text', text: 'Done with A.\nThe app says hello.\nOne file changed.' }], 0.01),
  );
  sm.branch(plan);
  const tryB = user('Try approach B');
  const writeB = sm.appendMessage(
    reply(
      [
        {
          type: 'toolCall',
          id: 'call-b1',
          name: 'write',
          arguments: {
            path: 'src/app.ts',
            content: 'import { word } from "./extra";\nexport const greet = () => word;\n',
          },
        },
        {
          type: 'toolCall',
          id: 'call-b2',
          name: 'write',
          arguments: { path: 'src/extra.ts', content: 'export const word = "hey";\n' },
        },
      ],
      0.5,
    ),
  );
  const writeBResult = result('call-b1', 'write');
  result('call-b2', 'write');
  const doneB = sm.appendMessage(
    reply([{ type: 'text', text: 'Done with B.\nThe app says hey.\nTwo files changed.' }], 0.25),
  );
  return {
    jsonl: sm.toJsonl(),
    ids: { plan, tryA, writeA, writeAResult, editA, editAResult, doneA, tryB, writeB, writeBResult, doneB },
  };
}
