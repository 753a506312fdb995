// The write path's promises (README, "Safety with your files"): whole lines only, never beside a
// writer mid-line or mid-burst or holding oh-my-pi's lock, failed writes rolled back with a
// specific error, tears reported, every operation confined to the roots.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WriteOnce } from '../src/files/confined';
import { AUTH, deadPid, fakeClock, getSnapshot, sessionIdOf } from './helpers';
import { makeSession, sendMessage, setupOwn, type OwnEnv } from './own-sessions';

interface ErrorBody {
  error: { code: string; message: string };
}

function externalLine(id: string, parentId: string | null, text: string): string {
  return `${JSON.stringify({
    type: 'message',
    id,
    parentId,
    timestamp: new Date().toISOString(),
    message: { role: 'user', content: [{ type: 'text', text }], timestamp: 1 },
  })}\n`;
}

function label(env: OwnEnv, id: string, entryId: string, text = 'mark') {
  return env.app.inject({
    method: 'PUT',
    url: `/api/sessions/${id}/labels/${entryId}`,
    headers: AUTH,
    payload: { label: text },
  });
}

async function snapshot(env: OwnEnv, id: string) {
  return getSnapshot(env.app, id);
}

function everyLineIsJson(text: string): boolean {
  return (
    text.endsWith('\n') &&
    text
      .trimEnd()
      .split('\n')
      .every((line) => {
        try {
          JSON.parse(line);
          return true;
        } catch {
          return false;
        }
      })
  );
}

describe('appending beside another writer', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  it('a write waits until the file has been quiet for the window after another writer appended, then appends', async () => {
    const session = makeSession();
    const clock = fakeClock();
    env = await setupOwn({ 'a.jsonl': session.text }, { clock, quietWindowMs: 500, midWriteWaitMs: 5000 });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    await snapshot(env, id);
    fs.appendFileSync(env.file('a.jsonl'), externalLine('ext00001', session.ids.at(-1)!, 'agent'));
    const response = await label(env, id, session.ids[0]!);
    expect(response.statusCode).toBe(200);
    expect(clock.slept).toBeGreaterThanOrEqual(500);
    expect(everyLineIsJson(fs.readFileSync(env.file('a.jsonl'), 'utf8'))).toBe(true);
  });

  it('a writer that keeps appending: FILE_BUSY, and nothing of ours is written', async () => {
    const session = makeSession();
    let n = 0;
    let parent = session.ids.at(-1)!;
    const file = () => env.file('a.jsonl');
    const clock = fakeClock(() => {
      const id = `ext${String(++n).padStart(5, '0')}`;
      fs.appendFileSync(file(), externalLine(id, parent, `agent ${n}`));
      parent = id;
    });
    env = await setupOwn({ 'a.jsonl': session.text }, { clock, quietWindowMs: 500, midWriteWaitMs: 2000 });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    await snapshot(env, id);
    fs.appendFileSync(file(), externalLine('ext00000', parent, 'agent 0'));
    const response = await label(env, id, session.ids[0]!);
    expect(response.statusCode).toBe(409);
    expect((response.json() as ErrorBody).error.code).toBe('FILE_BUSY');
    const lines = fs.readFileSync(file(), 'utf8').trimEnd().split('\n');
    expect(lines.filter((line) => line.includes('"type":"label"'))).toEqual([]);
  });

  it("oh-my-pi's live lock file refuses the write with FILE_LOCKED; a dead process's or a stale lock is ignored", async () => {
    const session = makeSession();
    const clock = fakeClock();
    env = await setupOwn({ 'a.jsonl': session.text }, { clock, quietWindowMs: 0, midWriteWaitMs: 1000 });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    const lock = path.join(env.root, '.a.jsonl.lock');
    const before = fs.readFileSync(env.file('a.jsonl'));

    fs.writeFileSync(lock, `${process.pid}:${clock.now()}`);
    const locked = await label(env, id, session.ids[0]!);
    expect(locked.statusCode).toBe(409);
    expect((locked.json() as ErrorBody).error.code).toBe('FILE_LOCKED');
    expect(fs.readFileSync(env.file('a.jsonl')).equals(before)).toBe(true);

    fs.writeFileSync(lock, `${deadPid()}:${clock.now()}`);
    expect((await label(env, id, session.ids[0]!, 'dead')).statusCode).toBe(200);

    fs.writeFileSync(lock, `${process.pid}:${clock.now() - 60_000}`);
    expect((await label(env, id, session.ids[0]!, 'stale')).statusCode).toBe(200);
  });

  it("another writer's half line landing between the last check and our write is reported as FILE_TORN and noted as an issue", async () => {
    const session = makeSession();
    const write: WriteOnce = (fd, data) => {
      fs.appendFileSync(env.file('a.jsonl'), '{"type":"message","id":"ag');
      return fs.writeSync(fd, data);
    };
    env = await setupOwn({ 'a.jsonl': session.text }, { appendWrite: write, quietWindowMs: 0 });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    const response = await label(env, id, session.ids[0]!);
    expect(response.statusCode).toBe(500);
    expect((response.json() as ErrorBody).error.code).toBe('FILE_TORN');
    const after = await snapshot(env, id);
    const lastLine = session.text.trimEnd().split('\n').length + 1;
    expect(after.issues.map((issue) => issue.line)).toContain(lastLine);
  });

  it("another writer's whole line landing just before ours: both lines whole, ours acknowledged and the leaf on it", async () => {
    const session = makeSession();
    const write: WriteOnce = (fd, data) => {
      fs.appendFileSync(env.file('a.jsonl'), externalLine('ext00001', session.ids.at(-1)!, 'agent'));
      return fs.writeSync(fd, data);
    };
    env = await setupOwn({ 'a.jsonl': session.text }, { appendWrite: write, quietWindowMs: 0 });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    const response = await sendMessage(env, id, 'from canopy');
    expect(response.statusCode).toBe(200);
    const { entryId } = response.json() as { entryId: string };
    const text = fs.readFileSync(env.file('a.jsonl'), 'utf8');
    expect(everyLineIsJson(text)).toBe(true);
    const after = await snapshot(env, id);
    expect(after.nodes.map((node) => node.id)).toEqual(expect.arrayContaining(['ext00001', entryId]));
    expect(after.leafId).toBe(entryId);
    expect(after.issues).toEqual([]);
  });
});

