// oh-my-pi 18.3.4 sessions on the server: where they are found, the title line, archives, unknown
// versions, subagents, and the blobs and artifacts beside them (session-paths.ts, blob-store.ts,
// artifacts.ts of @oh-my-pi/pi-coding-agent). Every session is written here by the project's own
// oh-my-pi-shaped builder.
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { agentSessionDirs } from '../src/config';
import { printOutlines } from '../src/outline';
import { OmpSessionBuilder, titleSlotLine } from '../../../packages/session-core/test/omp-builder';
import { AUTH, getSnapshot, setup, waitFor, type TestEnv } from './helpers';

// A 1×1 PNG.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082',
  'hex',
);
const HASH = 'a'.repeat(64);

let env: TestEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

interface ListItem {
  id: string;
  path: string;
  name?: string;
  parentId: string | null;
  kind?: string;
  readOnly?: string;
}

async function list(e: TestEnv): Promise<ListItem[]> {
  const response = await e.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH });
  return (response.json() as { sessions: ListItem[] }).sessions;
}

async function rescan(e: TestEnv): Promise<ListItem[]> {
  // The list re-reads a file whose size, mtime or inode changed on the next scan.
  const canopy = (e.app as unknown as { canopy: { store: { index: { scan(): Promise<boolean> } } } }).canopy;
  await canopy.store.index.scan();
  return list(e);
}

/** The opaque id of a file written since the last scan. */
async function idOf(e: TestEnv, relative: string): Promise<string> {
  const found = (await rescan(e)).find((item) => item.path === relative);
  if (!found) throw new Error(`${relative} is not listed`);
  return found.id;
}

/** `<root>/blobs` is the agent folder's blobs when the root is `<agent>/sessions`. */
async function agentSetup(): Promise<{ e: TestEnv; sessions: string; blobs: string }> {
  const e = await setup([]);
  const agent = path.join(e.dir, 'agent');
  const sessions = path.join(agent, 'sessions');
  const blobs = path.join(agent, 'blobs');
  fs.mkdirSync(sessions, { recursive: true });
  fs.mkdirSync(blobs, { recursive: true });
  await e.restart({ roots: [sessions] });
  return { e, sessions, blobs };
}

describe('where sessions live (session-paths.ts, pi-utils dirs.ts)', () => {
  const home = '/home/dev';
  it('without variables: oh-my-pi’s ~/.omp/agent/sessions, then pi’s ~/.pi/agent/sessions', () => {
    expect(agentSessionDirs(home, {})).toEqual([
      '/home/dev/.omp/agent/sessions',
      '/home/dev/.pi/agent/sessions',
    ]);
  });

  it('every variable oh-my-pi reads names a folder, most specific first', () => {
    expect(
      agentSessionDirs(home, {
        PI_CODING_AGENT_SESSION_DIR: '/data/sessions',
        PI_CODING_AGENT_DIR: '/data/agent',
        OMP_PROFILE: 'work',
        PI_CONFIG_DIR: '.omp-dev',
        XDG_DATA_HOME: '/home/dev/.local/share',
      }),
    ).toEqual([
      '/data/sessions',
      '/data/agent/sessions',
      '/home/dev/.local/share/omp/profiles/work/sessions',
      '/home/dev/.local/share/omp/sessions',
      '/home/dev/.omp-dev/profiles/work/agent/sessions',
      '/home/dev/.omp-dev/agent/sessions',
      '/home/dev/.omp/profiles/work/agent/sessions',
      '/home/dev/.omp/agent/sessions',
      '/home/dev/.pi/agent/sessions',
    ]);
  });

  it('PI_PROFILE counts only when OMP_PROFILE is unset; a profile name cannot leave the folder', () => {
    expect(agentSessionDirs(home, { PI_PROFILE: 'old' })[0]).toBe(
      '/home/dev/.omp/profiles/old/agent/sessions',
    );
    expect(agentSessionDirs(home, { OMP_PROFILE: '', PI_PROFILE: 'old' })).toEqual(
      agentSessionDirs(home, {}),
    );
    expect(agentSessionDirs(home, { OMP_PROFILE: '../../etc' })).toEqual(agentSessionDirs(home, {}));
  });
});

