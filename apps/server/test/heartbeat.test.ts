import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { AUTH, SEED_IDS, sessionIdOf, setup, type TestEnv, waitFor } from './helpers';

const SEED = 'seed-example.jsonl';
const OTHER = 'all-entry-types.jsonl';
const HEARTBEAT_MS = 100;

function collect(ws: WebSocket): Array<Record<string, unknown>> {
  const events: Array<Record<string, unknown>> = [];
  ws.on('message', (data) => events.push(JSON.parse(String(data)) as Record<string, unknown>));
  return events;
}

async function subscribe(ws: WebSocket, events: Array<Record<string, unknown>>, sessionId: string) {
  ws.send(JSON.stringify({ type: 'subscribe', sessionId }));
  await waitFor(() => events.find((event) => event.type === 'subscribed' && event.sessionId === sessionId));
}

describe('WebSocket heartbeat', () => {
  let env: TestEnv;
  beforeEach(async () => {
    env = await setup([SEED, OTHER], { heartbeatMs: HEARTBEAT_MS });
  });
  afterEach(async () => env.close());

  it('terminates a socket that stops answering pings and drops its subscriptions; a socket that answers stays', async () => {
    const hub = env.app.canopy.hub;
    const seed = await sessionIdOf(env.app, SEED);
    const other = await sessionIdOf(env.app, OTHER);

    // Injected sockets do not answer pings by themselves: the live one answers, the dead one never does.
    const live = await env.app.injectWS('/ws', { headers: AUTH });
    let livePings = 0;
    live.on('ping', (data) => {
      livePings++;
      live.pong(data);
    });
    const dead = await env.app.injectWS('/ws', { headers: AUTH });
    let deadPings = 0;
    dead.on('ping', () => deadPings++);
    let deadClosed = false;
    dead.on('close', () => (deadClosed = true));
    const liveEvents = collect(live);
    const deadEvents = collect(dead);
    await subscribe(live, liveEvents, seed);
    await subscribe(dead, deadEvents, seed);
    await subscribe(dead, deadEvents, other);
    expect(hub.socketCount).toBe(2);
    expect(hub.subscriberCount(seed)).toBe(2);
    expect(hub.subscriberCount(other)).toBe(1);

    await waitFor(() => hub.socketCount === 1);
    expect(deadPings).toBeGreaterThanOrEqual(1);
    expect(hub.subscriberCount(seed)).toBe(1);
    expect(hub.subscriberCount(other)).toBe(0);
    await waitFor(() => deadClosed);

    // The live socket keeps answering through several more rounds and is still served.
    const pingsAtDrop = livePings;
    await waitFor(() => livePings >= pingsAtDrop + 3);
    expect(hub.socketCount).toBe(1);
    expect(hub.subscriberCount(seed)).toBe(1);
    const label = await env.app.inject({
      method: 'PUT',
      url: `/api/sessions/${seed}/labels/${SEED_IDS.milestoneLabel}`,
      headers: AUTH,
      payload: { label: 'still here' },
    });
    expect(label.statusCode).toBe(200);
    expect(await waitFor(() => liveEvents.find((event) => event.type === 'label_changed'))).toMatchObject({
      sessionId: seed,
      targetId: SEED_IDS.milestoneLabel,
      label: 'still here',
    });
    live.terminate();
  });
});
