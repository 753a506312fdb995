import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as reference from '@mariozechner/pi-coding-agent';
import { afterEach, describe, expect, it } from 'vitest';
import { createToken, isWellFormedToken } from '../src/http/security';
import { readOrCreateSecretSync } from '../src/files/confined';
import { sessionIdOf as sessionIdOfPath } from '../src/files/ids';
import { AUTH, getSnapshot, SEED_IDS, sessionIdOf, setup, type TestEnv, waitFor } from './helpers';

const SEED = 'seed-example.jsonl';

function entryLine(id: string, parentId: string | null, text: string): string {
  return JSON.stringify({
    type: 'message',
    id,
    parentId,
    timestamp: new Date().toISOString(),
    message: { role: 'user', content: [{ type: 'text', text }], timestamp: Date.now() },
  });
}

/** Runs a node script that appends `pieces` to `file`, one write per piece, `delayMs` apart. */
function appendInPieces(file: string, pieces: string[], delayMs: number): Promise<void> {
  const script = `
    const fs = require('node:fs');
    const [file, pieces, delay] = [process.argv[1], JSON.parse(process.argv[2]), Number(process.argv[3])];
    let i = 0;
    const next = () => {
      if (i >= pieces.length) return;
      const fd = fs.openSync(file, 'a');
      fs.writeSync(fd, pieces[i++]);
      fs.closeSync(fd);
      setTimeout(next, delay);
    };
    next();
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, file, JSON.stringify(pieces), String(delayMs)], {
      stdio: 'inherit',
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer exited with ${code}`))));
  });
}

async function snapshot(env: TestEnv, id: string) {
  return getSnapshot(env.app, id);
}

