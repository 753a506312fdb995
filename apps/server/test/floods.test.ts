// Floods and slow clients: per-socket WebSocket limits and HTTP timeouts.
import fs from 'node:fs';
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppOptions } from '../src/app';
import { createHoldSummarizer } from '../src/test-summarizer';
import { WS_POLICY_VIOLATION } from '../src/ws/route';
import { AUTH, TOKEN } from './helpers';
import { makeSession, setupOwn, type OwnEnv } from './own-sessions';

/**
 * Connects to `port`, sends `head`, then `drip` every 20 ms (when given) until the server closes the
 * connection; answers what the server sent.
 */
async function untilClosed(port: number, head: string, drip?: string): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(head);
  const timer = drip
    ? setInterval(() => {
        if (!socket.destroyed) socket.write(drip);
      }, 20)
    : undefined;
  try {
    await closed;
  } finally {
    clearInterval(timer);
  }
  return Buffer.concat(received).toString('utf8');
}

describe('floods and slow clients', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  /** Boots the app over `sessions` with `options`, listening on a free port; answers the port. */
  async function listening(
    options: Partial<AppOptions>,
    sessions: Record<string, string> = { 'a.jsonl': makeSession().text },
  ): Promise<number> {
    env = await setupOwn(sessions, { port: undefined, ...options });
    await env.app.listen({ host: '127.0.0.1', port: 0 });
    return (env.app.server.address() as { port: number }).port;
  }

  it('a socket sending more messages than its budget is closed with 1008 and its excess is not answered', async () => {
    const now = 1_000_000;
    env = await setupOwn(
      { 'a.jsonl': makeSession().text },
      { wsLimits: { messagesPerSecond: 10, burst: 20, now: () => now } },
    );
    const ws = await env.app.injectWS('/ws', { headers: AUTH });
    const pongs: unknown[] = [];
    ws.on('message', (data) => {
      const event = JSON.parse(String(data)) as { type: string };
      if (event.type === 'pong') pongs.push(event);
    });
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    for (let i = 0; i < 500; i++) ws.send(JSON.stringify({ type: 'ping', id: String(i) }));
    expect(await closed).toBe(WS_POLICY_VIOLATION);
    expect(pongs.length).toBe(20);
  });

  it('subscribes still being opened are bounded per socket; the rest are refused with BUSY', async () => {
    env = await setupOwn({ 'a.jsonl': makeSession().text }, { wsLimits: { maxPendingSubscribes: 2 } });
    const list = (await env.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH })).json() as {
      sessions: Array<{ id: string }>;
    };
    const id = list.sessions[0]!.id;
    const ws = await env.app.injectWS('/ws', { headers: AUTH });
    const events: Array<{ type: string; code?: string }> = [];
    ws.on('message', (data) => events.push(JSON.parse(String(data)) as { type: string; code?: string }));
    // Sent in one burst: none of the subscribes has been opened when the next one arrives.
    for (let i = 0; i < 10; i++) ws.send(JSON.stringify({ type: 'subscribe', sessionId: id }));
    await vi.waitFor(() =>
      expect(events.filter((event) => event.type === 'subscribed' || event.code === 'BUSY')).toHaveLength(10),
    );
    expect(events.filter((event) => event.type === 'subscribed')).toHaveLength(2);
    expect(events.filter((event) => event.code === 'BUSY')).toHaveLength(8);
    ws.terminate();
  });

  it('a client that sends its headers slowly (slowloris) is disconnected by the server', async () => {
    const port = await listening({ httpTimeouts: { headersMs: 300, requestMs: 400, checkEveryMs: 50 } });
    // One more header byte now and then, never finishing the headers.
    const answer = await untilClosed(port, `GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`, 'X');
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it('a client dribbling a body byte by byte is disconnected once the request outlives its bound, answered early or not', async () => {
    const port = await listening({ httpTimeouts: { headersMs: 300, requestMs: 400, checkEveryMs: 50 } });
    // One more body byte now and then, never finishing the body (each byte resets an idle timer).
    const dribble = (head: string) => untilClosed(port, head, 'x');
    const host = `Host: 127.0.0.1:${port}\r\n`;
    const body = 'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n';
    // Refused at once (no token): the answer goes out, the body keeps coming.
    expect(await dribble(`PUT /api/settings HTTP/1.1\r\n${host}${body}`)).toMatch(/^HTTP\/1\.1 401/);
    // Accepted, waiting for its body.
    const authorised = await dribble(
      `PUT /api/settings HTTP/1.1\r\n${host}Authorization: Bearer ${TOKEN}\r\n${body}`,
    );
    expect(authorised === '' || /^HTTP\/1\.1 (408|400)/.test(authorised)).toBe(true);
  });

  it('an answer not sent within the life bound closes the connection (a summary that never ends), and nothing is written', async () => {
    const session = makeSession(2);
    const port = await listening(
      { summarizers: [createHoldSummarizer()], httpTimeouts: { lifeMs: 400, checkEveryMs: 50 } },
      { 'a.jsonl': session.text },
    );
    const list = await env.app.inject({
      method: 'GET',
      url: '/api/sessions',
      headers: { ...AUTH, host: `127.0.0.1:${port}` },
    });
    const id = (list.json() as { sessions: Array<{ id: string }> }).sessions[0]!.id;
    const before = fs.readFileSync(env.file('a.jsonl'));
    const body = JSON.stringify({ targetId: session.ids[0], summarize: true });
    const answer = await untilClosed(
      port,
      `POST /api/sessions/${id}/navigate HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    expect(answer).toBe('');
    expect(fs.readFileSync(env.file('a.jsonl')).equals(before)).toBe(true);
  });

  it('in-process requests (inject, as the start-up warm-up makes) have no connection to bound and never bring the server down', async () => {
    env = await setupOwn({ 'a.jsonl': makeSession().text }, { httpTimeouts: { requestMs: 1, lifeMs: 2 } });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const response = await env.app.inject({
        method: 'PUT',
        url: '/api/settings',
        headers: AUTH,
        payload: { defaultFilter: 'all' },
      });
      expect(response.statusCode).toBe(200);
      // Every deadline set meanwhile comes due now: none may throw (one did, and ended the process).
      expect(() => vi.runOnlyPendingTimers()).not.toThrow();
    } finally {
      vi.useRealTimers();
    }
  });
});