describe('listing oh-my-pi sessions', () => {
  it('names a session by its title line, and ignores stray .tmp, .bak and .lock files', async () => {
    const { e, sessions } = await agentSetup();
    env = e;
    const b = new OmpSessionBuilder({ title: 'From the title line', headerTitle: 'stale' });
    b.user('hello');
    fs.writeFileSync(path.join(sessions, 's.jsonl'), b.text());
    fs.writeFileSync(path.join(sessions, '.s.jsonl.lock'), `${process.pid}:${Date.now()}`);
    fs.writeFileSync(path.join(sessions, '.s.jsonl.1a2b.tmp'), b.text());
    fs.writeFileSync(path.join(sessions, 's.jsonl.v1.bak'), b.text());
    fs.writeFileSync(path.join(sessions, 's.jsonl.tmp'), b.text());
    const items = await rescan(e);
    expect(items.map((item) => item.path)).toEqual(['s.jsonl']);
    expect(items[0]!.name).toBe('From the title line');
  });

  it('lists subagent and advisor transcripts under their parent session', async () => {
    const { e, sessions } = await agentSetup();
    env = e;
    const write = (rel: string, first: string) => {
      const b = new OmpSessionBuilder({ title: first });
      b.user(first);
      fs.mkdirSync(path.dirname(path.join(sessions, rel)), { recursive: true });
      fs.writeFileSync(path.join(sessions, rel), b.text());
    };
    write('main.jsonl', 'main');
    write('main/Scout.jsonl', 'scout');
    write('main/Scout.Reader.jsonl', 'reader');
    write('main/__advisor-1.jsonl', 'advisor');
    write('main/1.bash.jsonl', 'not-a-subagent-name-but-nested');
    const items = await rescan(e);
    const byPath = new Map(items.map((item) => [item.path, item]));
    const main = byPath.get('main.jsonl')!;
    expect(main.parentId).toBeNull();
    expect(byPath.get('main/Scout.jsonl')).toMatchObject({ parentId: main.id, kind: 'subagent' });
    expect(byPath.get('main/Scout.Reader.jsonl')).toMatchObject({
      parentId: byPath.get('main/Scout.jsonl')!.id,
      kind: 'subagent',
    });
    expect(byPath.get('main/__advisor-1.jsonl')).toMatchObject({ parentId: main.id, kind: 'advisor' });
    const scout = await getSnapshot(e.app, byPath.get('main/Scout.jsonl')!.id);
    expect(scout.name).toBe('scout');
  });

  it('an archived .jsonl.gz is listed, opens, and refuses writes with READ_ONLY', async () => {
    const { e, sessions } = await agentSetup();
    env = e;
    const b = new OmpSessionBuilder({ title: 'Archived' });
    const user = b.user('old work');
    fs.writeFileSync(path.join(sessions, 'old.jsonl.gz'), gzipSync(b.text()));
    const items = await rescan(e);
    expect(items).toHaveLength(1);
    expect(items[0]!.name).toBe('Archived');
    expect(items[0]!.readOnly).toMatch(/archived/i);
    const id = items[0]!.id;
    expect((await getSnapshot(e.app, id)).nodes).toHaveLength(1);
    const label = await e.app.inject({
      method: 'PUT',
      url: `/api/sessions/${id}/labels/${user}`,
      headers: { ...AUTH, 'content-type': 'application/json', origin: `http://${AUTH.host}` },
      payload: { label: 'x' },
    });
    expect(label.statusCode).toBe(403);
    expect((label.json() as { error: { code: string } }).error.code).toBe('READ_ONLY');
    expect(fs.readFileSync(path.join(sessions, 'old.jsonl.gz'))).toEqual(gzipSync(b.text()));
  });

  it('a header version Canopy does not know (4) opens read-only with the reason', async () => {
    const { e, sessions } = await agentSetup();
    env = e;
    const b = new OmpSessionBuilder({ title: 'Newer' });
    b.user('hi');
    const text = b.text().replace('"version":3', '"version":4');
    fs.writeFileSync(path.join(sessions, 'v4.jsonl'), text);
    const id = await idOf(e, 'v4.jsonl');
    const body = await getSnapshot(e.app, id);
    expect(body.session.readOnly).toMatch(/version 4/);
    expect(body.issues).toEqual([]);
    const message = await e.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/messages`,
      headers: { ...AUTH, 'content-type': 'application/json', origin: `http://${AUTH.host}` },
      payload: { text: 'hello' },
    });
    expect((message.json() as { error: { code: string } }).error.code).toBe('READ_ONLY');
    expect(fs.readFileSync(path.join(sessions, 'v4.jsonl'), 'utf8')).toBe(text);
  });
});

