// Swap races on the files served beside a session (docs/safety.md#confinement): another process
// swaps a blob or an artifact for a link to a file outside, or for a file too large, over and over
// while the route is asked for it. Whatever the interleaving, an outside byte or more than the cap
// is never served: the file is opened without following a link, checked and read on one descriptor.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OmpSessionBuilder } from '../../../packages/session-core/test/omp-builder';
import { AUTH, setup, type TestEnv } from './helpers';

// A 1×1 PNG.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082',
  'hex',
);
const HASH = 'a'.repeat(64);
const SECRET = 'OUTSIDE-THE-ROOTS-SECRET';

/**
 * A process that replaces `target` (atomic renames) by turns with a regular file of `inside` bytes
 * and with `swapIn` (a symlink to `linkTo`, or a copy of the file `bigFrom`), until it is killed.
 * It says "ready" once the first round is done.
 */
function startSwapper(target: string, inside: Buffer, swap: { linkTo: string } | { bigFrom: string }) {
  const script = `
    const fs = require('node:fs');
    const [target, insideHex, kind, other] = process.argv.slice(1);
    const inside = Buffer.from(insideHex, 'hex');
    const a = target + '.a.tmp', b = target + '.b.tmp';
    let said = false;
    for (;;) {
      fs.writeFileSync(a, inside);
      fs.renameSync(a, target);
      fs.rmSync(b, { force: true });
      if (kind === 'link') fs.symlinkSync(other, b); else fs.linkSync(other, b);
      fs.renameSync(b, target);
      if (!said) { said = true; process.stdout.write('ready\\n'); }
    }`;
  const kind = 'linkTo' in swap ? 'link' : 'big';
  const other = 'linkTo' in swap ? swap.linkTo : swap.bigFrom;
  const child = spawn(process.execPath, ['-e', script, target, inside.toString('hex'), kind, other], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  return { child, ready };
}

let env: TestEnv | undefined;
let swapper: ChildProcess | undefined;
afterEach(async () => {
  if (swapper && swapper.exitCode === null) {
    const exited = new Promise((resolve) => swapper!.once('exit', resolve));
    swapper.kill('SIGKILL');
    await exited;
  }
  swapper = undefined;
  await env?.close();
  env = undefined;
});

/** An agent folder (`agent/sessions`, `agent/blobs`) with one session naming a blob and an artifact. */
async function agentWithSession(): Promise<{ e: TestEnv; id: string; blobs: string; folder: string }> {
  const e = await setup([]);
  const agent = path.join(e.dir, 'agent');
  const sessions = path.join(agent, 'sessions');
  const blobs = path.join(agent, 'blobs');
  fs.mkdirSync(sessions, { recursive: true });
  fs.mkdirSync(blobs);
  const b = new OmpSessionBuilder({ title: 'Swaps' });
  b.assistant([{ type: 'image', data: `blob:sha256:${HASH}`, mimeType: 'image/png' }]);
  fs.writeFileSync(path.join(sessions, 'work.jsonl'), b.text());
  const folder = path.join(sessions, 'work');
  fs.mkdirSync(folder);
  await e.restart({ roots: [sessions] });
  const list = await e.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH });
  const id = (list.json() as { sessions: Array<{ id: string }> }).sessions[0]!.id;
  return { e, id, blobs, folder };
}

const ROUNDS = 300;

/** Asks for `url` `rounds` times while a swapper runs; answers each response, in order. */
async function askRepeatedly(e: TestEnv, url: string, rounds: number) {
  const responses = [];
  for (let i = 0; i < rounds; i++) responses.push(await e.app.inject({ method: 'GET', url, headers: AUTH }));
  return responses;
}

/**
 * Only the file inside, or a refusal: the link (403), a file replaced between its open and its check
 * (404), or one over the cap (413). How often each, the scheduler decides.
 */
const SWAP_STATUSES = [200, 403, 404, 413];

