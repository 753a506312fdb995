// Archived sessions (`*.jsonl.gz`) that cannot be read are listed with the reason and opening one
// is an error that says so (docs/safety.md#archives); a good one beside them lists and opens.
import fs from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { SessionListItem } from '@canopy/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { AUTH, getSnapshot, waitFor } from './helpers';
import { makeSession, setupOwn, type OwnEnv } from './own-sessions';

describe('archives that cannot be read', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  it('a corrupt, a cut-off, a zero-filled and a bomb archive are listed with why, and opening each says so', async () => {
    const good = makeSession(2).text;
    const whole = gzipSync(good);
    env = await setupOwn({});
    fs.writeFileSync(env.file('good.jsonl.gz'), whole);
    fs.writeFileSync(
      env.file('corrupt.jsonl.gz'),
      Buffer.concat([whole.subarray(0, 10), Buffer.alloc(200, 7)]),
    );
    fs.writeFileSync(env.file('cut.jsonl.gz'), whole.subarray(0, whole.length - 20));
    fs.writeFileSync(env.file('zeros.jsonl.gz'), Buffer.alloc(8192));
    // 48 MB of lines in ~50 KB.
    fs.writeFileSync(
      env.file('bomb.jsonl.gz'),
      gzipSync(Buffer.concat([Buffer.from(good), Buffer.alloc(48 << 20, '{"type":"custom","id":"x"}\n')])),
    );
    await env.app.canopy.store.index.scan();
    const list = await env.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH });
    const byPath = new Map(
      (list.json() as { sessions: SessionListItem[] }).sessions.map((item) => [item.path, item]),
    );
    expect([...byPath.keys()].sort()).toEqual([
      'bomb.jsonl.gz',
      'corrupt.jsonl.gz',
      'cut.jsonl.gz',
      'good.jsonl.gz',
      'zeros.jsonl.gz',
    ]);
    expect(byPath.get('good.jsonl.gz')).not.toHaveProperty('invalid');
    const expected: Record<string, { status: number; code: string; problem: RegExp }> = {
      'corrupt.jsonl.gz': { status: 409, code: 'SESSION_INVALID', problem: /^The archive is damaged/ },
      'cut.jsonl.gz': { status: 409, code: 'SESSION_INVALID', problem: /^The archive is cut off/ },
      'zeros.jsonl.gz': {
        status: 409,
        code: 'SESSION_INVALID',
        problem: /^The archive is damaged \(incorrect header check/,
      },
      'bomb.jsonl.gz': { status: 413, code: 'PAYLOAD_TOO_LARGE', problem: /more than 100 times its size/ },
    };
    for (const [name, want] of Object.entries(expected)) {
      const item = byPath.get(name)!;
      // Nothing read before it failed is shown as the session's.
      expect(item, name).toMatchObject({
        invalid: true,
        problem: expect.stringMatching(want.problem),
        entryCount: 0,
        messageCount: 0,
        issueCount: 0,
        firstMessage: '',
      });
      const opened = await env.app.inject({ method: 'GET', url: `/api/sessions/${item.id}`, headers: AUTH });
      expect(opened.statusCode, name).toBe(want.status);
      expect(opened.json(), name).toEqual({ error: { code: want.code, message: item.problem } });
    }
    expect((await getSnapshot(env.app, byPath.get('good.jsonl.gz')!.id)).nodes).toHaveLength(4);
  });

  it('an archive that appears after the start is listed from its watch event, and opening it says why it cannot be', async () => {
    env = await setupOwn({}, { rescanMs: 2_000_000_000 });
    await env.app.canopy.store.firstScan;
    fs.writeFileSync(env.file('late.jsonl.gz'), Buffer.alloc(4096));
    // The watch event names it; it is listed once a look has read it.
    const id = await waitFor(async () => {
      const list = await env.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH });
      return (list.json() as { sessions: SessionListItem[] }).sessions[0]?.id;
    });
    const opened = await env.app.inject({ method: 'GET', url: `/api/sessions/${id}`, headers: AUTH });
    expect(opened.body).toContain('SESSION_INVALID');
    expect(opened.body).toContain('The archive is damaged');
    expect(opened.body).not.toContain('SESSION_NOT_FOUND');
  });
});