describe('blobs (blob-store.ts: blob:sha256:<hex> in <agent dir>/blobs/<hex>)', () => {
  async function withSession(): Promise<{ e: TestEnv; id: string; sessions: string; blobs: string }> {
    const { e, sessions, blobs } = await agentSetup();
    const b = new OmpSessionBuilder({ title: 'Images' });
    b.assistant([{ type: 'image', data: `blob:sha256:${HASH}`, mimeType: 'image/png' }]);
    fs.writeFileSync(path.join(sessions, 'img.jsonl'), b.text());
    return { e, id: await idOf(e, 'img.jsonl'), sessions, blobs };
  }

  it('serves a blob as the image type its bytes show, never sniffed, with the token required', async () => {
    const { e, id, blobs } = await withSession();
    env = e;
    fs.writeFileSync(path.join(blobs, HASH), PNG);
    const response = await e.app.inject({
      method: 'GET',
      url: `/api/sessions/${id}/blobs/${HASH}`,
      headers: AUTH,
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/png');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    // Its own sandboxing policy, not replaced by the pages' global one.
    expect(response.headers['content-security-policy']).toBe(
      "default-src 'none'; sandbox; frame-ancestors 'none'",
    );
    expect(response.rawPayload.equals(PNG)).toBe(true);
    const anonymous = await e.app.inject({
      method: 'GET',
      url: `/api/sessions/${id}/blobs/${HASH}`,
      headers: { host: AUTH.host },
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('refuses traversal through the hash: only 64 lower-case hex digits pass', async () => {
    const { e, id, blobs, sessions } = await withSession();
    env = e;
    fs.writeFileSync(path.join(sessions, '..', 'secret'), PNG);
    fs.writeFileSync(path.join(blobs, HASH), PNG);
    for (const hash of [
      '..%2Fsecret',
      '..%2F..%2Fsecret',
      `${HASH}%2F..%2F..%2Fsecret`,
      'A'.repeat(64),
      'abc',
    ]) {
      const response = await e.app.inject({
        method: 'GET',
        url: `/api/sessions/${id}/blobs/${hash}`,
        headers: AUTH,
      });
      expect(response.statusCode, hash).toBe(400);
    }
  });

  it('refuses a blob that links out of the blobs folder, one that is not an image, and one too large', async () => {
    const { e, id, blobs, sessions } = await withSession();
    env = e;
    const outside = path.join(sessions, '..', 'outside.png');
    fs.writeFileSync(outside, PNG);
    fs.symlinkSync(outside, path.join(blobs, HASH));
    const linked = await e.app.inject({
      method: 'GET',
      url: `/api/sessions/${id}/blobs/${HASH}`,
      headers: AUTH,
    });
    expect(linked.statusCode).toBe(403);

    const html = 'b'.repeat(64);
    fs.writeFileSync(path.join(blobs, html), '<html><script>alert(1)</script></html>');
    const notImage = await e.app.inject({
      method: 'GET',
      url: `/api/sessions/${id}/blobs/${html}`,
      headers: AUTH,
    });
    expect(notImage.statusCode).toBe(400);

    const big = 'c'.repeat(64);
    const handle = fs.openSync(path.join(blobs, big), 'w');
    fs.writeSync(handle, PNG);
    fs.ftruncateSync(handle, 20 * 1024 * 1024 + 1);
    fs.closeSync(handle);
    const tooLarge = await e.app.inject({
      method: 'GET',
      url: `/api/sessions/${id}/blobs/${big}`,
      headers: AUTH,
    });
    expect(tooLarge.statusCode).toBe(413);

    const missing = await e.app.inject({
      method: 'GET',
      url: `/api/sessions/${id}/blobs/${'d'.repeat(64)}`,
      headers: AUTH,
    });
    expect(missing.statusCode).toBe(404);
  });
});

describe('artifacts (artifacts.ts: artifact://N in <session file without .jsonl>/N.<tool>.log)', () => {
  async function withArtifacts(): Promise<{ e: TestEnv; id: string; folder: string; sessions: string }> {
    const { e, sessions } = await agentSetup();
    const b = new OmpSessionBuilder({ title: 'Artifacts' });
    b.assistant([b.toolCall('c1', 'bash', { command: 'make' })], { stopReason: 'toolUse' });
    b.toolResult('c1', 'bash', 'output truncated; full output: artifact://0');
    fs.writeFileSync(path.join(sessions, 'work.jsonl'), b.text());
    const folder = path.join(sessions, 'work');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, '0.bash.log'), 'full build log\n');
    return { e, id: await idOf(e, 'work.jsonl'), folder, sessions };
  }

  it('serves artifact N as plain text with its file name', async () => {
    const { e, id } = await withArtifacts();
    env = e;
    const response = await e.app.inject({
      method: 'GET',
      url: `/api/sessions/${id}/artifacts/0`,
      headers: AUTH,
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.headers['x-canopy-artifact-name']).toBe('0.bash.log');
    expect(response.headers['content-security-policy']).toBe(
      "default-src 'none'; sandbox; frame-ancestors 'none'",
    );
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.body).toBe('full build log\n');
  });

  it('refuses traversal through artifact://: only a number passes, and the file stays in the folder', async () => {
    const { e, id, folder, sessions } = await withArtifacts();
    env = e;
    fs.writeFileSync(path.join(sessions, '..', 'secret.txt'), 'secret');
    for (const bad of ['..%2F..%2Fsecret.txt', '0%2F..%2F..%2Fsecret', '-1', '0.bash.log', 'x']) {
      const response = await e.app.inject({
        method: 'GET',
        url: `/api/sessions/${id}/artifacts/${bad}`,
        headers: AUTH,
      });
      expect(response.statusCode, bad).toBe(400);
    }
    fs.symlinkSync(path.join(sessions, '..', 'secret.txt'), path.join(folder, '7.bash.log'));
    const linked = await e.app.inject({
      method: 'GET',
      url: `/api/sessions/${id}/artifacts/7`,
      headers: AUTH,
    });
    expect(linked.statusCode).toBe(403);
    const missing = await e.app.inject({
      method: 'GET',
      url: `/api/sessions/${id}/artifacts/9`,
      headers: AUTH,
    });
    expect(missing.statusCode).toBe(404);
  });
});

describe('tailing an oh-my-pi session (session-manager.ts setSessionName, appendModelUsage)', () => {
  it('a rename rewrites the title line in place and appends a title_change: both are picked up', async () => {
    const { e, sessions } = await agentSetup();
    env = e;
    const b = new OmpSessionBuilder({ title: 'Before' });
    b.user('hello');
    const file = path.join(sessions, 'live.jsonl');
    fs.writeFileSync(file, b.text());
    const id = await idOf(e, 'live.jsonl');
    const snapshot = async () => await getSnapshot(e.app, id);
    expect((await snapshot()).name).toBe('Before');

    // oh-my-pi: overwrite the first 256 bytes, then append the audit entry.
    const change = b.rename('After the rename');
    const handle = fs.openSync(file, 'r+');
    fs.writeSync(handle, b.titleLine(), 0, 'utf8');
    fs.closeSync(handle);
    fs.appendFileSync(file, `${b.lines[b.lines.length - 1]}\n`);
    expect(fs.readFileSync(file, 'utf8')).toBe(b.text());

    const after = await waitFor(async () => {
      const s = await snapshot();
      return s.name === 'After the rename' && s.nodes.some((node) => node.id === change) ? s : undefined;
    });
    expect(after.nodes).toHaveLength(2);
    const listed = await waitFor(async () =>
      (await rescan(e)).find((item) => item.id === id && item.name === 'After the rename'),
    );
    expect(listed.name).toBe('After the rename');
  });

  it('a rename that only rewrites the title line (same size) is picked up too', async () => {
    const { e, sessions } = await agentSetup();
    env = e;
    const b = new OmpSessionBuilder({ title: 'One' });
    b.user('hello');
    const file = path.join(sessions, 'same.jsonl');
    fs.writeFileSync(file, b.text());
    const id = await idOf(e, 'same.jsonl');
    await e.app.inject({ method: 'GET', url: `/api/sessions/${id}`, headers: AUTH });
    const size = fs.statSync(file).size;
    const handle = fs.openSync(file, 'r+');
    fs.writeSync(handle, titleSlotLine('Two', '2026-09-02T00:00:00.000Z', 'user'), 0, 'utf8');
    fs.closeSync(handle);
    // Some filesystems keep the mtime within the same tick: make the change visible.
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(file, later, later);
    expect(fs.statSync(file).size).toBe(size);
    const name = await waitFor(async () => {
      const s = await getSnapshot(e.app, id);
      return s.name === 'Two' ? s.name : undefined;
    });
    expect(name).toBe('Two');
  });

  it('a model_usage side call moves the leaf only when its parent is still the leaf', async () => {
    const { e, sessions } = await agentSetup();
    env = e;
    const b = new OmpSessionBuilder({ title: 'Side calls' });
    const user = b.user('hello');
    const file = path.join(sessions, 'side.jsonl');
    fs.writeFileSync(file, b.text());
    const id = await idOf(e, 'side.jsonl');
    const leaf = async () => await getSnapshot(e.app, id);
    expect((await leaf()).leafId).toBe(user);
    const answer = b.assistant('hi');
    const stale = b.modelUsage(user, 'title');
    fs.appendFileSync(file, `${b.lines.slice(-2).join('\n')}\n`);
    const afterStale = await waitFor(async () => {
      const s = await leaf();
      return s.nodes.length === 3 ? s : undefined;
    });
    expect(afterStale.leafId).toBe(answer);
    expect(stale).not.toBe(answer);
    const current = b.modelUsage(answer, 'memory');
    fs.appendFileSync(file, `${b.lines[b.lines.length - 1]}\n`);
    const afterCurrent = await waitFor(async () => {
      const s = await leaf();
      return s.nodes.length === 4 ? s : undefined;
    });
    expect(afterCurrent.leafId).toBe(current);
  });

  it('a rewrite staged in a .tmp file and renamed over the session (new inode, an entry gone) reloads it', async () => {
    const { e, sessions } = await agentSetup();
    env = e;
    const b = new OmpSessionBuilder({ title: 'Rewritten' });
    const user = b.user('hello');
    const dropped = b.assistant('to be discarded');
    const file = path.join(sessions, 'rw.jsonl');
    fs.writeFileSync(file, b.text());
    const id = await idOf(e, 'rw.jsonl');
    const nodes = async () => await getSnapshot(e.app, id);
    expect((await nodes()).nodes.map((node) => node.id)).toEqual([user, dropped]);
    // oh-my-pi's atomic rewrite: the whole file staged beside it, then renamed over it.
    const staged = path.join(sessions, '.rw.jsonl.1234.tmp');
    fs.writeFileSync(staged, b.text().replace(`${b.lines[1]}\n`, ''));
    fs.renameSync(staged, file);
    const after = await waitFor(async () => {
      const s = await nodes();
      return s.nodes.length === 1 ? s : undefined;
    });
    expect(after.nodes.map((node) => node.id)).toEqual([user]);
    expect(after.leafId).toBe(user);
  });

  it('--outline prints an archived session like a plain one and names a damaged archive', async () => {
    const { e, sessions } = await agentSetup();
    env = e;
    const b = new OmpSessionBuilder({ title: 'Archived outline' });
    b.user('an old question');
    fs.writeFileSync(path.join(sessions, 'a.jsonl'), b.text());
    fs.writeFileSync(path.join(sessions, 'b.jsonl.gz'), gzipSync(b.text()));
    fs.writeFileSync(path.join(sessions, 'c.jsonl.gz'), 'not gzip');
    let text = '';
    await printOutlines([sessions], (chunk) => (text += chunk));
    const blocks = text.trim().split('\n\n');
    expect(blocks).toHaveLength(3);
    expect(blocks[1]!.replace('b.jsonl.gz', 'a.jsonl')).toBe(blocks[0]);
    expect(blocks[2]).toBe(
      `${path.join(fs.realpathSync(sessions), 'c.jsonl.gz')}: The archive is damaged (incorrect header check after 0 decompressed bytes); it is not a gzip file Canopy can read.`,
    );
  });
});
