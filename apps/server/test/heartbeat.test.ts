// The WebSocket heartbeat, ticked by the test itself (an injected scheduler): no timer runs, so the
// outcome cannot depend on how busy the machine is.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { AUTH, SEED_IDS, sessionIdOf, setup, type TestEnv, waitFor } from './helpers';

const SEED = 'seed-example.jsonl';
const OTHER = 'all-entry-types.jsonl';

function collect(ws: WebSocket): Array<Record<string, unknown>> {
  const events: Array<Record<string, unknown>> = [];
  ws.on('message', (data) => events.push(JSON.parse(String(data)) as Record<string, unknown>));
  return events;
}

async function subscribe(ws: WebSocket, events: Array<Record<string, unknown>>, sessionId: string) {
  ws.send(JSON.stringify({ type: 'subscribe', sessionId }));
  await waitFor(() => events.find((event) => event.type === 'subscribed' && event.sessionId === sessionId));
}

/**
 * Resolves once the server has answered a ping from `ws`. Frames of one socket are handled in order,
 * so by then the server has also handled everything `ws` sent before (its pong to the heartbeat).
 */
function roundTrip(ws: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    ws.once('pong', () => resolve());
    ws.ping();
  });
}

describe('WebSocket heartbeat', () => {
  let env: TestEnv;
  let tick: () => void = () => {
    throw new Error('the heartbeat was not scheduled');
  };
  beforeEach(async () => {
    env = await setup([SEED, OTHER], {
      heartbeatScheduler: (run) => {
        tick = run;
        return () => {
          tick = () => {};
        };
      },
    });
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

    // First beat: both are pinged. The live one answers, and the server has read the answer.
    tick();
    await waitFor(() => livePings === 1 && deadPings === 1);
    await roundTrip(live);
    expect(hub.socketCount).toBe(2);

    // Second beat: the dead one never answered, so it is terminated with its subscriptions.
    tick();
    await waitFor(() => hub.socketCount === 1);
    expect(hub.subscriberCount(seed)).toBe(1);
    expect(hub.subscriberCount(other)).toBe(0);
    await waitFor(() => deadClosed);

    // The live socket keeps answering through several more beats and is still served.
    for (let beat = 2; beat <= 4; beat++) {
      await waitFor(() => livePings === beat);
      await roundTrip(live);
      tick();
    }
    await waitFor(() => livePings === 5);
    expect(hub.socketCount).toBe(1);
    expect(hub.subscriberCount(seed)).toBe(1);
    const label = await env.app.inject({
      method: 'PUT',
      url: `/api/sessions/${seed}/labels/${SEED_IDS.milestoneLabel}`,
      headers: AUTH,
      payload: { label: 'still here' },
    });
    expect(label.statusCode).toBe(200);
    expect(await waitFor(() => liveEvents.find((event) => event.type === 'session_changed'))).toMatchObject({
      sessionId: seed,
      source: 'canopy',
      changed: { id: [SEED_IDS.milestoneLabel], labels: [[0, 'still here']] },
    });
    live.terminate();
  });
});
