import { afterEach, describe, expect, it, vi } from 'vitest';
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
});
