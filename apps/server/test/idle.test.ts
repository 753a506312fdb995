import { afterEach, describe, expect, it, vi } from 'vitest';
import { idleCloseMsFromEnv } from '../src/config';
import { fullCollection } from '../src/memory';
import type { Clock } from '../src/live/open-session';
import { AUTH, getSnapshot, sessionIdOf, setup, type TestEnv, waitFor } from './helpers';

const SEED = 'seed-example.jsonl';

describe('idle sessions', () => {
  let env: TestEnv;
  afterEach(async () => {
    vi.restoreAllMocks();
    await env.close();
  });

  it('a session nobody follows is released; one a browser follows stays open until it unsubscribes', async () => {
    env = await setup([SEED], { idleCloseMs: 20 });
    const { store, hub } = env.app.canopy;
    const id = await sessionIdOf(env.app, SEED);
    await getSnapshot(env.app, id);
    await waitFor(() => !store.isOpen(id));

    const asked = vi.spyOn(hub, 'subscriberCount');
    const ws = await env.app.injectWS('/ws', { headers: AUTH });
    const events: Array<{ type: string }> = [];
    ws.on('message', (data) => events.push(JSON.parse(String(data)) as { type: string }));
    ws.send(JSON.stringify({ type: 'subscribe', sessionId: id }));
    await waitFor(() => events.find((event) => event.type === 'subscribed'));
    // The idle timer fired twice while the browser followed the session: it is still open.
    await waitFor(() => asked.mock.calls.filter(([sessionId]) => sessionId === id).length >= 2);
    expect(store.isOpen(id)).toBe(true);

    ws.send(JSON.stringify({ type: 'unsubscribe', sessionId: id }));
    await waitFor(() => !store.isOpen(id));
    ws.terminate();
  });

  it('by the injected clock: an unfollowed session closes idleCloseMs after its last use, a followed one idleCloseMs after its last subscriber left', async () => {
    let now = 1_000_000;
    const clock: Clock = { now: () => now, sleep: async () => undefined };
    const afterRelease = vi.fn();
    env = await setup([SEED], { idleCloseMs: 60_000, clock, afterRelease });
    const { store } = env.app.canopy;
    const id = await sessionIdOf(env.app, SEED);
    await getSnapshot(env.app, id);
    now += 30_000;
    // A use (any read opens the session again) starts the period over.
    await getSnapshot(env.app, id);
    now += 59_999;
    expect(store.releaseIdle()).toEqual([]);
    expect(store.isOpen(id)).toBe(true);
    now += 1;
    expect(store.releaseIdle()).toEqual([id]);
    expect(store.isOpen(id)).toBe(false);
    // The memory goes back once the closed session's last jobs have run.
    await waitFor(() => afterRelease.mock.calls.length === 1);
    // Released, not forgotten: the list still has it, and the next read opens it again.
    expect(store.list().map((item) => item.id)).toContain(id);
    expect((await getSnapshot(env.app, id)).nodes.length).toBeGreaterThan(0);
    expect(store.isOpen(id)).toBe(true);

    const ws = await env.app.injectWS('/ws', { headers: AUTH });
    const events: Array<{ type: string }> = [];
    ws.on('message', (data) => events.push(JSON.parse(String(data)) as { type: string }));
    ws.send(JSON.stringify({ type: 'subscribe', sessionId: id }));
    await waitFor(() => events.find((event) => event.type === 'subscribed'));
    now += 600_000;
    expect(store.releaseIdle()).toEqual([]);
    ws.send(JSON.stringify({ type: 'unsubscribe', sessionId: id }));
    await waitFor(() => !env.app.canopy.hub.subscriberCount(id));
    now += 59_999;
    expect(store.releaseIdle()).toEqual([]);
    now += 1;
    expect(store.releaseIdle()).toEqual([id]);
    ws.terminate();
  });
});

describe('CANOPY_IDLE_CLOSE_MS', () => {
  it('sets the idle period in whole milliseconds; unset or empty is the default; anything else is refused by name', () => {
    expect(idleCloseMsFromEnv({ CANOPY_IDLE_CLOSE_MS: '15000' })).toBe(15_000);
    expect(idleCloseMsFromEnv({})).toBeUndefined();
    expect(idleCloseMsFromEnv({ CANOPY_IDLE_CLOSE_MS: '' })).toBeUndefined();
    for (const bad of ['0', '-5', '1.5', '10s', 'soon']) {
      expect(() => idleCloseMsFromEnv({ CANOPY_IDLE_CLOSE_MS: bad })).toThrow(
        `CANOPY_IDLE_CLOSE_MS must be a whole number of milliseconds (at least 1), not "${bad}"`,
      );
    }
  });
});

describe('fullCollection', () => {
  it('gives a function that runs a full garbage collection: an object nothing refers to is gone after it', async () => {
    const gc = fullCollection();
    expect(gc).toBeTypeOf('function');
    const ref = (() => new WeakRef({ payload: 'x'.repeat(1000) }))();
    // A WeakRef's target lives at least until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    gc!();
    expect(ref.deref()).toBeUndefined();
  });
});
