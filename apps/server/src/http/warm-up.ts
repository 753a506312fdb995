import type { FastifyInstance } from 'fastify';

/**
 * The read-only requests a page makes when it opens, before it asks for a session: the shell, the
 * server's info, the settings and the session list. Each touches no session file and writes nothing.
 */
export const WARM_UP_PATHS = ['/', '/api/info', '/api/settings', '/api/sessions'] as const;

export interface WarmUpResult {
  path: string;
  status: number;
}

/**
 * Answers the page's first requests once, in process, after the server listens and before it says
 * where it is. A route's first answer costs far more than the next: V8 compiles the request path
 * lazily, and the response serializers build their union validators on first use (in a profile of
 * a fresh server, 60–250 ms per route, the shell's first answer the longest). Paid here, the
 * person who opens the printed URL does not wait for it. The requests go through the whole
 * pipeline with the real token and Host, so a refused one (which would warm nothing) is reported.
 */
export async function warmUp(
  app: FastifyInstance,
  token: string,
  hostHeader: string,
): Promise<WarmUpResult[]> {
  const results: WarmUpResult[] = [];
  for (const path of WARM_UP_PATHS) {
    const response = await app.inject({
      method: 'GET',
      url: path,
      headers: { host: hostHeader, authorization: `Bearer ${token}` },
    });
    results.push({ path, status: response.statusCode });
  }
  return results;
}
