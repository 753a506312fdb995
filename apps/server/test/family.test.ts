// The family of a session over HTTP (docs/archive-and-family.md#family-of-a-session): files written
// by pi 1.6 itself (a fork by createBranchedSession, a moved parent) and an oh-my-pi subagent
// transcript in the session's folder, each grafted from bounded head reads.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FamilyResponse } from '@canopy/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { AUTH, HOST, buildTestApp, sessionIdOf } from './helpers';
import { readFamilyHead } from '../src/files/family-heads';
import { SessionFamily } from '../src/operations/session-family';
import { assistantMsg, userMsg } from '../../../packages/session-core/test/messages';
import * as pi16 from '../../../packages/session-core/test/pi16';

const user = (text: string) => ({ ...userMsg(text), timestamp: 1 });
const assistant = (text: string) => assistantMsg(text, { model: 'claude', timestamp: 2 });

describe('family route', () => {
  let dir = '';
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A pi 1.6 parent u1 a1 u2 a2 and a fork of it at a1, both written by pi into `root`; the clock
   * moves a second between writes, so the fork's header is newer than the entries it copied.
   */
  function piFamily(root: string) {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-12-01T10:00:00Z') });
    const tick = () => vi.setSystemTime(Date.now() + 1000);
    try {
      const sm = pi16.SessionManager.create('/work', root);
      const u1 = sm.appendMessage(user('the parent question'));
      tick();
      const a1 = sm.appendMessage(assistant('hi'));
      tick();
      sm.appendMessage(user('go on'));
      sm.appendMessage(assistant('went on'));
      const parent = sm.getSessionFile() as string;
      tick();
      const fork = sm.createBranchedSession(a1) as string;
      tick();
      sm.appendMessage(user('in the fork'));
      sm.appendMessage(assistant('forked'));
      return { parent, fork, u1, a1 };
    } finally {
      vi.useRealTimers();
    }
  }

  async function boot(root: string) {
    app = await buildTestApp(dir, root, path.join(dir, 'state'));
    return app;
  }

  const family = async (id: string, headers: Record<string, string> = AUTH) =>
    app!.inject({ method: 'GET', url: `/api/sessions/${id}/family`, headers });

  it('lists a pi fork grafted at the last entry it shares, and its subagent, from either file', async () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-family-')));
    const root = path.join(dir, 'sessions');
    fs.mkdirSync(root);
    const { parent, fork, a1 } = piFamily(root);
    // oh-my-pi keeps a subagent's transcript in the folder named after its session.
    const folder = parent.slice(0, -'.jsonl'.length);
    fs.mkdirSync(folder);
    const sub = pi16.SessionManager.create('/work', folder);
    sub.appendMessage(user('explore'));
    sub.appendMessage(assistant('explored'));
    fs.renameSync(sub.getSessionFile() as string, path.join(folder, 'Explorer.jsonl'));
    await boot(root);
    const parentId = await sessionIdOf(app!, path.basename(parent));
    const forkId = await sessionIdOf(app!, path.basename(fork));
    const subId = await sessionIdOf(app!, path.join(path.basename(folder), 'Explorer.jsonl'));

    const response = await family(forkId);
    expect(response.statusCode).toBe(200);
    const body = response.json() as FamilyResponse;
    expect(body.members.map((m) => [m.id, m.parentId, m.kind, m.graftId, m.depth])).toEqual(
      expect.arrayContaining([
        [parentId, null, 'root', null, 0],
        [forkId, parentId, 'fork', a1, 1],
        [subId, parentId, 'subagent', null, 1],
      ]),
    );
    expect(body.members).toHaveLength(3);
    expect(body.members[0]!).toMatchObject({ id: parentId, name: 'the parent question', entryCount: 4 });
    // A fork's first message is its parent's, copied: it is named by the first one it wrote itself.
    expect(body.members.find((m) => m.id === forkId)?.name).toBe('in the fork');
    expect(body.members.find((m) => m.id === subId)?.name).toBe('explore');
    // The parent holds no `task` call: where the subagent started is unknown, and it says so.
    expect(body.members.map((m) => [m.id, m.problems.map((p) => p.code)])).toEqual(
      expect.arrayContaining([
        [parentId, []],
        [forkId, []],
        [subId, ['call-site-not-found']],
      ]),
    );
    // The same family from the parent's side.
    const fromParent = (await family(parentId)).json() as FamilyResponse;
    expect(fromParent.members.map((m) => m.id).sort()).toEqual([parentId, forkId, subId].sort());
  });

  it('reads a member’s head again only when its file changed (the page asks after every change)', async () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-family-')));
    const root = path.join(dir, 'sessions');
    fs.mkdirSync(root);
    const { parent, fork } = piFamily(root);
    await boot(root);
    const forkId = await sessionIdOf(app!, path.basename(fork));
    const reads: string[] = [];
    const family = new SessionFamily(app!.canopy.store, undefined, (file) => {
      reads.push(path.basename(file));
      return readFamilyHead(file);
    });
    const first = await family.family(forkId);
    expect(reads.sort()).toEqual([path.basename(fork), path.basename(parent)].sort());
    reads.length = 0;
    expect(await family.family(forkId)).toEqual(first);
    expect(reads).toEqual([]);
    // The fork grows: its row's size changes, and its head alone is read again.
    fs.appendFileSync(
      fork,
      `${JSON.stringify({ type: 'custom', customType: 'x', id: 'zz', parentId: null, timestamp: new Date().toISOString() })}\n`,
    );
    await vi.waitFor(() => {
      const row = app!.canopy.store.list().find((item) => item.id === forkId)!;
      expect(row.size).toBe(fs.statSync(fork).size);
    });
    await family.family(forkId);
    expect(reads).toEqual([path.basename(fork)]);
  });

  it('follows a moved parent by its session id and says so; needs the token; 404 for no session', async () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-family-')));
    const root = path.join(dir, 'sessions');
    fs.mkdirSync(root);
    const { parent, fork, a1 } = piFamily(root);
    fs.mkdirSync(path.join(root, 'old'));
    const moved = path.join(root, 'old', path.basename(parent));
    fs.renameSync(parent, moved);
    await boot(root);
    const forkId = await sessionIdOf(app!, path.basename(fork));
    const movedId = await sessionIdOf(app!, path.join('old', path.basename(parent)));
    const body = (await family(forkId)).json() as FamilyResponse;
    const child = body.members.find((m) => m.id === forkId)!;
    expect(child).toMatchObject({ parentId: movedId, graftId: a1, kind: 'fork' });
    expect(child.problems.map((p) => p.code)).toEqual(['moved-parent']);

    expect((await family(forkId, { host: HOST })).statusCode).toBe(401);
    expect((await family('no-such-session')).statusCode).toBe(404);
  });
});
