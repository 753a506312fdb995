import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { decodeNodes, type SessionChangedEvent, type TreeNode } from '@canopy/protocol';
import { SessionManager } from '@canopy/session-core';
import { freshTreeNodes } from './fresh-nodes';
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

  /** A subscribed socket whose session events (not pongs, not list rows) are collected from now on. */
  async function subscribedSocket(id: string) {
    const ws = await env.app.injectWS('/ws', { headers: AUTH });
    const events = collect(ws);
    ws.send(JSON.stringify({ type: 'subscribe', sessionId: id }));
    await waitFor(() => events.find((event) => event.type === 'subscribed'));
    const sessionEvents = () =>
      events.filter(
        (event) => !['hello', 'subscribed', 'pong', 'session_list_changed'].includes(String(event.type)),
      ) as unknown as SessionChangedEvent[];
    return { ws, events, sessionEvents };
  }

  /** The nodes of the session file as a fresh open builds them, by id. */
  function freshNodes(): Map<string, TreeNode> {
    const sm = SessionManager.fromJsonl(fs.readFileSync(env.file(SEED)));
    const nodes = freshTreeNodes(sm, env.dir);
    return new Map(nodes.map((node) => [node.id, node]));
  }

  it('a label written by Canopy is one session_changed (the label entry added, the target row changed, the leaf on the label entry); the reply carries ids only', async () => {
    const id = await sessionIdOf(env.app, SEED);
    const { ws, events, sessionEvents } = await subscribedSocket(id);
    const response = await env.app.inject({
      method: 'PUT',
      url: `/api/sessions/${id}/labels/${SEED_IDS.bResult}`,
      headers: AUTH,
      payload: { label: 'B' },
    });
    const reply = response.json() as { labelEntryId: string };
    expect(reply).toEqual({
      targetId: SEED_IDS.bResult,
      label: 'B',
      labelEntryId: expect.any(String),
      leafId: reply.labelEntryId,
    });
    await syncWith(ws, events, 'after-label');
    const fresh = freshNodes();
    expect(sessionEvents()).toHaveLength(1);
    const [event] = sessionEvents();
    expect(Object.keys(event!).sort()).toEqual(['added', 'changed', 'leaf', 'sessionId', 'source', 'type']);
    expect(event).toMatchObject({
      type: 'session_changed',
      sessionId: id,
      source: 'canopy',
      leaf: { id: reply.labelEntryId, previousId: SEED_IDS.milestoneLabel },
    });
    expect(decodeNodes(event!.added!)).toEqual([fresh.get(reply.labelEntryId)]);
    expect(decodeNodes(event!.changed!)).toEqual([fresh.get(SEED_IDS.bResult)]);
    expect(fresh.get(SEED_IDS.bResult)?.label).toBe('B');
    ws.terminate();
  });

  it('a navigation is one session_changed with only the leaf; unsubscribed and other sockets get nothing', async () => {
    const id = await sessionIdOf(env.app, SEED);
    const { ws, events, sessionEvents } = await subscribedSocket(id);
    const other = await env.app.injectWS('/ws', { headers: AUTH });
    const otherEvents = collect(other);
    const response = await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/navigate`,
      headers: AUTH,
      payload: { targetId: SEED_IDS.bResult },
    });
    expect(response.json()).toEqual({
      alreadyAtTarget: false,
      cancelled: false,
      oldLeafId: SEED_IDS.milestoneLabel,
      newLeafId: SEED_IDS.bResult,
    });
    await syncWith(ws, events, 'after-navigate');
    expect(sessionEvents()).toEqual([
      {
        type: 'session_changed',
        sessionId: id,
        source: 'canopy',
        leaf: { id: SEED_IDS.bResult, previousId: SEED_IDS.milestoneLabel },
      },
    ]);

    ws.send(JSON.stringify({ type: 'unsubscribe', sessionId: id }));
    // Messages are handled in order: once the pong is back, the unsubscribe has been applied.
    await syncWith(ws, events, 'after-unsubscribe');
    await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/navigate`,
      headers: AUTH,
      payload: { targetId: SEED_IDS.aResult },
    });
    // Whatever the navigation sent went out before the answers to these pings: once both are back,
    // nothing more can arrive from it.
    await syncWith(ws, events, 'after-second-navigate');
    await syncWith(other, otherEvents, 'after-second-navigate');
    expect(sessionEvents()).toHaveLength(1);
    expect(
      otherEvents.filter((event) => !['hello', 'pong', 'session_list_changed'].includes(String(event.type))),
    ).toEqual([]);
    ws.terminate();
    other.terminate();
  });

  it('an external append is one session_changed (node added, leaf followed, writer active); the writer going quiet is its own', async () => {
    const id = await sessionIdOf(env.app, SEED);
    const { ws, sessionEvents } = await subscribedSocket(id);
    const line = JSON.stringify({
      type: 'custom',
      id: 'c0000001',
      parentId: SEED_IDS.milestoneLabel,
      timestamp: new Date().toISOString(),
      customType: 'x',
    });
    fs.appendFileSync(env.file(SEED), `${line}\n`);
    const [appended] = await waitFor(() => (sessionEvents().length > 0 ? sessionEvents() : undefined));
    expect({ ...appended, added: decodeNodes(appended!.added!) }).toEqual({
      type: 'session_changed',
      sessionId: id,
      source: 'external',
      added: [freshNodes().get('c0000001')],
      leaf: { id: 'c0000001', previousId: SEED_IDS.milestoneLabel },
      writerActive: true,
    });
    expect(decodeNodes(appended!.added!)[0]).toMatchObject({ text: '[custom: x]' });
    const quiet = await waitFor(() => sessionEvents()[1]);
    expect(quiet).toEqual({
      type: 'session_changed',
      sessionId: id,
      source: 'external',
      writerActive: false,
    });
    ws.terminate();
  });

  it('a tool result appended before its call is re-sent in `changed` when the call arrives', async () => {
    const id = await sessionIdOf(env.app, SEED);
    const { ws, sessionEvents } = await subscribedSocket(id);
    const at = new Date().toISOString();
    const result = {
      type: 'message',
      id: 'r0000001',
      parentId: SEED_IDS.milestoneLabel,
      timestamp: at,
      message: {
        role: 'toolResult',
        toolCallId: 'call-late',
        toolName: 'bash',
        content: [{ type: 'text', text: 'output' }],
        isError: false,
        timestamp: 0,
      },
    };
    fs.appendFileSync(env.file(SEED), `${JSON.stringify(result)}\n`);
    const [first] = await waitFor(() => (sessionEvents().length > 0 ? sessionEvents() : undefined));
    expect(decodeNodes(first!.added!)).toEqual([freshNodes().get('r0000001')]);
    expect(decodeNodes(first!.added!)[0]!.text).toBe('[bash]');
    const call = {
      type: 'message',
      id: 'a0000001',
      parentId: 'r0000001',
      timestamp: at,
      message: {
        role: 'assistant',
        content: [{ type: 'toolCall', id: 'call-late', name: 'bash', arguments: { command: 'ls' } }],
        stopReason: 'toolUse',
        timestamp: 0,
      },
    };
    fs.appendFileSync(env.file(SEED), `${JSON.stringify(call)}\n`);
    const second = await waitFor(() => sessionEvents()[1]);
    const fresh = freshNodes();
    expect(decodeNodes(second.added!)).toEqual([fresh.get('a0000001')]);
    expect(decodeNodes(second.changed!)).toEqual([fresh.get('r0000001')]);
    expect(decodeNodes(second.changed!)[0]!.text).toBe('[bash: ls]');
    expect(second.leaf).toEqual({ id: 'a0000001', previousId: 'r0000001' });
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

describe('noticing an append', () => {
  let env: TestEnv;
  afterEach(async () => env.close());

  it('acts on the file watcher at once: an append is published with the size poll an hour away', async () => {
    // The poll is the fallback for a missed watch event; here it cannot be what notices the line.
    env = await setup([SEED], { pollMs: 3_600_000 });
    const id = await sessionIdOf(env.app, SEED);
    const ws = await env.app.injectWS('/ws', { headers: AUTH });
    const events = collect(ws);
    ws.send(JSON.stringify({ type: 'subscribe', sessionId: id }));
    await waitFor(() => events.find((event) => event.type === 'subscribed'));
    const line = JSON.stringify({
      type: 'custom',
      id: 'w0000001',
      parentId: SEED_IDS.milestoneLabel,
      timestamp: new Date().toISOString(),
      customType: 'x',
    });
    fs.appendFileSync(env.file(SEED), `${line}\n`);
    const changed = (await waitFor(() =>
      events.find((event) => event.type === 'session_changed' && event.added !== undefined),
    )) as unknown as SessionChangedEvent;
    expect(decodeNodes(changed.added!).map((node) => node.id)).toEqual(['w0000001']);
    expect(changed.leaf).toEqual({ id: 'w0000001', previousId: SEED_IDS.milestoneLabel });
    ws.terminate();
  });
});
