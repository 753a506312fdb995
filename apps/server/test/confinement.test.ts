// Files changed or swapped under Canopy: confinement at every operation, same-size rewrites,
// migration backups, symlink loops, and the permissions of what Canopy creates.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/app';
import { DEFAULT_SETTINGS } from '@canopy/protocol';
import { CONFIG_FILE_NAME } from '../src/config';
import { readJsonNoFollow, readOrCreateSecretSync } from '../src/files/confined';
import { StateStore } from '../src/files/state';
import { AUTH, PORT, TOKEN } from './helpers';
import { makeSession, setupOwn, type OwnEnv } from './own-sessions';

interface ErrorBody {
  error: { code: string; message: string };
}

async function idOf(env: OwnEnv, name: string): Promise<string> {
  const list = (await env.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH })).json() as {
    sessions: Array<{ id: string; path: string }>;
  };
  const found = list.sessions.find((session) => session.path === name);
  if (!found) throw new Error(`${name} not listed: ${JSON.stringify(list)}`);
  return found.id;
}

function get(env: OwnEnv, url: string) {
  return env.app.inject({ method: 'GET', url, headers: AUTH });
}

function post(env: OwnEnv, url: string, payload: object, method: 'POST' | 'PUT' = 'POST') {
  return env.app.inject({ method, url, headers: AUTH, payload });
}

/** A session whose texts say SECRET, for the file an attacker points a link at. */
function secretSession(): string {
  return makeSession(1).text.replaceAll('question', 'SECRET').replaceAll('answer', 'SECRET');
}

describe('confinement after a swap', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  it('an open session file replaced by a link to a file outside the roots: reads and writes are refused, the outside file is untouched', async () => {
    const session = makeSession();
    env = await setupOwn({ 'a.jsonl': session.text }, { quietWindowMs: 0 });
    const id = await idOf(env, 'a.jsonl');
    expect((await get(env, `/api/sessions/${id}`)).statusCode).toBe(200);
    const outside = path.join(env.dir, 'outside.jsonl');
    fs.writeFileSync(outside, secretSession());
    const outsideBefore = fs.readFileSync(outside);
    fs.rmSync(env.file('a.jsonl'));
    fs.symlinkSync(outside, env.file('a.jsonl'));

    const context = await get(env, `/api/sessions/${id}/context`);
    expect(context.statusCode).toBe(403);
    expect((context.json() as ErrorBody).error.code).toBe('OUTSIDE_ROOTS');
    expect(context.body).not.toContain('SECRET');
    const snapshot = await get(env, `/api/sessions/${id}`);
    expect(snapshot.body).not.toContain('SECRET');
    const labelled = await post(env, `/api/sessions/${id}/labels/${session.ids[0]}`, { label: 'x' }, 'PUT');
    expect(labelled.statusCode).toBe(403);
    const written = await post(env, `/api/sessions/${id}/messages`, { text: 'x' });
    expect(written.statusCode).toBe(403);
    expect(fs.readFileSync(outside).equals(outsideBefore)).toBe(true);
  });

  it('the WebSocket never pushes the content of a file swapped in from outside the roots', async () => {
    const session = makeSession();
    env = await setupOwn({ 'a.jsonl': session.text }, { quietWindowMs: 0, pollMs: 60_000 });
    const id = await idOf(env, 'a.jsonl');
    const ws = await env.app.injectWS('/ws', { headers: AUTH });
    const events: Array<Record<string, unknown>> = [];
    ws.on('message', (data) => events.push(JSON.parse(String(data)) as Record<string, unknown>));
    const roundTrip = async (tag: string) => {
      ws.send(JSON.stringify({ type: 'ping', id: tag }));
      await vi.waitFor(() => expect(events.some((event) => event.id === tag)).toBe(true));
    };
    ws.send(JSON.stringify({ type: 'subscribe', sessionId: id }));
    await vi.waitFor(() => expect(events.some((event) => event.type === 'subscribed')).toBe(true));
    const outside = path.join(env.dir, 'outside.jsonl');
    fs.writeFileSync(outside, session.text);
    fs.rmSync(env.file('a.jsonl'));
    fs.symlinkSync(outside, env.file('a.jsonl'));
    await get(env, `/api/sessions/${id}/context`);
    const secret = JSON.stringify({
      type: 'message',
      id: 'secret01',
      parentId: session.ids.at(-1),
      timestamp: new Date().toISOString(),
      message: { role: 'user', content: [{ type: 'text', text: 'SECRET' }], timestamp: 1 },
    });
    fs.appendFileSync(outside, `${secret}\n`);
    const after = await get(env, `/api/sessions/${id}/context`);
    expect(after.statusCode).toBe(403);
    await roundTrip('after-append');
    expect(JSON.stringify(events)).not.toContain('SECRET');
    ws.terminate();
  });

  it('a session folder replaced by a link to a folder outside the roots: fork and branch are refused and create nothing there', async () => {
    const session = makeSession();
    env = await setupOwn({}, { quietWindowMs: 0 });
    const project = path.join(env.root, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'a.jsonl'), session.text);
    await env.app.canopy.store.index.scan();
    const id = await idOf(env, path.join('project', 'a.jsonl'));
    expect((await get(env, `/api/sessions/${id}`)).statusCode).toBe(200);
    const elsewhere = path.join(env.dir, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.copyFileSync(path.join(project, 'a.jsonl'), path.join(elsewhere, 'a.jsonl'));
    fs.renameSync(project, path.join(env.dir, 'moved-away'));
    fs.symlinkSync(elsewhere, project);

    const fork = await post(env, `/api/sessions/${id}/fork`, {});
    expect(fork.statusCode).toBe(403);
    expect((fork.json() as ErrorBody).error.code).toBe('OUTSIDE_ROOTS');
    const branch = await post(env, `/api/sessions/${id}/branch`, { entryId: session.ids[2] });
    expect(branch.statusCode).toBe(403);
    expect(fs.readdirSync(elsewhere)).toEqual(['a.jsonl']);
  });

  it('forked and branched copies keep the original file mode (0600 stays 0600)', async () => {
    const session = makeSession();
    env = await setupOwn({ 'a.jsonl': session.text }, { quietWindowMs: 0 });
    fs.chmodSync(env.file('a.jsonl'), 0o600);
    const id = await idOf(env, 'a.jsonl');
    const fork = await post(env, `/api/sessions/${id}/fork`, {});
    expect(fork.statusCode).toBe(200);
    const branch = await post(env, `/api/sessions/${id}/branch`, { entryId: session.ids[2] });
    expect(branch.statusCode).toBe(200);
    const created = fs.readdirSync(env.root).filter((name) => name !== 'a.jsonl');
    expect(created).toHaveLength(2);
    for (const name of created) expect(fs.statSync(path.join(env.root, name)).mode & 0o777).toBe(0o600);
  });
});

