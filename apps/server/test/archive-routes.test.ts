// Archive, restore and the tidy list over HTTP (docs/archive-and-family.md): one appended line per
// record through the session's write path, refusals coded, the snapshot's flags following the records.
import fs from 'node:fs';
import { ARCHIVE_CUSTOM_TYPE, MemoryStorage, SessionManager, ViewFlags } from '@canopy/session-core';
import { afterEach, describe, expect, it } from 'vitest';
import { lockFileOf } from '../src/files/confined';
import { AUTH, fakeClock, getSnapshot, sessionIdOf } from './helpers';
import { setupOwn, type OwnEnv } from './own-sessions';

/** u1 ─ a1 ─┬─ u2 ─ a2 (answered, abandoned) ├─ u4 (unanswered) └─ u3 ─ a3 (the leaf). */
function forked() {
  const storage = new MemoryStorage();
  let now = Date.UTC(2026, 0, 1);
  const sm = SessionManager.inMemory('/work/project', { storage, now: () => (now += 1000) });
  const say = (role: 'user' | 'assistant', text: string) =>
    sm.appendMessage({ role, content: [{ type: 'text', text }], timestamp: 1 } as never);
  const u1 = say('user', 'start');
  const a1 = say('assistant', 'hello');
  const u2 = say('user', 'first try');
  const a2 = say('assistant', 'first answer');
  sm.branch(a1);
  const u4 = say('user', 'never answered');
  sm.branch(a1);
  const u3 = say('user', 'second try');
  const a3 = say('assistant', 'second answer');
  return { text: storage.read(), ids: { u1, a1, u2, a2, u3, a3, u4 } };
}

describe('archive routes', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  const put = (id: string, entryId: string, payload: unknown, headers: Record<string, string> = AUTH) =>
    env.app.inject({
      method: 'PUT',
      url: `/api/sessions/${id}/archive/${entryId}`,
      headers,
      payload: payload as object,
    });

  it('archives with one appended line, refuses the active path, restores with another line', async () => {
    const session = forked();
    env = await setupOwn({ 'a.jsonl': session.text }, { clock: fakeClock(), quietWindowMs: 0 });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    const file = env.file('a.jsonl');
    const { u2, a2, a1, u4 } = session.ids;

    const archived = await put(id, u2, { archived: true });
    expect(archived.statusCode).toBe(200);
    expect(archived.json()).toMatchObject({ targetId: u2, archived: true });
    const afterArchive = fs.readFileSync(file, 'utf8');
    expect(afterArchive.startsWith(session.text)).toBe(true);
    const added = afterArchive.slice(session.text.length).trimEnd().split('\n');
    expect(added).toHaveLength(1);
    expect(JSON.parse(added[0]!)).toMatchObject({
      type: 'custom',
      customType: ARCHIVE_CUSTOM_TYPE,
      data: { targetId: u2, archived: true },
    });
    const flags = async () =>
      Object.fromEntries(
        (await getSnapshot(env.app, id)).nodes.map((n) => [n.id, n.flags & ViewFlags.ArchiveTarget]),
      );
    expect(await flags()).toMatchObject({
      // Only the record's target carries the flag; the page derives the branch below it.
      [u2]: ViewFlags.ArchiveTarget,
      [a2]: 0,
      [a1]: 0,
      [u4]: 0,
    });

    const refused = await put(id, a1, { archived: true });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      error: { code: 'ACTIVE_PATH', message: expect.stringMatching(/current leaf/) },
    });
    expect((await put(id, 'no-such-entry', { archived: true })).json()).toMatchObject({
      error: { code: 'ENTRY_NOT_FOUND' },
    });
    expect((await put(id, u2, { archived: 'yes' })).statusCode).toBe(400);
    expect((await put(id, u2, { archived: true }, { host: AUTH.host })).statusCode).toBe(401);
    expect(fs.readFileSync(file, 'utf8')).toBe(afterArchive);

    const restored = await put(id, u2, { archived: false });
    expect(restored.statusCode).toBe(200);
    const lines = fs.readFileSync(file, 'utf8').slice(afterArchive.length).trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ data: { targetId: u2, archived: false } });
    expect(await flags()).toMatchObject({ [u2]: 0, [a2]: 0 });
  });

  it('offers the unanswered branch to tidy, and the archived one no longer', async () => {
    const session = forked();
    env = await setupOwn({ 'a.jsonl': session.text }, { clock: fakeClock(), quietWindowMs: 0 });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    const tidy = async () =>
      (await env.app.inject({ method: 'GET', url: `/api/sessions/${id}/tidy`, headers: AUTH })).json();
    expect(await tidy()).toEqual({
      suggestions: [
        { targetId: session.ids.u4, reason: 'unanswered', entries: 1, text: 'user: never answered' },
      ],
      unknownTargets: [],
    });
    expect((await put(id, session.ids.u4, { archived: true })).statusCode).toBe(200);
    expect(await tidy()).toEqual({ suggestions: [], unknownTargets: [] });
  });

  it('writes nothing while oh-my-pi holds the session', async () => {
    const session = forked();
    const clock = fakeClock();
    env = await setupOwn({ 'a.jsonl': session.text }, { clock, quietWindowMs: 0, midWriteWaitMs: 1000 });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    fs.writeFileSync(lockFileOf(env.file('a.jsonl')), `${process.pid}:${clock.now()}\n`);
    const refused = await put(id, session.ids.u2, { archived: true });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ error: { code: 'FILE_LOCKED' } });
    expect(fs.readFileSync(env.file('a.jsonl'), 'utf8')).toBe(session.text);
  });
});
