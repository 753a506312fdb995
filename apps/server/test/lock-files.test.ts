// oh-my-pi's lock file beside a session (`.<name>.jsonl.lock`), read as oh-my-pi 18.3.4 writes it
// (docs/safety.md#appends): a bounded, non-blocking read of a regular file only, oh-my-pi's own rule
// for a stale or malformed lock, never honoured past a bounded time, and what happened said.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { ServerEvent } from '@canopy/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LOCK_STALE_MS, LOCK_UNRECORDED_MS, lockFileOf, lockStateOf } from '../src/files/confined';
import { AUTH, deadPid, fakeClock, sessionIdOf } from './helpers';
import { makeSession, setupOwn, type OwnEnv } from './own-sessions';

describe('lockStateOf', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  async function withLock(): Promise<{ file: string; lock: string }> {
    env = await setupOwn({ 'a.jsonl': makeSession().text });
    const file = env.file('a.jsonl');
    return { file, lock: lockFileOf(file) };
  }

  it('a pid:time record is held while its process runs, for at most LOCK_STALE_MS, never from the future', async () => {
    const { file, lock } = await withLock();
    const now = Date.now();
    expect(lockStateOf(file, now)).toEqual({ held: false });
    fs.writeFileSync(lock, `${process.pid}:${now - 100}\n`);
    expect(lockStateOf(file, now)).toMatchObject({
      held: true,
      message: expect.stringContaining(`process ${process.pid}`),
    });
    expect(lockStateOf(file, now + LOCK_STALE_MS)).toMatchObject({
      held: false,
      ignored: expect.stringMatching(/longer than any write/),
    });
    fs.writeFileSync(lock, `${process.pid}:${now + 3_600_000}\n`);
    expect(lockStateOf(file, now)).toMatchObject({
      held: false,
      ignored: expect.stringMatching(/in the future/),
    });
    fs.writeFileSync(lock, `${deadPid()}:${now}\n`);
    expect(lockStateOf(file, now)).toMatchObject({ held: false, ignored: expect.stringMatching(/is gone/) });
    // A pid no system gives is no record: the file's age decides, as for garbage.
    fs.writeFileSync(lock, `${2 ** 40}:${now}\n`);
    expect(lockStateOf(file, Date.now() + LOCK_UNRECORDED_MS + 1000)).toMatchObject({ held: false });
  });

  it('an empty or garbage lock is held only while it is LOCK_UNRECORDED_MS young (oh-my-pi: a lock being created)', async () => {
    const { file, lock } = await withLock();
    for (const content of ['', 'garbage', '12:']) {
      fs.writeFileSync(lock, content);
      const mtime = fs.statSync(lock).mtimeMs;
      expect(lockStateOf(file, mtime + 10), JSON.stringify(content)).toMatchObject({ held: true });
      expect(lockStateOf(file, mtime + LOCK_UNRECORDED_MS + 1), JSON.stringify(content)).toMatchObject({
        held: false,
        ignored: expect.stringMatching(/no "pid:time" record/),
      });
      // Dated an hour ahead: not held now, nor until then.
      fs.utimesSync(lock, new Date(mtime + 3_600_000), new Date(mtime + 3_600_000));
      expect(lockStateOf(file, mtime), JSON.stringify(content)).toMatchObject({
        held: false,
        ignored: expect.stringMatching(/in the future/),
      });
    }
  });

  it('a FIFO, a link to /dev/zero and a 1 GB file are ignored at once, without blocking or reading them', async () => {
    const { file, lock } = await withLock();
    expect(spawnSync('mkfifo', [lock]).status).toBe(0);
    expect(lockStateOf(file, Date.now())).toMatchObject({
      held: false,
      ignored: expect.stringMatching(/not a regular file/),
    });
    fs.rmSync(lock);
    fs.symlinkSync('/dev/zero', lock);
    expect(lockStateOf(file, Date.now())).toMatchObject({
      held: false,
      ignored: expect.stringMatching(/symbolic link/),
    });
    fs.rmSync(lock);
    fs.writeFileSync(lock, `${process.pid}:${Date.now()}\n`);
    fs.truncateSync(lock, 1 << 30);
    expect(lockStateOf(file, Date.now())).toMatchObject({
      held: false,
      ignored: expect.stringMatching(/larger than/),
    });
  });
});