describe('files changed under Canopy', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  it('a same-size in-place rewrite is noticed: a label for an entry no longer in the file is refused', async () => {
    const session = makeSession();
    env = await setupOwn({ 'a.jsonl': session.text }, { quietWindowMs: 0 });
    const id = await idOf(env, 'a.jsonl');
    await get(env, `/api/sessions/${id}`);
    const target = session.ids[1]!;
    const replacement = 'f'.repeat(target.length);
    const rewritten = session.text.replaceAll(target, replacement);
    expect(rewritten.length).toBe(session.text.length);
    const fd = fs.openSync(env.file('a.jsonl'), 'r+');
    fs.writeSync(fd, rewritten, 0);
    fs.closeSync(fd);

    const stale = await post(env, `/api/sessions/${id}/labels/${target}`, { label: 'x' }, 'PUT');
    expect(stale.statusCode).toBe(404);
    expect((stale.json() as ErrorBody).error.code).toBe('ENTRY_NOT_FOUND');
    const fresh = await post(env, `/api/sessions/${id}/labels/${replacement}`, { label: 'x' }, 'PUT');
    expect(fresh.statusCode).toBe(200);
    expect(fs.readFileSync(env.file('a.jsonl'), 'utf8')).not.toContain(`"targetId":"${target}"`);
  });
});

/** A legacy v1 file (no ids, no version), with one unusable line in the middle. */
function legacyV1(withGarbage: boolean): string {
  const header = { type: 'session', id: 'legacy-1', timestamp: '2025-01-01T00:00:00.000Z', cwd: '/w' };
  const user = (text: string) => ({
    type: 'message',
    timestamp: '2025-01-01T00:00:01.000Z',
    message: { role: 'user', content: [{ type: 'text', text }], timestamp: 1 },
  });
  const lines = [JSON.stringify(header), JSON.stringify(user('one'))];
  if (withGarbage) lines.push('this line is not JSON');
  lines.push(JSON.stringify(user('two')));
  return `${lines.join('\n')}\n`;
}

