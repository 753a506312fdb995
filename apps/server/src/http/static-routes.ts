import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors';
import { readBoundedNoFollow } from '../files/confined';

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Canopy</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem}</style></head>
<body><h1>Canopy is running</h1>
<p>The web app is not built yet. Build it with <code>pnpm build</code> (or use the start command in the README), then reload this page.</p>
<p>The API is available under <code>/api</code>.</p></body></html>
`;

function isApiPath(url: string): boolean {
  return (
    url === '/api' ||
    url.startsWith('/api/') ||
    url.startsWith('/api?') ||
    url === '/ws' ||
    url.startsWith('/ws?')
  );
}

/**
 * Serves the built SPA from `webDist` with an index.html fallback for client-side routes, or a
 * small page saying the web app is not built. Unknown API paths get a coded 404.
 */
export async function registerStatic(app: FastifyInstance, webDist: string | undefined): Promise<void> {
  // The shell and its assets hold no session data: every route registered in this scope is public
  // (the security hook still refuses foreign hosts, and every other route needs the token).
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...(route.config ?? {}), public: true };
    });
    if (webDist) {
      // The build names every file under assets/ by a hash of its content: a name never changes
      // what it holds, so a reopened page takes them from the browser's cache without asking (no
      // request queued behind a session being read). index.html, which names them, is revalidated
      // on every load. (Set here: @fastify/static's own header would overwrite its setHeaders'.)
      scope.addHook('onSend', async (request, reply, payload) => {
        if (reply.statusCode === 200 && request.url.startsWith('/assets/'))
          void reply.header('cache-control', 'public, max-age=31536000, immutable');
        return payload;
      });
      await scope.register(fastifyStatic, {
        root: path.resolve(webDist),
        index: ['index.html'],
        wildcard: true,
      });
    } else {
      scope.get('/', async (_request, reply) => reply.type('text/html; charset=utf-8').send(NOT_BUILT_PAGE));
    }
  });

  app.setNotFoundHandler(async (request, reply) => {
    if (
      request.method === 'GET' &&
      !isApiPath(request.url) &&
      !path.extname(request.url.split('?')[0] ?? '')
    ) {
      if (webDist) {
        const { bytes: page } = await readBoundedNoFollow(path.join(path.resolve(webDist), 'index.html'), {
          maxBytes: 4 << 20,
        });
        return reply.type('text/html; charset=utf-8').send(page);
      }
      return reply.type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
    }
    throw new AppError('NOT_FOUND', `No route ${request.method} ${request.url.split(/[?#]/)[0] ?? ''}`);
  });
}
