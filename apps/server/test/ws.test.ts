import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { AUTH, HOST, SEED_IDS, sessionIdOf, setup, type TestEnv, waitFor } from './helpers';

const SEED = 'seed-example.jsonl';

function collect(ws: WebSocket): Array<Record<string, unknown>> {
  const events: Array<Record<string, unknown>> = [];
  ws.on('message', (data) => events.push(JSON.parse(String(data)) as Record<string, unknown>));
  return events;
}

/** Round trip through the server on `ws`: it has handled (and sent) everything before it once this resolves. */
async function syncWith(ws: WebSocket, events: Array<Record<string, unknown>>, id: string): Promise<void> {
  ws.send(JSON.stringify({ type: 'ping', id }));
  await waitFor(() => events.find((event) => event.type === 'pong' && event.id === id));
}

describe('WebSocket /ws', () => {
  let env: TestEnv;
  beforeEach(async () => {
    env = await setup([SEED]);
  });
  afterEach(async () => env.close());

  it('says hello with the protocol version and a connection id, answers ping with pong', async () => {
    const events: Array<Record<string, unknown>> = [];
    const ws = await env.app.injectWS(
      '/ws',
      { headers: AUTH },
      {
        onInit: (socket) =>
          socket.on('message', (data) => events.push(JSON.parse(String(data)) as Record<string, unknown>)),
      },
    );
    await waitFor(() => events.find((event) => event.type === 'hello'));
    expect(events[0]).toEqual({ type: 'hello', protocolVersion: 1, clientId: expect.any(String) });
    ws.send(JSON.stringify({ type: 'ping', id: 'p1' }));
    expect(await waitFor(() => events.find((event) => event.type === 'pong'))).toEqual({
      type: 'pong',
      id: 'p1',
    });
    ws.terminate();
  });

  it('bad messages get an error reply and the socket stays usable', async () => {
    const ws = await env.app.injectWS('/ws', { headers: AUTH });
    const events = collect(ws);
    ws.send('not json');
    ws.send(JSON.stringify({ type: 'explode' }));
    ws.send(JSON.stringify({ type: 'subscribe', sessionId: '../../etc' }));
    ws.send(JSON.stringify({ type: 'subscribe', sessionId: 'unknownid' }));
    ws.send(JSON.stringify({ type: 'abort_summary', sessionId: 'unknownid' }));
    ws.send(JSON.stringify({ type: 'ping', pad: 'x'.repeat(5000) }));
    const errors = await waitFor(() => {
      const found = events.filter((event) => event.type === 'error');
      return found.length === 6 ? found : undefined;
    });
    expect(errors.map((error) => error.code).sort()).toEqual([
      'BAD_REQUEST',
      'BAD_REQUEST',
      'BAD_REQUEST',
      'NO_SUMMARY_RUNNING',
      'PAYLOAD_TOO_LARGE',
      'SESSION_NOT_FOUND',
    ]);
    expect(errors.find((error) => error.code === 'SESSION_NOT_FOUND')).toMatchObject({
      sessionId: 'unknownid',
    });
    ws.send(JSON.stringify({ type: 'ping' }));
    await waitFor(() => events.find((event) => event.type === 'pong'));
    ws.terminate();
  });

  it('subscribers get entries_appended, label_changed and session_tree; unsubscribed sockets do not', async () => {
    const id = await sessionIdOf(env.app, SEED);
    const subscribed = await env.app.injectWS('/ws', { headers: AUTH });
    const other = await env.app.injectWS('/ws', { headers: AUTH });
    const events = collect(subscribed);
    const otherEvents = collect(other);
    subscribed.send(JSON.stringify({ type: 'subscribe', sessionId: id }));
    expect(await waitFor(() => events.find((event) => event.type === 'subscribed'))).toEqual({
      type: 'subscribed',
      sessionId: id,
      leafId: SEED_IDS.milestoneLabel,
    });

    await env.app.inject({
      method: 'PUT',
      url: `/api/sessions/${id}/labels/${SEED_IDS.bResult}`,
      headers: AUTH,
      payload: { label: 'B' },
    });
    const appended = await waitFor(() => events.find((event) => event.type === 'entries_appended'));
    expect(appended).toMatchObject({
      sessionId: id,
      source: 'canopy',
      nodes: [expect.objectContaining({ type: 'label' })],
    });
    expect(await waitFor(() => events.find((event) => event.type === 'label_changed'))).toMatchObject({
      sessionId: id,
      targetId: SEED_IDS.bResult,
      label: 'B',
    });

    await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/navigate`,
      headers: AUTH,
      payload: { targetId: SEED_IDS.bResult },
    });
    const tree = await waitFor(() => events.find((event) => event.type === 'session_tree'));
    expect(tree).toMatchObject({ sessionId: id, newLeafId: SEED_IDS.bResult });

    subscribed.send(JSON.stringify({ type: 'unsubscribe', sessionId: id }));
    // Messages are handled in order: once the pong is back, the unsubscribe has been applied.
    subscribed.send(JSON.stringify({ type: 'ping', id: 'sync' }));
    await waitFor(() => events.find((event) => event.type === 'pong'));
    const sessionEvents = () =>
      events.filter((event) => event.type !== 'sessions_changed' && event.type !== 'pong');
    const count = sessionEvents().length;
    await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/navigate`,
      headers: AUTH,
      payload: { targetId: SEED_IDS.aResult },
    });
    // Whatever the navigation sent went out before the answers to these pings: once both are back,
    // nothing more can arrive from it.
    await syncWith(subscribed, events, 'after-navigate');
    await syncWith(other, otherEvents, 'after-navigate');
    expect(sessionEvents().length).toBe(count);
    expect(
      otherEvents.filter(
        (event) => event.type !== 'hello' && event.type !== 'sessions_changed' && event.type !== 'pong',
      ),
    ).toEqual([]);
    subscribed.terminate();
    other.terminate();
  });

  it('an external append reaches subscribers as entries_appended and writer_active', async () => {
    const id = await sessionIdOf(env.app, SEED);
    const ws = await env.app.injectWS('/ws', { headers: AUTH });
    const events = collect(ws);
    ws.send(JSON.stringify({ type: 'subscribe', sessionId: id }));
    await waitFor(() => events.find((event) => event.type === 'subscribed'));
    const line = JSON.stringify({
      type: 'custom',
      id: 'c0000001',
      parentId: SEED_IDS.milestoneLabel,
      timestamp: new Date().toISOString(),
      customType: 'x',
    });
    fs.appendFileSync(env.file(SEED), `${line}\n`);
    const appended = await waitFor(() => events.find((event) => event.type === 'entries_appended'));
    expect(appended).toMatchObject({
      source: 'external',
      leafId: 'c0000001',
      nodes: [expect.objectContaining({ id: 'c0000001', text: '[custom: x]' })],
    });
    expect(await waitFor(() => events.find((event) => event.type === 'writer_active'))).toEqual({
      type: 'writer_active',
      sessionId: id,
      active: true,
    });
    ws.terminate();
  });

  it('refuses an upgrade without the token, from a foreign Origin, or to a foreign Host', async () => {
    await expect(env.app.injectWS('/ws', { headers: { host: HOST } })).rejects.toThrow('401');
    await expect(
      env.app.injectWS('/ws', { headers: { ...AUTH, origin: 'http://evil.example' } }),
    ).rejects.toThrow('403');
    await expect(
      env.app.injectWS('/ws', { headers: { ...AUTH, host: 'attacker.example:4999' } }),
    ).rejects.toThrow('403');
    const ok = await env.app.injectWS('/ws', { headers: { ...AUTH, origin: `http://${HOST}` } });
    ok.terminate();
  });
});