describe('migration backups', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  it('a partial backup left by a crash is never reused: an exact backup is written under the next name', async () => {
    env = await setupOwn({ 'old.jsonl': legacyV1(false) }, { quietWindowMs: 0 });
    const file = env.file('old.jsonl');
    const original = fs.readFileSync(file);
    fs.writeFileSync(`${file}.v1.bak`, original.subarray(0, 20));
    const id = await idOf(env, 'old.jsonl');
    const response = await post(env, `/api/sessions/${id}/messages`, { text: 'after' });
    expect(response.statusCode).toBe(200);
    expect(fs.readFileSync(`${file}.v1.bak`).equals(original.subarray(0, 20))).toBe(true);
    expect(fs.readFileSync(`${file}.v1.2.bak`).equals(original)).toBe(true);
    expect(JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0]!)).toMatchObject({ version: 3 });
  });

  it('an identical backup is reused; a migration that leaves out an unusable line says so and the backup keeps it', async () => {
    env = await setupOwn({ 'old.jsonl': legacyV1(true) }, { quietWindowMs: 0 });
    const file = env.file('old.jsonl');
    const original = fs.readFileSync(file);
    fs.writeFileSync(`${file}.v1.bak`, original);
    const id = await idOf(env, 'old.jsonl');
    const ws = await env.app.injectWS('/ws', { headers: AUTH });
    const events: Array<Record<string, unknown>> = [];
    ws.on('message', (data) => events.push(JSON.parse(String(data)) as Record<string, unknown>));
    ws.send(JSON.stringify({ type: 'subscribe', sessionId: id }));
    await vi.waitFor(() => expect(events.some((event) => event.type === 'subscribed')).toBe(true));
    const response = await post(env, `/api/sessions/${id}/messages`, { text: 'after' });
    expect(response.statusCode).toBe(200);
    const notice = await vi.waitFor(() => {
      const found = events.find((event) => event.code === 'LINES_DROPPED');
      expect(found).toBeDefined();
      return found!;
    });
    expect(String(notice.message)).toContain('line 3');
    expect(String(notice.message)).toContain('old.jsonl.v1.bak');
    expect(fs.readdirSync(env.root).filter((name) => name.endsWith('.bak'))).toEqual(['old.jsonl.v1.bak']);
    expect(fs.readFileSync(`${file}.v1.bak`, 'utf8')).toContain('this line is not JSON');
    expect(fs.readFileSync(file, 'utf8')).not.toContain('this line is not JSON');
    ws.terminate();
  });
});

describe('symlink loops', () => {
  it('a loop inside a root at startup and one created later are skipped with a warning; the rest is listed', async () => {
    const session = makeSession();
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-loop-')));
    const root = path.join(dir, 'sessions');
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, 'a.jsonl'), session.text);
    fs.symlinkSync(path.join(root, 'self-loop'), path.join(root, 'self-loop'));
    const warnings: string[] = [];
    const app = await buildApp({
      roots: [root, path.join(root, 'self-loop')],
      stateDir: path.join(dir, 'state'),
      token: TOKEN,
      port: PORT,
      home: dir,
      rescanMs: 60_000,
      logger: { level: 'warn', stream: { write: (line: string) => warnings.push(line) } },
    });
    try {
      const list = async () =>
        (
          (await app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH })).json() as {
            sessions: Array<{ path: string }>;
          }
        ).sessions
          .map((item) => item.path)
          .sort();
      expect(await list()).toEqual(['a.jsonl']);
      expect(warnings.join('\n')).toContain('self-loop');
      // A loop of two links created later, then a new session: the rescan still lists it.
      fs.symlinkSync(path.join(root, 'loop-b'), path.join(root, 'loop-a'));
      fs.symlinkSync(path.join(root, 'loop-a'), path.join(root, 'loop-b'));
      fs.writeFileSync(path.join(root, 'b.jsonl'), session.text);
      await app.canopy.store.index.scan();
      expect(await list()).toEqual(['a.jsonl', 'b.jsonl']);
      expect(warnings.join('\n')).toContain('loop-a');
    } finally {
      await app.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the state folder', () => {
  it('is 0700, and the token, leaves and settings are 0600 from their first byte', async () => {
    const session = makeSession();
    const opened: Array<{ file: string; mode: number }> = [];
    const realOpen = fs.openSync;
    const spy = vi.spyOn(fs, 'openSync').mockImplementation(((file: fs.PathLike, ...rest: unknown[]) => {
      const fd = (realOpen as (...args: unknown[]) => number)(file, ...rest);
      if (String(file).includes(`${path.sep}state${path.sep}`)) {
        opened.push({ file: String(file), mode: fs.fstatSync(fd).mode & 0o777 });
      }
      return fd;
    }) as typeof fs.openSync);
    const env = await setupOwn({ 'a.jsonl': session.text }, { quietWindowMs: 0 });
    try {
      readOrCreateSecretSync(
        path.join(env.stateDir, 'token'),
        () => 'x'.repeat(40),
        () => false,
      );
      const id = await idOf(env, 'a.jsonl');
      await post(env, `/api/sessions/${id}/navigate`, { targetId: session.ids[1] });
      await post(env, '/api/settings', { defaultFilter: 'all' }, 'PUT');
      env.app.canopy.state.flushLeaves();
      expect(fs.statSync(env.stateDir).mode & 0o777).toBe(0o700);
      const written = opened.filter((entry) => entry.file.startsWith(env.stateDir));
      expect(written.length).toBeGreaterThanOrEqual(3);
      for (const entry of written) expect(entry, entry.file).toMatchObject({ mode: 0o600 });
      for (const name of ['token', 'leaves.json', 'settings.json']) {
        expect(fs.statSync(path.join(env.stateDir, name)).mode & 0o777).toBe(0o600);
      }
    } finally {
      spy.mockRestore();
      await env.close();
    }
  });
});

