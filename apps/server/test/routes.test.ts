import fs from 'node:fs';
import {
  createValidator,
  NodeColumns,
  SessionSnapshotHead,
  SnapshotClosingLine,
  SnapshotReadLine,
  SNAPSHOT_CONTENT_TYPE,
} from '@canopy/protocol';
import { MemoryStorage, SessionManager } from '@canopy/session-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHUNK_NODES, FIRST_CHUNK_NODES } from '../src/live/tree-model';
import { freshTreeNodes } from './fresh-nodes';
import {
  assembleSnapshot,
  AUTH,
  getSnapshot,
  HOST,
  SEED_IDS,
  sessionIdOf,
  setup,
  snapshotBodyLines,
  type TestEnv,
  TOKEN,
} from './helpers';

describe('REST routes over fixture copies', () => {
  let env: TestEnv;
  beforeEach(async () => {
    env = await setup([
      'seed-example.jsonl',
      'all-entry-types.jsonl',
      'malformed.jsonl',
      'branched-from-seed-example.jsonl',
      'empty.jsonl',
    ]);
  });
  afterEach(async () => env.close());

  it('lists every session with opaque ids, relative paths and lineage', async () => {
    const response = await env.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH });
    expect(response.statusCode).toBe(200);
    const { sessions } = response.json() as { sessions: Array<Record<string, unknown>> };
    expect(sessions.map((s) => s.path).sort()).toEqual([
      'all-entry-types.jsonl',
      'branched-from-seed-example.jsonl',
      'empty.jsonl',
      'malformed.jsonl',
      'seed-example.jsonl',
    ]);
    const seed = sessions.find((s) => s.path === 'seed-example.jsonl')!;
    expect(seed.entryCount).toBe(8);
    expect(String(seed.id)).not.toContain('/');
    const branched = sessions.find((s) => s.path === 'branched-from-seed-example.jsonl')!;
    expect(branched.parentId).toBe(seed.id);
  });

  it('once a damaged session is open, the list and its snapshot report the same number of issues', async () => {
    const id = await sessionIdOf(env.app, 'malformed.jsonl');
    const listed = async () => {
      const response = await env.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH });
      const { sessions } = response.json() as { sessions: Array<{ id: string; issueCount: number }> };
      return sessions.find((s) => s.id === id)!.issueCount;
    };
    // Before opening, the list counts the lines it could not parse; the tree adds duplicates,
    // orphans and cycles.
    const beforeOpen = await listed();
    const snapshot = await getSnapshot(env.app, id);
    expect(snapshot.issues.length).toBeGreaterThan(beforeOpen);
    expect(snapshot.session.issueCount).toBe(snapshot.issues.length);
    expect(await listed()).toBe(snapshot.issues.length);
  });

  it('a snapshot carries the leaf, every entry as a skeleton node, and labels', async () => {
    const id = await sessionIdOf(env.app, 'seed-example.jsonl');
    const snapshot = await getSnapshot(env.app, id);
    expect(snapshot.leafId).toBe(SEED_IDS.milestoneLabel);
    expect(snapshot.nodes).toHaveLength(8);
    expect(snapshot.nodes.filter((node) => node.label === 'milestone')).toHaveLength(1);
    expect(snapshot.version).toBe(3);
  });

  it('every snapshot streams a head, node chunks and a closing line matching the protocol schemas, and after a label write its assembled nodes equal a fresh build of the file', async () => {
    const headValidator = createValidator(SessionSnapshotHead);
    const chunkValidator = createValidator(NodeColumns);
    const closingValidator = createValidator(SnapshotClosingLine);
    const readValidator = createValidator(SnapshotReadLine);
    const freshNodes = (name: string) => {
      const sm = SessionManager.fromJsonl(fs.readFileSync(env.file(name)));
      return freshTreeNodes(sm, env.dir);
    };
    const get = async (id: string) => {
      const response = await env.app.inject({ method: 'GET', url: `/api/sessions/${id}`, headers: AUTH });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe(SNAPSHOT_CONTENT_TYPE);
      const [head, ...chunks] = response.body
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown);
      const closing = chunks.pop();
      expect(headValidator.firstError(head)).toBeUndefined();
      for (const chunk of chunks) {
        const validator =
          chunk && typeof chunk === 'object' && 'read' in chunk ? readValidator : chunkValidator;
        expect(validator.firstError(chunk)).toBeUndefined();
      }
      expect(closingValidator.firstError(closing)).toBeUndefined();
      return assembleSnapshot(response.body);
    };
    for (const name of ['seed-example.jsonl', 'all-entry-types.jsonl', 'malformed.jsonl', 'empty.jsonl']) {
      const snapshot = await get(await sessionIdOf(env.app, name));
      expect(snapshot.nodes).toEqual(freshNodes(name));
    }

    const id = await sessionIdOf(env.app, 'seed-example.jsonl');
    const label = await env.app.inject({
      method: 'PUT',
      url: `/api/sessions/${id}/labels/${SEED_IDS.milestoneLabel}`,
      headers: AUTH,
      payload: { label: 'cached' },
    });
    expect(label.statusCode).toBe(200);
    const after = await get(id);
    expect(after.nodes).toHaveLength(9);
    expect(after.nodes).toEqual(freshNodes('seed-example.jsonl'));
    expect(after.nodes.find((node) => node.id === SEED_IDS.milestoneLabel)?.label).toBe('cached');
  });

  it('the first node line of a snapshot is short (the first rows), the others CHUNK_NODES, on the first open and once open', async () => {
    const storage = new MemoryStorage();
    const sm = SessionManager.inMemory('/w', { storage });
    const count = FIRST_CHUNK_NODES + CHUNK_NODES + 7;
    for (let i = 0; i < count; i++) sm.appendMessage({ role: 'user', content: `turn ${i}`, timestamp: i });
    fs.writeFileSync(env.file('many.jsonl'), storage.read());
    await env.restart(); // index the new file
    const id = await sessionIdOf(env.app, 'many.jsonl');
    for (const open of ['first open', 'already open']) {
      const response = await env.app.inject({ method: 'GET', url: `/api/sessions/${id}`, headers: AUTH });
      const counts = snapshotBodyLines(response.body)
        .filter((line) => 'count' in line)
        .map((line) => (line as unknown as NodeColumns).count);
      // The first open sends the nodes of each piece as it is read, in lines of at most CHUNK_NODES.
      if (open === 'already open') expect(counts).toEqual([FIRST_CHUNK_NODES, CHUNK_NODES, 7]);
      expect(counts[0]).toBe(FIRST_CHUNK_NODES);
      expect(Math.max(...counts)).toBeLessThanOrEqual(CHUNK_NODES);
      expect(assembleSnapshot(response.body).nodes).toHaveLength(count);
    }
  });

  it('an unknown session id is SESSION_NOT_FOUND and a path-like id is refused by the schema', async () => {
    const missing = await env.app.inject({ method: 'GET', url: '/api/sessions/nope', headers: AUTH });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({
      error: { code: 'SESSION_NOT_FOUND', message: 'No session with id nope.' },
    });
    const traversal = await env.app.inject({
      method: 'GET',
      url: '/api/sessions/..%2F..%2Fetc%2Fpasswd',
      headers: AUTH,
    });
    expect(traversal.statusCode).toBe(400);
    expect((traversal.json() as { error: { code: string } }).error.code).toBe('BAD_REQUEST');
  });

  it('setting and clearing a label appends label entries and nothing else', async () => {
    const id = await sessionIdOf(env.app, 'seed-example.jsonl');
    const file = env.file('seed-example.jsonl');
    const before = fs.readFileSync(file, 'utf8');
    const set = await env.app.inject({
      method: 'PUT',
      url: `/api/sessions/${id}/labels/${SEED_IDS.milestoneLabel}`,
      headers: AUTH,
      payload: { label: '  done  ' },
    });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({ targetId: SEED_IDS.milestoneLabel, label: 'done' });
    const cleared = await env.app.inject({
      method: 'DELETE',
      url: `/api/sessions/${id}/labels/${SEED_IDS.milestoneLabel}`,
      headers: AUTH,
    });
    expect(cleared.statusCode).toBe(200);
    const after = fs.readFileSync(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    const added = after
      .slice(before.length)
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(added.map((entry) => [entry.type, entry.targetId, entry.label])).toEqual([
      ['label', SEED_IDS.milestoneLabel, 'done'],
      ['label', SEED_IDS.milestoneLabel, undefined],
    ]);
  });

  it('a label on a missing entry is ENTRY_NOT_FOUND and the file is unchanged', async () => {
    const id = await sessionIdOf(env.app, 'seed-example.jsonl');
    const before = fs.readFileSync(env.file('seed-example.jsonl'));
    const response = await env.app.inject({
      method: 'PUT',
      url: `/api/sessions/${id}/labels/zzzz`,
      headers: AUTH,
      payload: { label: 'x' },
    });
    expect(response.statusCode).toBe(404);
    expect((response.json() as { error: { code: string } }).error.code).toBe('ENTRY_NOT_FOUND');
    const bad = await env.app.inject({
      method: 'PUT',
      url: `/api/sessions/${id}/labels/${SEED_IDS.milestoneLabel}`,
      headers: AUTH,
      payload: { label: 5 },
    });
    expect(bad.statusCode).toBe(400);
    expect(fs.readFileSync(env.file('seed-example.jsonl')).equals(before)).toBe(true);
  });

  it('navigating to the current leaf is a no-op that writes nothing', async () => {
    const id = await sessionIdOf(env.app, 'seed-example.jsonl');
    const before = fs.readFileSync(env.file('seed-example.jsonl'));
    const response = await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/navigate`,
      headers: AUTH,
      payload: { targetId: SEED_IDS.milestoneLabel },
    });
    expect(response.json()).toMatchObject({
      alreadyAtTarget: true,
      cancelled: false,
      newLeafId: SEED_IDS.milestoneLabel,
      oldLeafId: SEED_IDS.milestoneLabel,
    });
    expect(fs.readFileSync(env.file('seed-example.jsonl')).equals(before)).toBe(true);
  });

  it('a summarize request with entries to summarise and no summariser is NO_SUMMARIZER and changes nothing', async () => {
    const id = await sessionIdOf(env.app, 'seed-example.jsonl');
    const snapshot = await getSnapshot(env.app, id);
    const root = snapshot.nodes.find((node) => node.parentId === null)!;
    const before = fs.readFileSync(env.file('seed-example.jsonl'));
    const response = await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/navigate`,
      headers: AUTH,
      payload: { targetId: root.id, summarize: true },
    });
    expect(response.statusCode).toBe(409);
    expect((response.json() as { error: { code: string } }).error.code).toBe('NO_SUMMARIZER');
    expect(fs.readFileSync(env.file('seed-example.jsonl')).equals(before)).toBe(true);
    const after = await getSnapshot(env.app, id);
    expect(after.leafId).toBe(SEED_IDS.milestoneLabel);
  });

  it('requests without the token are refused; the token in the header or the query is taken, and no cookie is set', async () => {
    const none = await env.app.inject({ method: 'GET', url: '/api/sessions', headers: { host: HOST } });
    expect(none.statusCode).toBe(401);
    expect((none.json() as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
    const first = await env.app.inject({ method: 'GET', url: `/?token=${TOKEN}`, headers: { host: HOST } });
    expect(first.statusCode).toBe(200);
    expect(first.headers['set-cookie']).toBeUndefined();
    const withQuery = await env.app.inject({
      method: 'GET',
      url: `/api/sessions?token=${TOKEN}`,
      headers: { host: HOST },
    });
    expect(withQuery.statusCode).toBe(200);
    const withCookie = await env.app.inject({
      method: 'GET',
      url: '/api/sessions',
      headers: { host: HOST, cookie: `canopy_token_4999=${TOKEN}` },
    });
    expect(withCookie.statusCode).toBe(401);
  });

  it('a foreign Host and a foreign Origin on a write are refused', async () => {
    const host = await env.app.inject({
      method: 'GET',
      url: '/api/sessions',
      headers: { ...AUTH, host: 'evil.example:4999' },
    });
    expect(host.statusCode).toBe(403);
    expect((host.json() as { error: { code: string } }).error.code).toBe('FORBIDDEN_HOST');
    const id = await sessionIdOf(env.app, 'seed-example.jsonl');
    const origin = await env.app.inject({
      method: 'PUT',
      url: `/api/sessions/${id}/labels/${SEED_IDS.milestoneLabel}`,
      headers: { ...AUTH, origin: 'http://evil.example' },
      payload: { label: 'x' },
    });
    expect(origin.statusCode).toBe(403);
    expect((origin.json() as { error: { code: string } }).error.code).toBe('FORBIDDEN_ORIGIN');
  });

  it('an oversized body is PAYLOAD_TOO_LARGE', async () => {
    const id = await sessionIdOf(env.app, 'seed-example.jsonl');
    const response = await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/messages`,
      headers: { ...AUTH, 'content-type': 'application/json' },
      payload: JSON.stringify({ text: 'x'.repeat(3 * 1024 * 1024) }),
    });
    expect(response.statusCode).toBe(413);
    expect((response.json() as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
  });
});