describe('writing beside a lock file', () => {
  let env: OwnEnv;
  afterEach(async () => {
    vi.restoreAllMocks();
    await env.close();
  });

  function label(id: string, entryId: string, text: string) {
    return env.app.inject({
      method: 'PUT',
      url: `/api/sessions/${id}/labels/${entryId}`,
      headers: AUTH,
      payload: { label: text },
    });
  }

  it('a FIFO named as the lock neither hangs the server nor stops the write; the page is told it was ignored', async () => {
    const session = makeSession();
    env = await setupOwn({ 'a.jsonl': session.text }, { clock: fakeClock(), quietWindowMs: 0 });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    const published: ServerEvent[] = [];
    vi.spyOn(env.app.canopy.hub, 'publish').mockImplementation((event) => void published.push(event));
    expect(spawnSync('mkfifo', [lockFileOf(env.file('a.jsonl'))]).status).toBe(0);
    const first = await label(id, session.ids[0]!, 'one');
    expect(first.statusCode).toBe(200);
    const second = await label(id, session.ids[1]!, 'two');
    expect(second.statusCode).toBe(200);
    const notices = published.filter((event) => event.type === 'error' && event.code === 'LOCK_IGNORED');
    // Said once for the same lock file, not on every write.
    expect(notices).toEqual([
      {
        type: 'error',
        code: 'LOCK_IGNORED',
        sessionId: id,
        message:
          '.a.jsonl.lock is not a regular file: it is not a lock oh-my-pi writes, so Canopy ignored it.',
      },
    ]);
    expect(fs.readFileSync(env.file('a.jsonl'), 'utf8')).toContain('"label":"two"');
  });

  it('a link to /dev/zero, a 1 GB lock and an empty lock dated in the future never block a write', async () => {
    const session = makeSession();
    env = await setupOwn({ 'a.jsonl': session.text }, { clock: fakeClock(), quietWindowMs: 0 });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    const lock = lockFileOf(env.file('a.jsonl'));
    fs.symlinkSync('/dev/zero', lock);
    expect((await label(id, session.ids[0]!, 'zero')).statusCode).toBe(200);
    fs.rmSync(lock);
    fs.writeFileSync(lock, '');
    fs.truncateSync(lock, 1 << 30);
    expect((await label(id, session.ids[0]!, 'big')).statusCode).toBe(200);
    fs.writeFileSync(lock, '');
    const later = new Date(Date.now() + 3_600_000);
    fs.utimesSync(lock, later, later);
    expect((await label(id, session.ids[0]!, 'future')).statusCode).toBe(200);
    const text = fs.readFileSync(env.file('a.jsonl'), 'utf8');
    for (const name of ['zero', 'big', 'future']) expect(text).toContain(`"label":"${name}"`);
  });

  it('a lock held by a live process is refused with FILE_LOCKED naming it and how long Canopy waited', async () => {
    const session = makeSession();
    const clock = fakeClock();
    env = await setupOwn({ 'a.jsonl': session.text }, { clock, quietWindowMs: 0, midWriteWaitMs: 1000 });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    fs.writeFileSync(lockFileOf(env.file('a.jsonl')), `${process.pid}:${clock.now()}\n`);
    const before = fs.readFileSync(env.file('a.jsonl'));
    const refused = await label(id, session.ids[0]!, 'x');
    expect(refused.statusCode).toBe(409);
    const { error } = refused.json() as { error: { code: string; message: string } };
    expect(error.code).toBe('FILE_LOCKED');
    // (The clock's time also moved on with the server's own waits since the lock was written.)
    expect(error.message).toMatch(
      new RegExp(
        `^oh-my-pi \\(process ${process.pid}\\) holds the session's lock file \\.a\\.jsonl\\.lock \\(for \\d+\\.\\d s\\)\\. Canopy waited 1\\.0 s for it\\. Nothing was written\\.$`,
      ),
    );
    expect(fs.readFileSync(env.file('a.jsonl')).equals(before)).toBe(true);
    expect(path.basename(lockFileOf(env.file('a.jsonl')))).toBe('.a.jsonl.lock');
  });
});
