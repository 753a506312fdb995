import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WARM_UP_PATHS, warmUp } from '../src/http/warm-up';
import { HOST, setup, TOKEN, type TestEnv } from './helpers';

/** Every file under `dir` with its bytes, to show that nothing was written. */
function snapshotOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, name);
    if (fs.statSync(file).isFile()) out[name] = fs.readFileSync(file).toString('base64');
  }
  return out;
}

describe('warm-up of the first requests', () => {
  let env: TestEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  it('answers every request a page makes before it opens a session, through the real token and Host checks', async () => {
    env = await setup(['seed-example.jsonl']);
    const results = await warmUp(env.app, TOKEN, HOST);
    expect(results.map((r) => r.path)).toEqual([...WARM_UP_PATHS]);
    expect(results.every((r) => r.status === 200)).toBe(true);
  });

  it('writes nothing: the sessions and the state folder are byte for byte as before', async () => {
    env = await setup(['seed-example.jsonl', 'all-entry-types.jsonl']);
    const before = { sessions: snapshotOf(env.root), state: snapshotOf(env.stateDir) };
    await warmUp(env.app, TOKEN, HOST);
    expect({ sessions: snapshotOf(env.root), state: snapshotOf(env.stateDir) }).toEqual(before);
  });

  it('reports a refused request (a wrong token or Host would warm nothing)', async () => {
    env = await setup(['seed-example.jsonl']);
    const wrongToken = await warmUp(env.app, 'not-the-token-0123456789', HOST);
    expect(wrongToken.filter((r) => r.path.startsWith('/api/')).map((r) => r.status)).toEqual([
      401, 401, 401,
    ]);
    const wrongHost = await warmUp(env.app, TOKEN, 'evil.example:80');
    expect(wrongHost.every((r) => r.status === 403)).toBe(true);
  });
});