describe('state and configuration files are read like every other file (no link, no FIFO, bounded)', () => {
  let dir: string;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function mkfifo(file: string): void {
    expect(spawnSync('mkfifo', [file]).status).toBe(0);
  }

  it('settings and leaves that are a FIFO, a link or too large are ignored with a warning; the server starts on defaults', async () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-state-')));
    const stateDir = path.join(dir, 'state');
    fs.mkdirSync(stateDir, { mode: 0o700 });
    mkfifo(path.join(stateDir, 'settings.json'));
    fs.writeFileSync(path.join(dir, 'leaves.json'), '{}');
    fs.symlinkSync(path.join(dir, 'leaves.json'), path.join(stateDir, 'leaves.json'));
    const warnings: string[] = [];
    const state = new StateStore(stateDir, (message) => warnings.push(message));
    await state.load();
    expect(state.getSettings()).toEqual(DEFAULT_SETTINGS);
    expect(warnings.join('\n')).toMatch(/settings\.json.*not a regular file/);
    expect(warnings.join('\n')).toMatch(/leaves\.json.*symbolic link/);

    fs.rmSync(path.join(stateDir, 'settings.json'));
    fs.writeFileSync(path.join(stateDir, 'settings.json'), `{"defaultFilter":"all"}${' '.repeat(2 << 20)}`);
    const big = new StateStore(stateDir, (message) => warnings.push(message));
    await big.load();
    expect(big.getSettings()).toEqual(DEFAULT_SETTINGS);
    expect(warnings.at(-1)).toMatch(/settings\.json.*at most/);
  });

  it('a token that is a FIFO or a link is replaced by a new one, never read through', () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-state-')));
    const token = path.join(dir, 'token');
    mkfifo(token);
    const made = readOrCreateSecretSync(
      token,
      () => 'n'.repeat(40),
      (value) => value.length === 40,
    );
    expect(made).toBe('n'.repeat(40));
    expect(fs.lstatSync(token).isFile()).toBe(true);
    fs.rmSync(token);
    fs.writeFileSync(path.join(dir, 'elsewhere'), `${'e'.repeat(40)}\n`);
    fs.symlinkSync(path.join(dir, 'elsewhere'), token);
    expect(
      readOrCreateSecretSync(
        token,
        () => 'm'.repeat(40),
        (value) => value.length === 40,
      ),
    ).toBe('m'.repeat(40));
    expect(fs.readFileSync(path.join(dir, 'elsewhere'), 'utf8')).toBe(`${'e'.repeat(40)}\n`);
  });

  it('canopy.config.json (and any pi configuration read the same way) is not read through a link', async () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-config-')));
    fs.writeFileSync(path.join(dir, 'real.json'), '{"port": 1234}');
    fs.symlinkSync(path.join(dir, 'real.json'), path.join(dir, CONFIG_FILE_NAME));
    await expect(readJsonNoFollow(path.join(dir, CONFIG_FILE_NAME))).rejects.toThrow(/symbolic link/);
    expect(await readJsonNoFollow(path.join(dir, 'real.json'))).toEqual({ port: 1234 });
    expect(await readJsonNoFollow(path.join(dir, 'missing.json'))).toBeUndefined();
  });
});