describe('swap races', () => {
  it('a blob swapped again and again for a link to an image outside is never served from outside', async () => {
    const { e, id, blobs } = await agentWithSession();
    env = e;
    const outside = path.join(e.dir, 'outside.png');
    fs.writeFileSync(outside, Buffer.concat([PNG, Buffer.from(SECRET)]));
    const started = startSwapper(path.join(blobs, HASH), PNG, { linkTo: outside });
    swapper = started.child;
    await started.ready;
    for (const response of await askRepeatedly(e, `/api/sessions/${id}/blobs/${HASH}`, ROUNDS)) {
      expect(response.rawPayload.includes(SECRET)).toBe(false);
      expect(SWAP_STATUSES).toContain(response.statusCode);
      if (response.statusCode === 200) expect(response.rawPayload.equals(PNG)).toBe(true);
    }
  });

  it('a blob swapped again and again for a 64 MB image is never served past the 20 MiB cap', async () => {
    const { e, id, blobs } = await agentWithSession();
    env = e;
    const big = path.join(e.dir, 'big.png');
    fs.writeFileSync(big, PNG);
    fs.truncateSync(big, 64 << 20);
    const started = startSwapper(path.join(blobs, HASH), PNG, { bigFrom: big });
    swapper = started.child;
    await started.ready;
    for (const response of await askRepeatedly(e, `/api/sessions/${id}/blobs/${HASH}`, 100)) {
      expect(response.rawPayload.length).toBeLessThanOrEqual(20 * 1024 * 1024);
      expect(SWAP_STATUSES).toContain(response.statusCode);
    }
  });

  it('an artifact swapped again and again for a link to a file outside is never served from outside', async () => {
    const { e, id, folder } = await agentWithSession();
    env = e;
    const outside = path.join(e.dir, 'secret.log');
    fs.writeFileSync(outside, SECRET);
    const started = startSwapper(path.join(folder, '0.bash.log'), Buffer.from('build log\n'), {
      linkTo: outside,
    });
    swapper = started.child;
    await started.ready;
    for (const response of await askRepeatedly(e, `/api/sessions/${id}/artifacts/0`, ROUNDS)) {
      expect(response.body.includes(SECRET)).toBe(false);
      expect(SWAP_STATUSES).toContain(response.statusCode);
    }
  });
});

describe('folders checked by real path', () => {
  it('a session folder that links out of the roots serves no artifact (nor a subagent transcript)', async () => {
    const { e, id, folder } = await agentWithSession();
    env = e;
    const elsewhere = path.join(e.dir, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.writeFileSync(path.join(elsewhere, '0.bash.log'), SECRET);
    fs.writeFileSync(path.join(elsewhere, 'Helper.jsonl'), new OmpSessionBuilder({ title: SECRET }).text());
    fs.rmSync(folder, { recursive: true });
    fs.symlinkSync(elsewhere, folder);
    const response = await e.app.inject({
      method: 'GET',
      url: `/api/sessions/${id}/artifacts/0`,
      headers: AUTH,
    });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ error: { code: 'OUTSIDE_ROOTS' } });
    expect(response.body).not.toContain(SECRET);
    const canopy = (e.app as unknown as { canopy: { store: { index: { scan(): Promise<unknown> } } } })
      .canopy;
    await canopy.store.index.scan();
    const list = await e.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH });
    expect(list.body).not.toContain(SECRET);
    expect((list.json() as { sessions: unknown[] }).sessions).toHaveLength(1);
  });

  it('a blobs folder that links out of the agent folder serves no blob', async () => {
    const { e, id, blobs } = await agentWithSession();
    env = e;
    const elsewhere = path.join(e.dir, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.writeFileSync(path.join(elsewhere, HASH), Buffer.concat([PNG, Buffer.from(SECRET)]));
    fs.rmSync(blobs, { recursive: true });
    fs.symlinkSync(elsewhere, blobs);
    const response = await e.app.inject({
      method: 'GET',
      url: `/api/sessions/${id}/blobs/${HASH}`,
      headers: AUTH,
    });
    expect(response.statusCode).toBe(404);
    expect(response.rawPayload.includes(SECRET)).toBe(false);
  });
});
