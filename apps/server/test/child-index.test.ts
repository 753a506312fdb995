import { SessionManager } from '@canopy/session-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Clock } from '../src/live/open-session';
import { AUTH, getSnapshot, sessionIdOf, setup, type TestEnv, waitFor } from './helpers';

const SEED = 'seed-example.jsonl';

describe("an open session's children index", () => {
  let env: TestEnv | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await env?.app.close();
    env = undefined;
  });

  it('is built a while after the load, before any request asks for children, and not for a session closed meanwhile', async () => {
    const prepare = vi.spyOn(SessionManager.prototype, 'prepareChildIndex');
    // A clock whose waits end only when the test releases them.
    let now = 1_000_000;
    const waiting: (() => void)[] = [];
    const release = () => waiting.splice(0).forEach((resolve) => resolve());
    const clock: Clock = {
      now: () => now,
      sleep: () => new Promise<void>((resolve) => waiting.push(resolve)),
    };
    env = await setup([SEED], { clock, idleCloseMs: 60_000 });
    const { store } = env.app.canopy;
    const id = await sessionIdOf(env.app, SEED);
    const { nodes } = await getSnapshot(env.app, id);
    // Until the wait after the load ends, nothing is built.
    await waitFor(() => waiting.length > 0);
    expect(prepare).not.toHaveBeenCalled();
    release();
    await waitFor(() => prepare.mock.results.some((result) => result.value === true));
    const detail = await env.app.inject({
      method: 'GET',
      url: `/api/sessions/${id}/entries/${nodes[0]!.id}`,
      headers: AUTH,
    });
    expect(detail.statusCode).toBe(200);

    // Closed before its wait ends, a session builds nothing.
    now += 120_000;
    expect(store.releaseIdle()).toEqual([id]);
    await getSnapshot(env.app, id);
    await waitFor(() => waiting.length > 0);
    now += 120_000;
    expect(store.releaseIdle()).toEqual([id]);
    prepare.mockClear();
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(prepare).not.toHaveBeenCalled();
  });
});
