// Subagent lanes over HTTP (docs/archive-and-family.md#subagent-lanes): an oh-my-pi session and the
// transcripts in its folder (`<stamp>_<id>.jsonl` + `<stamp>_<id>/AuthScan.jsonl`, written with
// session-core's oh-my-pi builder), the family grafting each subagent at the assistant entry whose
// `task` call started it (from the file, and from the live model once the parent is open), the
// advisor at the entry written before it, and GET /lane answering a transcript's path.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAX_LANE_ENTRIES, type FamilyResponse, type LaneResponse } from '@canopy/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { AUTH, HOST, buildTestApp, getSnapshot, sessionIdOf } from './helpers';
import { OmpSessionBuilder } from '../../../packages/session-core/test/omp-builder';
import { taskCallMsg, taskResultMsg } from '../../../packages/session-core/test/task-calls';
import { SessionFamily } from '../src/operations/session-family';
import { SessionLanes } from '../src/operations/session-lane';

const T0 = Date.UTC(2026, 8, 1, 10, 0, 0);
const STAMP = '2026-09-01T10-00-00-000Z';
const PARENT_ID = '0199a000-0000-7000-8000-0000000000aa';

/** A transcript of the parent's folder: oh-my-pi's header, then its `session_init` with the task. */
function transcript(start: number, task: string, turns: number) {
  const b = new OmpSessionBuilder({
    start,
    id: `0199a000-0000-7000-8000-${String(start % 1e12).padStart(12, '0')}`,
  });
  b.add('session_init', { systemPrompt: 'You are a subagent.', task, tools: ['read'] });
  b.user(task);
  for (let i = 0; i < turns; i++) b.assistant(`step ${i}`);
  return b;
}

