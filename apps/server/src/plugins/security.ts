import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors';

export const TOKEN_COOKIE = 'canopy_token';

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

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

function queryToken(url: string): string | undefined {
  const q = url.indexOf('?');
  if (q < 0) return undefined;
  return new URLSearchParams(url.slice(q + 1)).get('token') ?? undefined;
}

function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * Token, Host and Origin checks (docs/safety.md#access), run before routing on every request (WebSocket
 * upgrades included): a foreign Host is refused first (DNS rebinding), then a foreign Origin on
 * writes and upgrades, then a missing token. A valid `?token=` sets an HttpOnly SameSite=Strict
 * cookie so later requests (and the SPA's fetches) carry it without the URL. Installed on the root
 * instance (not as an encapsulated plugin) so the hook covers every route.
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

  const check = (request: FastifyRequest, reply: FastifyReply): void => {
    const hosts = allowedHosts();
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

    const fromQuery = queryToken(request.url);
    const authorization = request.headers.authorization;
    const fromHeader = authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : undefined;
    const fromCookie = cookieValue(request.headers.cookie, TOKEN_COOKIE);
    if (fromQuery !== undefined && sameToken(fromQuery, options.token)) {
      reply.header(
        'set-cookie',
        `${TOKEN_COOKIE}=${encodeURIComponent(options.token)}; Path=/; HttpOnly; SameSite=Strict`,
      );
      return;
    }
    const presented = fromHeader ?? fromCookie;
    if (presented !== undefined && sameToken(presented, options.token)) return;
    if (isProtected(request)) {
      throw new AppError(
        'UNAUTHORIZED',
        'Missing or wrong access token: open the URL Canopy printed when it started.',
      );
    }
  };

  app.addHook('onRequest', async (request, reply) => {
    check(request, reply);
  });
}

/** The API and the WebSocket need the token; the static SPA shell does not hold any data. */
function isProtected(request: FastifyRequest): boolean {
  const url = request.url;
  return (
    url === '/api' ||
    url.startsWith('/api/') ||
    url.startsWith('/api?') ||
    url === '/ws' ||
    url.startsWith('/ws?') ||
    url.startsWith('/ws/')
  );
}
