// Values nested thousands of levels deep in a session file (a hostile or broken `summary.details`,
// tool call arguments) never make a route answer 500: what lies too deep is shown as a note.
import { afterEach, describe, expect, it } from 'vitest';
import { TOO_DEEP } from '../src/json-depth';
import { AUTH, getSnapshot, sessionIdOf } from './helpers';
import { makeSession, setupOwn, type OwnEnv } from './own-sessions';

/** A JSON text nested `depth` levels deep, built as text (a JSON.stringify of it would overflow). */
const deepObject = (depth: number) => `${'{"d":'.repeat(depth)}{"leaf":true}${'}'.repeat(depth)}`;
const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** `entry` as a line, with `"details":0` replaced by `json` (too deep for JSON.stringify). */
function lineWith(entry: Record<string, unknown>, key: string, json: string): string {
  return JSON.stringify({ ...entry, [key]: 0 }).replace(`"${key}":0`, `"${key}":${json}`);
}

describe('values nested 5,000 levels deep', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  it('a branch summary, a compaction and a tool call holding them: every route answers, the deep part is a note', async () => {
    const session = makeSession(1);
    const at = '2026-01-01T00:00:00.000Z';
    const lines = [
      ...session.text.trimEnd().split('\n'),
      lineWith(
        {
          type: 'branch_summary',
          id: 'bs000001',
          parentId: session.ids[1],
          timestamp: at,
          fromId: session.ids[0],
          summary: 'sum',
        },
        'details',
        deepObject(5000),
      ),
      lineWith(
        {
          type: 'compaction',
          id: 'cp000001',
          parentId: 'bs000001',
          timestamp: at,
          summary: 'c',
          firstKeptEntryId: session.ids[0],
          tokensBefore: 1,
        },
        'details',
        deepArray(5000),
      ),
      JSON.stringify({
        type: 'message',
        id: 'as000001',
        parentId: 'cp000001',
        timestamp: at,
        message: {
          role: 'assistant',
          content: [{ type: 'toolCall', id: 'call1', name: 'bash', arguments: 0 }],
          timestamp: 1,
        },
      }).replace('"arguments":0', `"arguments":${deepObject(5000)}`),
    ];
    env = await setupOwn({ 'a.jsonl': `${lines.join('\n')}\n` });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    expect((await getSnapshot(env.app, id)).nodes).toHaveLength(5);
    for (const entryId of ['bs000001', 'cp000001', 'as000001']) {
      const detail = await env.app.inject({
        method: 'GET',
        url: `/api/sessions/${id}/entries/${entryId}`,
        headers: AUTH,
      });
      expect(detail.statusCode, entryId).toBe(200);
      expect(detail.body, entryId).toContain(TOO_DEEP);
    }
    for (const at of ['', '?at=bs000001', '?at=as000001']) {
      const context = await env.app.inject({
        method: 'GET',
        url: `/api/sessions/${id}/context${at}`,
        headers: AUTH,
      });
      expect(context.statusCode, at).toBe(200);
    }
  });
});
