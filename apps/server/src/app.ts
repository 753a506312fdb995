import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fastifyWebsocket from '@fastify/websocket';
import { MAX_CLIENT_MESSAGE_BYTES, type ServerEvent } from '@canopy/protocol';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { ExtensionHost, loadExtensions } from './extensions/host';
import type { CanopyExtension } from './extensions/types';
import { Navigator } from './navigation/navigate-tree';
import { installErrorHandler } from './plugins/error-handler';
import { installSecurity } from './plugins/security';
import { SessionStore } from './plugins/session-store';
import { registerApiRoutes } from './routes/api';
import { registerStatic } from './routes/static';
import { ensureDirSync, isDirectory } from './store/files';
import { resolveRoots } from './store/session-index';
import { StateStore } from './store/state';
import type { Summarizer } from './summarizer';
import { EventHub } from './ws/hub';
import { registerWsRoute, type HeartbeatScheduler } from './ws/route';

/** Largest REST body accepted (a composer message of about a million characters fits). */
export const BODY_LIMIT_BYTES = 2 * 1024 * 1024;

export interface AppOptions {
  /** Session folders or files; missing ones are skipped. */
  roots: string[];
  /** Canopy's state folder (leaves, settings, config). */
  stateDir: string;
  /** The access token every API call and WebSocket upgrade must present. */
  token: string;
  /** Listen host (added to the allowed Host names); default 127.0.0.1. */
  host?: string;
  /** The port browsers use; when absent, the port the server actually listens on. */
  port?: number;
  /** Extension module paths, or in-process extensions (tests). */
  extensions?: Array<string | { name: string; extension: CanopyExtension }>;
  /** The built web app; when absent or missing, a page says it is not built. */
  webDist?: string;
  summarizer?: Summarizer;
  /** Home directory, shown as ~ in tool rows. */
  home?: string;
  logger?: FastifyServerOptions['logger'];
  pollMs?: number;
  rescanMs?: number;
  midWriteWaitMs?: number;
  heartbeatMs?: number;
  /** Drives the WebSocket heartbeat instead of a timer every `heartbeatMs` (tests tick it themselves). */
  heartbeatScheduler?: HeartbeatScheduler;
}

declare module 'fastify' {
  interface FastifyInstance {
    canopy: {
      store: SessionStore;
      state: StateStore;
      navigator: Navigator;
      hub: EventHub;
      extensions: ExtensionHost;
      publish: (event: ServerEvent) => void;
    };
  }
}

/** Builds the fully registered Fastify app over the given roots (it does not listen). */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    // Session ids and entry ids are short; a long URL is an attack or a mistake.
    routerOptions: { maxParamLength: 300 },
    // Bodies are validated as sent: no type coercion, and unknown keys are refused, not dropped.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
    forceCloseConnections: true,
  });
  const home = options.home ?? os.homedir();

  installErrorHandler(app);
  installSecurity(app, { token: options.token, host: options.host ?? '127.0.0.1', port: options.port });

  ensureDirSync(options.stateDir);
  const state = new StateStore(options.stateDir, (message) => app.log.warn(message));
  await state.load();

  const extensions = new ExtensionHost(
    { info: (m) => app.log.info(m), warn: (m) => app.log.warn(m), error: (m) => app.log.error(m) },
    (_extension, message) => hub.publish({ type: 'error', code: 'EXTENSION_ERROR', message }),
  );
  const hub = new EventHub((sessionId, count) => store.subscriberCount(sessionId, count));
  const publish = (event: ServerEvent) => hub.publish(event);

  const store: SessionStore = new SessionStore({
    roots: await resolveRoots(options.roots, home),
    state,
    home,
    publish,
    extensions,
    pollMs: options.pollMs,
    rescanMs: options.rescanMs,
    midWriteWaitMs: options.midWriteWaitMs,
    log: (message) => app.log.warn(message),
  });
  const navigator = new Navigator({ store, extensions, summarizer: options.summarizer, publish });
  const sessionStore = store;
  extensions.bind({
    navigateTree: (sessionId, targetId, navigateOptions) =>
      navigator.navigate(sessionId, targetId, navigateOptions),
    branch: (sessionId, entryId) => sessionStore.branch(sessionId, entryId),
  });
  await loadExtensions(
    extensions,
    (options.extensions ?? []).map((spec) =>
      typeof spec === 'string'
        ? { name: spec, load: () => import(pathToFileURL(path.resolve(spec)).href) as Promise<unknown> }
        : { name: spec.name, load: async () => ({ default: spec.extension }) },
    ),
    { info: (m) => app.log.info(m), warn: (m) => app.log.warn(m), error: (m) => app.log.error(m) },
  );

  app.decorate('canopy', { store, state, navigator, hub, extensions, publish });

  await app.register(fastifyWebsocket, { options: { maxPayload: MAX_CLIENT_MESSAGE_BYTES * 4 } });
  registerWsRoute(
    app,
    {
      hub,
      subscribe: async (sessionId) => {
        const session = await sessionStore.open(sessionId);
        const notices: ServerEvent[] = [];
        if (session.pendingNotice) {
          notices.push({
            type: 'leaf_notice',
            sessionId,
            leafId: session.pendingNotice.leafId,
            previousLeafId: session.pendingNotice.previousLeafId,
            reason: 'stored-leaf-missing',
            message: session.pendingNotice.message,
          });
          session.pendingNotice = undefined;
        }
        if (session.writerActive) notices.push({ type: 'writer_active', sessionId, active: true });
        return { leafId: session.sm.getLeafId(), notices };
      },
      abortSummary: (sessionId) => navigator.abort(sessionId),
    },
    options.heartbeatMs,
    options.heartbeatScheduler,
  );
  registerApiRoutes(app, { store, state, navigator, summarizer: options.summarizer !== undefined, home });
  const webDist = options.webDist && (await isDirectory(options.webDist)) ? options.webDist : undefined;
  await registerStatic(app, webDist);

  await store.start();
  app.addHook('onClose', async () => {
    await sessionStore.close();
    state.close();
  });
  // Ready before returning, so injectWS (which does not wait for boot) works on a fresh instance.
  await app.ready();
  return app;
}