describe('failed writes', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  const failing = (code: string, partial: boolean): WriteOnce => {
    return (fd, data) => {
      if (partial) fs.writeSync(fd, data, 0, Math.floor(data.length / 2));
      throw Object.assign(new Error(`${code}: simulated`), { code });
    };
  };

  for (const [code, expected, status] of [
    ['ENOSPC', 'DISK_FULL', 507],
    ['EROFS', 'READ_ONLY', 403],
    ['EACCES', 'READ_ONLY', 403],
  ] as const) {
    it(`${code} after part of a line was written: the part is removed again and the answer is ${expected}`, async () => {
      const session = makeSession();
      env = await setupOwn(
        { 'a.jsonl': session.text },
        { appendWrite: failing(code, true), quietWindowMs: 0 },
      );
      const id = await sessionIdOf(env.app, 'a.jsonl');
      const before = fs.readFileSync(env.file('a.jsonl'));
      const response = await sendMessage(env, id, 'x'.repeat(500_000));
      expect(response.statusCode).toBe(status);
      expect((response.json() as ErrorBody).error.code).toBe(expected);
      expect(fs.readFileSync(env.file('a.jsonl')).equals(before)).toBe(true);
    });
  }

  it('a short write is rolled back and answered with a specific error, the file ends in a whole line', async () => {
    const session = makeSession();
    const short: WriteOnce = (fd, data) => fs.writeSync(fd, data, 0, 100);
    env = await setupOwn({ 'a.jsonl': session.text }, { appendWrite: short, quietWindowMs: 0 });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    const before = fs.readFileSync(env.file('a.jsonl'));
    const response = await sendMessage(env, id, 'y'.repeat(10_000));
    expect(response.statusCode).toBe(500);
    expect((response.json() as ErrorBody).error.code).toBe('WRITE_FAILED');
    expect(fs.readFileSync(env.file('a.jsonl')).equals(before)).toBe(true);
    expect((await snapshot(env, id)).nodes).toHaveLength(session.ids.length);
  });

  it('writing to a deleted session is SESSION_NOT_FOUND and does not recreate the file', async () => {
    const session = makeSession();
    env = await setupOwn({ 'a.jsonl': session.text }, { quietWindowMs: 0 });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    await snapshot(env, id);
    fs.rmSync(env.file('a.jsonl'));
    const response = await label(env, id, session.ids[0]!);
    expect(response.statusCode).toBe(404);
    expect((response.json() as ErrorBody).error).toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect((response.json() as ErrorBody).error.message).toContain('deleted');
    expect(fs.existsSync(env.file('a.jsonl'))).toBe(false);
  });
});

describe('navigation', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  it('two simultaneous plain jumps both succeed (no "summary already being generated")', async () => {
    const session = makeSession(3);
    env = await setupOwn({ 'a.jsonl': session.text }, { quietWindowMs: 0 });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    const jump = (targetId: string) =>
      env.app.inject({
        method: 'POST',
        url: `/api/sessions/${id}/navigate`,
        headers: AUTH,
        payload: { targetId },
      });
    const [first, second] = await Promise.all([jump(session.ids[1]!), jump(session.ids[3]!)]);
    expect([first.statusCode, second.statusCode], `${first.body} ${second.body}`).toEqual([200, 200]);
    expect((await snapshot(env, id)).leafId).toBe(session.ids[3]);
  });
});

describe('entries without a string type', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  it('an entry with an id but no string type appears in the tree, with an issue noted', async () => {
    const session = makeSession(1);
    const untyped = JSON.stringify({ id: 'untyped1', parentId: session.ids.at(-1), timestamp: 't' });
    const numeric = JSON.stringify({ type: 7, id: 'numeric1', parentId: 'untyped1', timestamp: 't' });
    env = await setupOwn({ 'a.jsonl': `${session.text}${untyped}\n${numeric}\n` });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    const snap = await snapshot(env, id);
    expect(snap.nodes.slice(-2)).toMatchObject([
      { id: 'untyped1', parentId: session.ids.at(-1), type: 'untyped' },
      { id: 'numeric1', parentId: 'untyped1', type: 'untyped' },
    ]);
    const firstLine = session.text.trimEnd().split('\n').length + 1;
    expect(snap.issues.map((issue) => issue.line)).toEqual([firstLine, firstLine + 1]);
  });
});