describe('session files', () => {
  let env: TestEnv;
  afterEach(async () => env.close());

  it('tails a second process appending lines in several pieces; a partial line waits, the leaf follows', async () => {
    env = await setup([SEED]);
    const id = await sessionIdOf(env.app, SEED);
    expect((await snapshot(env, id)).nodes).toHaveLength(8);
    const one = entryLine('aaaa0001', SEED_IDS.milestoneLabel, 'from the agent');
    const two = entryLine('aaaa0002', 'aaaa0001', 'and more');
    // The first line arrives in three pieces, the second with the tail of the first.
    const pieces = [
      one.slice(0, 20),
      one.slice(20, 60),
      `${one.slice(60)}\n${two.slice(0, 10)}`,
      `${two.slice(10)}\n`,
    ];
    const writer = appendInPieces(env.file(SEED), pieces, 150);
    const partial = await waitFor(async () => {
      const snap = await snapshot(env, id);
      return snap.pendingBytes > 0 && snap.nodes.length === 8 ? snap : undefined;
    });
    expect(partial.leafId).toBe(SEED_IDS.milestoneLabel);
    await writer;
    const done = await waitFor(async () => {
      const snap = await snapshot(env, id);
      return snap.nodes.length === 10 ? snap : undefined;
    });
    expect(done.nodes.slice(8).map((node) => node.id)).toEqual(['aaaa0001', 'aaaa0002']);
    expect(done.leafId).toBe('aaaa0002');
    expect(done.pendingBytes).toBe(0);
    expect(done.writerActive).toBe(true);
  });

  it('an external writer and our label writes interleave: valid JSONL, nothing lost, the reference opens every entry', async () => {
    env = await setup([SEED]);
    const id = await sessionIdOf(env.app, SEED);
    const file = env.file(SEED);
    const external: string[] = [];
    let parent = SEED_IDS.milestoneLabel;
    for (let i = 0; i < 20; i++) {
      const entryId = `x${String(i).padStart(7, '0')}`;
      external.push(`${entryLine(entryId, parent, `external ${i}`)}\n`);
      parent = entryId;
    }
    const writer = appendInPieces(file, external, 15);
    const labels: Array<Promise<unknown>> = [];
    for (let i = 0; i < 10; i++) {
      labels.push(
        env.app.inject({
          method: 'PUT',
          url: `/api/sessions/${id}/labels/${SEED_IDS.startTask}`,
          headers: AUTH,
          payload: { label: `l${i}` },
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await writer;
    const results = (await Promise.all(labels)) as Array<{
      statusCode: number;
      json(): { error?: { code: string } };
    }>;
    // A label may be refused while the other writer is mid-line or still appending (the quiet
    // window); it is then not written at all.
    const written = results.filter((result) => result.statusCode === 200).length;
    for (const result of results)
      if (result.statusCode !== 200)
        expect(result.json().error?.code).toMatch(/FILE_MID_WRITE|FILE_CHANGED|FILE_BUSY/);
    const text = fs.readFileSync(file, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; id?: string });
    expect(lines.filter((line) => line.id?.startsWith('x'))).toHaveLength(20);
    expect(lines.filter((line) => line.type === 'label')).toHaveLength(1 + written);
    expect(written).toBeGreaterThan(0);
    const opened = reference.SessionManager.open(file);
    expect(opened.getEntries()).toHaveLength(lines.length - 1);
  });

  it('refuses to append while the last line stays cut off, and writes nothing', async () => {
    env = await setup([SEED]);
    const id = await sessionIdOf(env.app, SEED);
    const file = env.file(SEED);
    fs.appendFileSync(file, '{"type":"message","id":"cut');
    const before = fs.readFileSync(file);
    const response = await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/messages`,
      headers: AUTH,
      payload: { text: 'hello' },
    });
    expect(response.statusCode).toBe(409);
    expect((response.json() as { error: { code: string } }).error.code).toBe('FILE_MID_WRITE');
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('a legacy v1 file written to: a byte-identical backup, then a migrated file the reference opens', async () => {
    env = await setup(['legacy-v1-large-session.jsonl']);
    const file = env.file('legacy-v1-large-session.jsonl');
    const original = fs.readFileSync(file);
    const id = await sessionIdOf(env.app, 'legacy-v1-large-session.jsonl');
    const snap = await snapshot(env, id);
    expect(snap.nodes).toHaveLength(1018);
    const response = await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/messages`,
      headers: AUTH,
      payload: { text: 'after migration' },
    });
    expect(response.statusCode).toBe(200);
    const backup = `${file}.v1.bak`;
    expect(fs.readFileSync(backup).equals(original)).toBe(true);
    const header = JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0]!) as { version: number };
    expect(header.version).toBe(3);
    const opened = reference.SessionManager.open(file);
    expect(opened.getEntries()).toHaveLength(1019);
    expect(opened.getLeafEntry()?.id).toBe((response.json() as { entryId: string }).entryId);
    // A second write appends only; the backup is never overwritten.
    await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/messages`,
      headers: AUTH,
      payload: { text: 'again' },
    });
    expect(fs.readFileSync(backup).equals(original)).toBe(true);
    expect(fs.readdirSync(env.root).filter((name) => name.endsWith('.bak'))).toEqual([
      'legacy-v1-large-session.jsonl.v1.bak',
    ]);
  });

  it('the leaf survives a restart; when the file is replaced so it no longer exists, it falls back with a notice', async () => {
    env = await setup([SEED]);
    const id = await sessionIdOf(env.app, SEED);
    await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/navigate`,
      headers: AUTH,
      payload: { targetId: SEED_IDS.bResult },
    });
    await env.restart();
    expect((await snapshot(env, id)).leafId).toBe(SEED_IDS.bResult);

    await env.restart({}, () => {
      const lines = fs.readFileSync(env.file(SEED), 'utf8').trimEnd().split('\n');
      // Drop "B result": the stored leaf is gone from the file.
      fs.writeFileSync(
        env.file(SEED),
        `${lines.filter((line) => !line.includes(`"id":"${SEED_IDS.bResult}"`)).join('\n')}\n`,
      );
    });
    const ws = await env.app.injectWS('/ws', { headers: AUTH });
    const events: Array<Record<string, unknown>> = [];
    ws.on('message', (data) => events.push(JSON.parse(String(data)) as Record<string, unknown>));
    ws.send(JSON.stringify({ type: 'subscribe', sessionId: id }));
    const notice = await waitFor(() => events.find((event) => event.type === 'session_changed'));
    expect(notice).toEqual({
      type: 'session_changed',
      sessionId: id,
      source: 'external',
      leaf: {
        id: SEED_IDS.milestoneLabel,
        previousId: SEED_IDS.bResult,
        notice: {
          reason: 'stored-leaf-missing',
          message:
            'The file changed so that the saved position no longer exists; the leaf is back at the last entry.',
        },
      },
    });
    ws.terminate();
  });

  it('a truncated file is reloaded with session_reloaded', async () => {
    env = await setup([SEED]);
    const id = await sessionIdOf(env.app, SEED);
    const ws = await env.app.injectWS('/ws', { headers: AUTH });
    const events: Array<Record<string, unknown>> = [];
    ws.on('message', (data) => events.push(JSON.parse(String(data)) as Record<string, unknown>));
    ws.send(JSON.stringify({ type: 'subscribe', sessionId: id }));
    await waitFor(() => events.find((event) => event.type === 'subscribed'));
    const lines = fs.readFileSync(env.file(SEED), 'utf8').split('\n');
    fs.truncateSync(env.file(SEED), Buffer.byteLength(`${lines.slice(0, 5).join('\n')}\n`));
    const reloaded = await waitFor(() => events.find((event) => event.type === 'session_reloaded'));
    expect(reloaded).toEqual({ type: 'session_reloaded', sessionId: id, reason: 'truncated' });
    expect((await snapshot(env, id)).nodes).toHaveLength(4);
    ws.terminate();
  });

  it('a symlink out of a root is neither listed nor reachable', async () => {
    env = await setup([SEED]);
    const outside = path.join(env.dir, 'outside');
    fs.mkdirSync(outside);
    fs.copyFileSync(env.file(SEED), path.join(outside, 'secret.jsonl'));
    fs.symlinkSync(path.join(outside, 'secret.jsonl'), path.join(env.root, 'link.jsonl'));
    fs.symlinkSync(outside, path.join(env.root, 'linkdir'));
    await env.app.canopy.store.index.scan();
    const list = (await env.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH })).json() as {
      sessions: Array<{ path: string }>;
    };
    expect(list.sessions.map((session) => session.path)).toEqual([SEED]);
    // Nor can it be asked for directly: neither by the id its real path or its link path would
    // have, nor by a path smuggled into the id.
    const attempts = [
      sessionIdOfPath(fs.realpathSync(path.join(outside, 'secret.jsonl'))),
      sessionIdOfPath(path.join(env.root, 'link.jsonl')),
      encodeURIComponent('../outside/secret.jsonl'),
      encodeURIComponent(path.join(outside, 'secret.jsonl')),
    ];
    for (const id of attempts) {
      const response = await env.app.inject({ method: 'GET', url: `/api/sessions/${id}`, headers: AUTH });
      expect([400, 404], `${id}: ${response.body}`).toContain(response.statusCode);
      expect(response.body).not.toContain('secret');
      expect(response.body).not.toContain('Start task');
    }
  });
});

describe('the access token kept in the state folder', () => {
  it('is created once (owner-only), reused on the next start, and replaced when damaged', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-token-'));
    try {
      const file = path.join(dir, 'state', 'token');
      const first = readOrCreateSecretSync(file, createToken, isWellFormedToken);
      expect(isWellFormedToken(first)).toBe(true);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(readOrCreateSecretSync(file, createToken, isWellFormedToken)).toBe(first);
      fs.writeFileSync(file, 'short\n');
      const replaced = readOrCreateSecretSync(file, createToken, isWellFormedToken);
      expect(replaced).not.toBe(first);
      expect(isWellFormedToken(replaced)).toBe(true);
      expect(fs.readFileSync(file, 'utf8')).toBe(`${replaced}\n`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
