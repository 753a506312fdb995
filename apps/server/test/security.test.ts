import fs from 'node:fs';
import net from 'node:net';
import { Writable } from 'node:stream';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { AUTH, HOST, PORT, sessionIdOf, TOKEN } from './helpers';
import { makeSession, setupOwn, type OwnEnv } from './own-sessions';

/** Sends `request` as raw bytes to a listening server and returns the status line's code and the whole answer. */
function rawRequest(port: number, request: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), text });
    });
  });
}

async function listen(env: OwnEnv): Promise<number> {
  await env.app.listen({ host: '127.0.0.1', port: 0 });
  const address = env.app.server.address();
  if (!address || typeof address !== 'object') throw new Error('not listening');
  return address.port;
}

/** A log stream for the app's logger, and the lines written to it. */
function logLines(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, stream };
}

describe('access control', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  it('percent-encoded spellings of protected paths need the token like the plain ones', async () => {
    const session = makeSession();
    env = await setupOwn({ 'a.jsonl': session.text });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    const before = fs.readFileSync(env.file('a.jsonl'));
    const reads = [
      '/%61pi/sessions',
      '/api/%73essions',
      `/%61pi/sessions/${id}`,
      `/%61pi/sessions/${id}/context`,
      `/%61pi/sessions/${id}/entries/${session.ids[0]}`,
      '/%61pi/settings',
      '/%61pi/info',
    ];
    for (const url of reads) {
      const response = await env.app.inject({ method: 'GET', url, headers: { host: HOST } });
      expect(response.statusCode, url).toBe(401);
      expect(response.body).not.toContain('question');
    }
    const writes: Array<{ method: 'PUT' | 'POST'; url: string; payload: object }> = [
      { method: 'PUT', url: `/%61pi/sessions/${id}/labels/${session.ids[0]}`, payload: { label: 'x' } },
      { method: 'POST', url: `/%61pi/sessions/${id}/messages`, payload: { text: 'x' } },
      { method: 'POST', url: `/%61pi/sessions/${id}/fork`, payload: {} },
      { method: 'POST', url: `/%61pi/sessions/${id}/branch`, payload: { entryId: session.ids[2] } },
      { method: 'PUT', url: '/%61pi/settings', payload: { defaultFilter: 'all' } },
    ];
    for (const write of writes) {
      const response = await env.app.inject({ ...write, headers: { host: HOST } });
      expect(response.statusCode, write.url).toBe(401);
    }
    expect(fs.readFileSync(env.file('a.jsonl')).equals(before)).toBe(true);
    expect(fs.readdirSync(env.root)).toEqual(['a.jsonl']);
    expect(fs.existsSync(`${env.stateDir}/settings.json`)).toBe(false);
  });

  it('raw requests: absolute-form targets naming another authority are refused, percent-encoded paths need the token', async () => {
    env = await setupOwn({ 'a.jsonl': makeSession().text }, { port: undefined });
    const port = await listen(env);
    const local = `127.0.0.1:${port}`;
    const absolute = await rawRequest(
      port,
      `GET http://evil.example/api/sessions HTTP/1.1\r\nHost: ${local}\r\nConnection: close\r\n\r\n`,
    );
    expect(absolute.status).toBe(403);
    expect(absolute.text).not.toContain('question');
    const encoded = await rawRequest(
      port,
      `GET /%61pi/sessions HTTP/1.1\r\nHost: ${local}\r\nConnection: close\r\n\r\n`,
    );
    expect(encoded.status).toBe(401);
    expect(encoded.text).not.toContain('a.jsonl');
    const absoluteLocal = await rawRequest(
      port,
      `GET http://${local}/api/sessions HTTP/1.1\r\nHost: ${local}\r\nConnection: close\r\n\r\n`,
    );
    expect(absoluteLocal.status).toBe(401);
    const withToken = await rawRequest(
      port,
      `GET /%61pi/sessions HTTP/1.1\r\nHost: ${local}\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`,
    );
    expect(withToken.status).toBe(200);
    expect(withToken.text).toContain('a.jsonl');
  });

  it('WebSocket upgrades at percent-encoded spellings of /ws need the token', async () => {
    env = await setupOwn({ 'a.jsonl': makeSession().text }, { port: undefined });
    const port = await listen(env);
    for (const pathName of ['/%77s', '/w%73', '/ws']) {
      const outcome = await new Promise<string>((resolve) => {
        const socket = new WebSocket(`ws://127.0.0.1:${port}${pathName}`);
        socket.on('open', () => {
          socket.terminate();
          resolve('open');
        });
        socket.on('unexpected-response', (request, response) => {
          request.destroy();
          resolve(`status ${response.statusCode}`);
        });
        socket.on('error', () => resolve('error'));
      });
      expect(outcome, pathName).toBe('status 401');
    }
  });

  it('no cookie is ever set, and a token cookie alone (of any name) is refused', async () => {
    env = await setupOwn({ 'a.jsonl': makeSession().text });
    for (const url of [`/?token=${TOKEN}`, `/api/sessions?token=${TOKEN}`, '/api/sessions']) {
      const response = await env.app.inject({ method: 'GET', url, headers: AUTH });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['set-cookie'], url).toBeUndefined();
    }
    for (const cookie of [
      `canopy_token_${PORT}=${TOKEN}`,
      `canopy_token=${TOKEN}`,
      `token=${TOKEN}`,
      `canopy_token_${PORT}=%E0%A4%A`,
    ]) {
      const response = await env.app.inject({
        method: 'GET',
        url: '/api/sessions',
        headers: { host: HOST, cookie },
      });
      expect(response.statusCode, cookie).toBe(401);
      expect(response.body).not.toContain('a.jsonl');
    }
    // A cookie beside the header changes nothing.
    const both = await env.app.inject({
      method: 'GET',
      url: '/api/sessions',
      headers: { ...AUTH, cookie: `canopy_token_${PORT}=%E0%A4%A` },
    });
    expect(both.statusCode).toBe(200);
  });

  it("the page's WebSocket offers the token as a subprotocol and is answered `canopy`; a cookie or a wrong one is refused", async () => {
    env = await setupOwn({ 'a.jsonl': makeSession().text }, { port: undefined });
    const port = await listen(env);
    const attempt = (protocols: string[], headers: Record<string, string> = {}) =>
      new Promise<string>((resolve) => {
        const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`, protocols, { headers });
        socket.on('open', () => {
          resolve(`open ${socket.protocol}`);
          socket.terminate();
        });
        socket.on('unexpected-response', (request, response) => {
          request.destroy();
          resolve(`status ${response.statusCode}`);
        });
        socket.on('error', () => resolve('error'));
      });
    expect(await attempt(['canopy', `canopy.token.${TOKEN}`])).toBe('open canopy');
    expect(await attempt(['canopy', 'canopy.token.wrong-token-0123456789'])).toBe('status 401');
    expect(await attempt(['canopy'], { cookie: `canopy_token_${port}=${TOKEN}` })).toBe('status 401');
    expect(await attempt([], { cookie: `canopy_token_${port}=${TOKEN}` })).toBe('status 401');
  });

  it('every answer forbids framing and referrers', async () => {
    env = await setupOwn({ 'a.jsonl': makeSession().text });
    for (const url of ['/', '/api/sessions']) {
      const response = await env.app.inject({ method: 'GET', url, headers: AUTH });
      expect(response.headers['referrer-policy'], url).toBe('no-referrer');
      expect(response.headers['x-frame-options'], url).toBe('DENY');
      expect(response.headers['content-security-policy'], url).toBe("frame-ancestors 'none'");
    }
    const refused = await env.app.inject({ method: 'GET', url: '/api/sessions', headers: { host: HOST } });
    expect(refused.headers['x-frame-options']).toBe('DENY');
  });

  it('request logs at level info never contain the token', async () => {
    const { lines, stream } = logLines();
    env = await setupOwn({ 'a.jsonl': makeSession().text }, { logger: { level: 'info', stream } });
    await env.app.inject({ method: 'GET', url: `/?token=${TOKEN}`, headers: { host: HOST } });
    await env.app.inject({ method: 'GET', url: `/api/sessions?token=${TOKEN}`, headers: { host: HOST } });
    const log = lines.join('');
    expect(log).toContain('token=[redacted]');
    expect(log).not.toContain(TOKEN);
  });

  it('a token a non-browser client sends in a URL fragment is never logged', async () => {
    const { lines, stream } = logLines();
    env = await setupOwn(
      { 'a.jsonl': makeSession().text },
      { port: undefined, logger: { level: 'info', stream } },
    );
    const port = await listen(env);
    for (const target of [`/api/sessions#token=${TOKEN}`, `/api/sessions?x=1#${TOKEN}`, `/#token=${TOKEN}`]) {
      const answer = await rawRequest(
        port,
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.status, target).toBeGreaterThan(0);
    }
    const log = lines.join('');
    expect(log).toContain('/api/sessions');
    expect(log).not.toContain(TOKEN);
  });
});
