import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { WS_TOKEN_PROTOCOL_PREFIX } from '@canopy/protocol';
import { AppError } from '../errors';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without the access token (the SPA shell and its assets, which hold no data). */
    public?: boolean;
  }
}

export interface SecurityOptions {
  token: string;
  /** The configured listen host (added to the allowed Host names). */
  host: string;
  /** The port the browser uses; when undefined, the port the server actually listens on. */
  port?: number;
}

export function createToken(): string {
  return randomBytes(24).toString('base64url');
}

export function isWellFormedToken(value: string): boolean {
  return /^[A-Za-z0-9_-]{32,}$/.test(value);
}

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The token a WebSocket upgrade offers as a subprotocol (`canopy.token.<token>` beside `canopy`):
 * a browser cannot put a header on a WebSocket, and a cookie would reach every local server.
 */
function protocolToken(header: string | string[] | undefined): string | undefined {
  const offered = Array.isArray(header) ? header.join(',') : (header ?? '');
  for (const protocol of offered.split(',')) {
    const name = protocol.trim();
    if (name.startsWith(WS_TOKEN_PROTOCOL_PREFIX)) return name.slice(WS_TOKEN_PROTOCOL_PREFIX.length);
  }
  return undefined;
}

function queryToken(url: string): string | undefined {
  const q = url.indexOf('?');
  if (q < 0) return undefined;
  return new URLSearchParams(url.slice(q + 1)).get('token') ?? undefined;
}

/**
 * The URL as logged: any `token` query parameter replaced, and no fragment at all (a browser never
 * sends one; a client that does may have put the token there).
 */
export function redactToken(url: string): string {
  const hash = url.indexOf('#');
  const withoutFragment = hash < 0 ? url : url.slice(0, hash);
  return withoutFragment.replace(/([?&]token=)[^&]*/gi, '$1[redacted]');
}

function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * Token, Host and Origin checks (docs/safety.md#access), run on every request (WebSocket upgrades included) after the
 * router matched it, so the decision is made on the route the request will actually reach and not
 * on how its path is spelled (`/%61pi/…` reaches `/api/…`). Every route needs the token unless it
 * was registered with `config.public`; unmatched requests only ever get the SPA shell or a 404.
 * Refused first: a request target that is not a path on this server (absolute-form naming another
 * authority), then a foreign Host (DNS rebinding), then a foreign Origin on writes and upgrades.
 * The token is taken only from what the client sends on purpose: an `Authorization: Bearer` header,
 * a `?token=` query, or (a WebSocket from the page) a subprotocol. Never a cookie: browsers send a
 * localhost cookie to every port, so any other local server would receive it.
 */
export function installSecurity(app: FastifyInstance, options: SecurityOptions): void {
  const listeningPort = (): number | undefined => {
    if (options.port !== undefined && options.port !== 0) return options.port;
    const address = app.server.address();
    return address && typeof address === 'object' ? address.port : undefined;
  };
  const allowedHosts = (): Set<string> => {
    const port = listeningPort();
    const names = ['127.0.0.1', 'localhost', '[::1]', bracketed(options.host)];
    const hosts = new Set<string>();
    for (const name of names) {
      hosts.add(`${name}:${port ?? ''}`.toLowerCase());
      // Browsers omit the default port from Host.
      if (port === 80) hosts.add(name.toLowerCase());
    }
    return hosts;
  };

  const check = (request: FastifyRequest): void => {
    const hosts = allowedHosts();
    const target = request.raw.url ?? '';
    if (!target.startsWith('/')) {
      // Absolute-form (`GET http://host/path`) is for proxies; accept it only naming this server.
      let authority = '';
      try {
        const parsed = new URL(target);
        if (parsed.protocol === 'http:' || parsed.protocol === 'ws:') authority = parsed.host.toLowerCase();
      } catch {
        authority = '';
      }
      if (!hosts.has(authority)) {
        throw new AppError('FORBIDDEN_HOST', 'The request target must be a path on this server.');
      }
    }
    const host = (request.headers.host ?? '').toLowerCase();
    if (!hosts.has(host))
      throw new AppError(
        'FORBIDDEN_HOST',
        `Host "${request.headers.host ?? ''}" is not this server's local address.`,
      );

    const isWrite = request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'OPTIONS';
    const isUpgrade = request.headers.upgrade !== undefined;
    if (isWrite || isUpgrade) {
      const origin = request.headers.origin;
      if (origin !== undefined) {
        let originHost: string;
        try {
          const parsed = new URL(origin);
          originHost = parsed.protocol === 'http:' ? parsed.host.toLowerCase() : '';
        } catch {
          originHost = '';
        }
        const withPort =
          originHost.includes(':') && !originHost.endsWith(']') ? originHost : `${originHost}:80`;
        if (!hosts.has(originHost) && !hosts.has(withPort)) {
          throw new AppError(
            'FORBIDDEN_ORIGIN',
            `Origin "${origin}" may not write to or connect to this server.`,
          );
        }
      }
      if (request.headers['sec-fetch-site'] === 'cross-site') {
        throw new AppError(
          'FORBIDDEN_ORIGIN',
          'Cross-site requests may not write to or connect to this server.',
        );
      }
    }

    const authorization = request.headers.authorization;
    const presented = [
      authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : undefined,
      queryToken(target),
      isUpgrade ? protocolToken(request.headers['sec-websocket-protocol']) : undefined,
    ];
    if (presented.some((token) => token !== undefined && sameToken(token, options.token))) return;
    // The not-found handler serves only the SPA shell or a coded 404: nothing to protect.
    if (request.is404 || request.routeOptions.config.public === true) return;
    throw new AppError(
      'UNAUTHORIZED',
      'Missing or wrong access token: open the URL Canopy printed when it started.',
    );
  };

  app.addHook('onRequest', async (request) => {
    check(request);
  });

  // A refused upgrade is answered before the WebSocket plugin's own hooks run, so it would not
  // close the socket; an answered upgrade request never becomes a WebSocket, so end it here.
  app.addHook('onResponse', async (request) => {
    if (request.headers.upgrade !== undefined) request.raw.socket?.destroy();
  });

  // No page of Canopy may be framed (clickjacking) or leak its URL (which can carry the token). A
  // route that set its own policy (blobs and artifacts: sandboxed data) keeps it, with framing
  // forbidden added.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-frame-options', 'DENY');
    const own = reply.getHeader('content-security-policy');
    reply.header(
      'content-security-policy',
      typeof own === 'string' && own !== '' ? `${own}; frame-ancestors 'none'` : "frame-ancestors 'none'",
    );
    reply.header('x-content-type-options', 'nosniff');
  });
}