describe('subagent lanes', () => {
  let dir = '';
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * The parent (seconds after T0): 1 user, 2 a call starting AuthScan, 3 its result, 4 an
   * unnamed batch call (still running: no result), 5 a reply. AuthScan (started at 2.5 s) started
   * AuthScan.Deep; Gen (an unnamed task, started at 4.5 s), Ghost (started before any call), and an
   * advisor started at 3.5 s live in the parent's folder.
   */
  function write(root: string) {
    const parent = new OmpSessionBuilder({ start: T0, id: PARENT_ID, title: 'Audit the auth code' });
    parent.user('audit the auth code');
    const authCall = parent.message({
      ...taskCallMsg('call-auth', { name: 'AuthScan', agent: 'explore', task: 'scan' }),
    });
    const authResult = parent.message({ ...taskResultMsg('call-auth', ['AuthScan']) });
    const batchCall = parent.message({
      ...taskCallMsg('call-batch', { context: 'ctx', tasks: [{ agent: 'explore', task: 'generated name' }] }),
    });
    parent.assistant('waiting for the batch');
    const parentFile = path.join(root, `${STAMP}_${PARENT_ID}.jsonl`);
    fs.writeFileSync(parentFile, parent.text());
    const folder = parentFile.slice(0, -'.jsonl'.length);
    fs.mkdirSync(folder);

    const auth = transcript(T0 + 2500, 'scan', 2);
    const deepCall = auth.message({
      ...taskCallMsg('call-deep', { name: 'Deep', agent: 'explore', task: 'deeper' }),
    });
    auth.message({ ...taskResultMsg('call-deep', ['AuthScan.Deep']) });
    fs.writeFileSync(path.join(folder, 'AuthScan.jsonl'), auth.text());
    fs.writeFileSync(path.join(folder, 'AuthScan.Deep.jsonl'), transcript(T0 + 20_000, 'deeper', 1).text());
    fs.writeFileSync(path.join(folder, 'Gen.jsonl'), transcript(T0 + 4500, 'generated name', 1).text());
    fs.writeFileSync(path.join(folder, 'Ghost.jsonl'), transcript(T0 - 5000, 'haunt', 1).text());
    fs.writeFileSync(path.join(folder, '__advisor.jsonl'), transcript(T0 + 3500, 'advise', 1).text());
    return { parentFile, folder, authCall, batchCall, deepCall, authResult };
  }

  async function boot(root: string) {
    app = await buildTestApp(dir, root, path.join(dir, 'state'));
    return app;
  }

  function tempRoot() {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-lanes-')));
    const root = path.join(dir, 'sessions');
    fs.mkdirSync(root);
    return root;
  }

  const get = async (url: string, headers: Record<string, string> = AUTH) =>
    app!.inject({ method: 'GET', url, headers });

  async function ids(folder: string) {
    const rel = (name: string) => path.join(path.basename(folder), name);
    return {
      parent: await sessionIdOf(app!, `${path.basename(folder)}.jsonl`),
      auth: await sessionIdOf(app!, rel('AuthScan.jsonl')),
      deep: await sessionIdOf(app!, rel('AuthScan.Deep.jsonl')),
      gen: await sessionIdOf(app!, rel('Gen.jsonl')),
      ghost: await sessionIdOf(app!, rel('Ghost.jsonl')),
      advisor: await sessionIdOf(app!, rel('__advisor.jsonl')),
    };
  }

  it('grafts each subagent at the call that started it and the advisor before its start, from the file and from the open parent', async () => {
    const root = tempRoot();
    const { folder, authCall, authResult, batchCall, deepCall } = write(root);
    await boot(root);
    const id = await ids(folder);
    const summary = (body: FamilyResponse) =>
      Object.fromEntries(
        body.members.map((m) => [
          m.id,
          [m.kind, m.parentId, m.graftId, m.toolCallId, m.problems.map((p) => p.code)],
        ]),
      );
    const expected = {
      [id.parent]: ['root', null, null, null, []],
      [id.auth]: ['subagent', id.parent, authCall, 'call-auth', []],
      [id.deep]: ['subagent', id.auth, deepCall, 'call-deep', []],
      [id.gen]: ['subagent', id.parent, batchCall, 'call-batch', []],
      [id.ghost]: ['subagent', id.parent, null, null, ['call-site-not-found']],
      // The last parent entry written before the advisor started (3.5 s): the result at 3 s.
      [id.advisor]: ['advisor', id.parent, authResult, null, []],
    };
    const fromFiles = (await get(`/api/sessions/${id.deep}/family`)).json() as FamilyResponse;
    expect(summary(fromFiles)).toEqual(expected);
    // The parent opened (a page shows it): the same answers, from its live model.
    await getSnapshot(app!, id.parent);
    expect(app!.canopy.store.isOpen(id.parent)).toBe(true);
    const fromModel = (await get(`/api/sessions/${id.parent}/family`)).json() as FamilyResponse;
    expect(summary(fromModel)).toEqual(expected);
  });

  it('a parent past the scan cap is not read to its end (the problem says so), unless it is open', async () => {
    const root = tempRoot();
    const { folder, authCall } = write(root);
    await boot(root);
    const id = await ids(folder);
    // A cap smaller than the parent: the call (line 3) is read, the result and later lines are not.
    const capped = new SessionFamily(app!.canopy.store, 1024);
    const body = await capped.family(id.parent);
    const auth = body.members.find((m) => m.id === id.auth)!;
    const gen = body.members.find((m) => m.id === id.gen)!;
    expect(auth).toMatchObject({ graftId: authCall, toolCallId: 'call-auth' });
    expect(gen).toMatchObject({ graftId: null, toolCallId: null });
    expect(gen.problems[0]!.message).toMatch(/larger than/);
    await getSnapshot(app!, id.parent);
    const open = await capped.family(id.parent);
    expect(open.members.find((m) => m.id === id.gen)!.problems).toEqual([]);
  });

  it('answers a transcript’s lane: its path as the tree rows show it, without opening it; needs the token; 404; a cap', async () => {
    const root = tempRoot();
    const { folder } = write(root);
    await boot(root);
    const id = await ids(folder);
    const response = await get(`/api/sessions/${id.auth}/lane`);
    expect(response.statusCode).toBe(200);
    const lane = response.json() as LaneResponse;
    const authFile = fs.readFileSync(path.join(folder, 'AuthScan.jsonl'), 'utf8').trim().split('\n');
    const lastId = (JSON.parse(authFile.at(-1)!) as { id: string }).id;
    expect(lane).toMatchObject({ sessionId: id.auth, omitted: 0, leafId: lastId });
    expect(lane.entries.map((e) => [e.role, e.text, e.error])).toEqual([
      ['other', expect.any(String), false],
      ['user', 'user: scan', false],
      ['assistant', 'assistant: step 0', false],
      ['assistant', 'assistant: step 1', false],
      ['assistant', expect.any(String), false],
      ['tool', expect.stringMatching(/^\[task: /), false],
    ]);
    expect(lane.entries.at(-1)!.id).toBe(lastId);
    // Reading a lane opens nothing.
    expect(app!.canopy.store.isOpen(id.auth)).toBe(false);
    // The same rows as the page's tree once the session is open (and then from its model).
    const snapshot = await getSnapshot(app!, id.auth);
    const rows = new Map(snapshot.nodes.map((node) => [node.id, node.text]));
    for (const entry of lane.entries) expect(entry.text).toBe(rows.get(entry.id));
    expect((await get(`/api/sessions/${id.auth}/lane`)).json()).toEqual(lane);

    expect((await get(`/api/sessions/${id.auth}/lane`, { host: HOST })).statusCode).toBe(401);
    const unknown = await get('/api/sessions/no-such-session/lane');
    expect(unknown.statusCode).toBe(404);
    expect((unknown.json() as { error: { code: string } }).error.code).toBe('SESSION_NOT_FOUND');
    const tooLarge = await new SessionLanes(app!.canopy.store, dir, 256)
      .lane(id.gen)
      .catch((e: unknown) => e);
    expect(tooLarge).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('cuts a long path to its first and last entries and says how many are left out', async () => {
    const root = tempRoot();
    const { folder } = write(root);
    fs.writeFileSync(
      path.join(folder, 'Long.jsonl'),
      transcript(T0 + 9000, 'long', MAX_LANE_ENTRIES + 50).text(),
    );
    await boot(root);
    const longId = await sessionIdOf(app!, path.join(path.basename(folder), 'Long.jsonl'));
    const lane = (await get(`/api/sessions/${longId}/lane`)).json() as LaneResponse;
    // session_init, the user message and MAX + 50 replies.
    expect(lane.entries).toHaveLength(MAX_LANE_ENTRIES);
    expect(lane.omitted).toBe(52);
    expect(lane.entries[2]!.text).toBe('assistant: step 0');
    expect(lane.entries.at(-1)!.text).toBe(`assistant: step ${MAX_LANE_ENTRIES + 49}`);
    expect(lane.entries.at(-1)!.id).toBe(lane.leafId);
  });
});
