import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fastifyWebsocket from '@fastify/websocket';
import { MAX_CLIENT_MESSAGE_BYTES, WS_PROTOCOL, type ServerEvent } from '@canopy/protocol';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { ExtensionHost, loadExtensions } from './extensions/host';
import type { CanopyExtension } from './extensions/types';
import { Navigator } from './operations/navigate-tree';
import { installErrorHandler } from './http/error-handler';
import { boundRequestLife } from './http/request-life';
import { installSecurity, redactToken } from './http/security';
import { createSerializerCompiler } from './http/serializers';
import { SessionStore } from './session-store';
import type { WriteOnce } from './files/confined';
import type { Clock } from './live/open-session';
import { droppedSignal, registerApiRoutes, type ApiDeps } from './http/api-routes';
import { BranchReads } from './operations/branch-reads';
import { registerBranchRoutes } from './http/branch-routes';
import { registerBringBackRoutes } from './http/bring-back-routes';
import { BringBackService } from './operations/bring-back';
import { registerStatic } from './http/static-routes';
import { AppendJournal } from './files/append-journal';
import { ensurePrivateDirSync, isDirectory } from './files/files';
import { resolveRoots } from './list/session-index';
import { SessionReads } from './operations/session-reads';
import { SessionWrites } from './operations/session-writes';
import { StateStore } from './files/state';
import { SummaryService } from './operations/summaries';
import { SummaryRunner } from './operations/summary-runner';
import { SummarizerRegistry, type Summarizer } from './summarizer';
import { SummarizerSet } from './providers/summarizer-set';
import { OFFLINE_SUMMARIZER_ID } from '@canopy/summarizer';
import { EventHub } from './ws/hub';
import { registerWsRoute, type HeartbeatScheduler, type WsLimits } from './ws/route';

/** Server-side limits on slow clients; see HttpTimeouts. */
export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  idleMs: 60_000,
  keepAliveMs: 5_000,
  checkEveryMs: 1_000,
  lifeMs: 600_000,
};

export interface HttpTimeouts {
  /** The request headers must arrive within this long. */
  headersMs: number;
  /** The whole request (headers and body) must arrive within this long. */
  requestMs: number;
  /** A connection with no traffic at all is closed after this long. */
  idleMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveMs: number;
  /** How often the header and request deadlines are enforced. */
  checkEveryMs: number;
  /**
   * The answer to a request must have been sent within this long of its start (a snapshot of a
   * gigabyte session, a summary by a slow model fit well within it); see http/request-life.ts.
   */
  lifeMs: number;
}

/** The logger with request URLs stripped of `?token=` (info-level request logs must not leak it). */
function withRedactedUrls(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (logger === false || logger === undefined) return false;
  const base = typeof logger === 'object' ? logger : {};
  return {
    ...base,
    serializers: {
      ...(base.serializers ?? {}),
      req: (request: { method?: string; url?: string; ip?: string }) => ({
        method: request.method,
        url: redactToken(request.url ?? ''),
        remoteAddress: request.ip,
      }),
    },
  };
}

/** Largest REST body accepted (a composer message of about a million characters fits). */
export const BODY_LIMIT_BYTES = 2 * 1024 * 1024;

export interface AppOptions {
  /** Session folders or files; missing ones are skipped. */
  roots: string[];
  /** Told of each of `roots` left out (missing, unreadable); by default the log's warning. */
  rootWarning?: (message: string) => void;
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
  /** The summarisers offered (server.ts builds them from the config); none: summaries are refused. */
  summarizers?: Summarizer[];
  /** Used when a request and the settings name none; default: the first. */
  defaultSummarizerId?: string;
  /** Problems of the summariser configuration read at start-up (shown in the settings dialog). */
  summarizerProblems?: string[];
  /** Secrets of that configuration (keys of canopy.config.json and the variables): never shown or logged. */
  summarizerSecrets?: string[];
  /**
   * The home folder whose pi / oh-my-pi configuration offers their models (zero setup); absent: none
   * is read (tests give a temporary folder, never the real home).
   */
  agentHome?: string;
  /** The environment keys and agent folders are read from (default: process.env). */
  agentEnv?: NodeJS.ProcessEnv;
  /** How long a provider Test may take (default 60 s). */
  providerTestTimeoutMs?: number;
  /** Text increments of a summary within this many ms go out as one event (default 16). */
  progressIntervalMs?: number;
  /** Home directory, shown as ~ in tool rows. */
  home?: string;
  /**
   * Wait for the first reading of the session folders before the app is ready (default true: an
   * embedding gets the whole list at once). The CLI passes false and listens first: with gigabytes
   * of sessions the list fills in, newest first, while the page is already up.
   */
  awaitFirstScan?: boolean;
  logger?: FastifyServerOptions['logger'];
  pollMs?: number;
  rescanMs?: number;
  midWriteWaitMs?: number;
  /** Open sessions nobody follows are closed after this long (default 60 s). */
  idleCloseMs?: number;
  /** Runs a little after idle sessions were released (the CLI: a full garbage collection). */
  afterRelease?: () => void;
  heartbeatMs?: number;
  /** A write waits until the session file has not grown for this long (default QUIET_WINDOW_MS). */
  quietWindowMs?: number;
  /** The write path's clock (tests inject one so nothing depends on timing). */
  clock?: Clock;
  /** Test seam: the one write() of an append (to simulate a full disk or a racing writer). */
  appendWrite?: WriteOnce;
  /** Test seam: runs after each piece of a session file's whole read, which waits for it. */
  afterPiece?: (readSoFar: number) => void | Promise<void>;
  /** Test seam: bytes per read of a session file (default READ_CHUNK_BYTES). */
  pieceBytes?: number;
  /** Per-WebSocket flood limits (defaults: DEFAULT_WS_LIMITS). */
  wsLimits?: Partial<WsLimits>;
  /** Slow-client limits (defaults: DEFAULT_HTTP_TIMEOUTS). */
  httpTimeouts?: Partial<HttpTimeouts>;
  /** Drives the WebSocket heartbeat instead of a timer every `heartbeatMs` (tests tick it themselves). */
  heartbeatScheduler?: HeartbeatScheduler;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The services the API routes use, plus the event side (hub, extensions, publish). */
    canopy: ApiDeps & {
      hub: EventHub;
      extensions: ExtensionHost;
      publish: (event: ServerEvent) => void;
    };
  }
}

/** Builds the fully registered Fastify app over the given roots (it does not listen). */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const timeouts = { ...DEFAULT_HTTP_TIMEOUTS, ...options.httpTimeouts };
  const app = Fastify({
    logger: withRedactedUrls(options.logger ?? false),
    // Slow or idle clients (slowloris) are cut off instead of holding a connection forever.
    connectionTimeout: timeouts.idleMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    requestTimeout: timeouts.requestMs,
    http: { headersTimeout: timeouts.headersMs, connectionsCheckingInterval: timeouts.checkEveryMs },
    bodyLimit: BODY_LIMIT_BYTES,
    // Session ids and entry ids are short; a long URL is an attack or a mistake.
    routerOptions: { maxParamLength: 300 },
    // Bodies are validated as sent: no type coercion, and unknown keys are refused, not dropped.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
    forceCloseConnections: true,
  });
  // Response serializers without per-option validators, one per schema (http/serializers.ts).
  app.setSerializerCompiler(createSerializerCompiler());
  const home = options.home ?? os.homedir();

  installErrorHandler(app);
  boundRequestLife(app, timeouts);
  installSecurity(app, { token: options.token, host: options.host ?? '127.0.0.1', port: options.port });

  ensurePrivateDirSync(options.stateDir);
  const state = new StateStore(options.stateDir, (message) => app.log.warn(message));
  await state.load();

  const extensions = new ExtensionHost(
    { info: (m) => app.log.info(m), warn: (m) => app.log.warn(m), error: (m) => app.log.error(m) },
    (_extension, message) => hub.publish({ type: 'error', code: 'EXTENSION_ERROR', message }),
  );
  const hub = new EventHub((message) => app.log.warn(message));
  const publish = (event: ServerEvent) => hub.publish(event);

  const store: SessionStore = new SessionStore({
    roots: await resolveRoots(
      options.roots,
      home,
      options.rootWarning ?? ((message) => app.log.warn(message)),
    ),
    state,
    home,
    publish,
    hasSubscribers: (sessionId) => hub.subscriberCount(sessionId) > 0,
    pollMs: options.pollMs,
    rescanMs: options.rescanMs,
    midWriteWaitMs: options.midWriteWaitMs,
    idleCloseMs: options.idleCloseMs,
    afterRelease: options.afterRelease,
    quietWindowMs: options.quietWindowMs,
    clock: options.clock,
    write: options.appendWrite,
    journal: new AppendJournal(options.stateDir),
    ...(options.afterPiece ? { afterPiece: options.afterPiece } : {}),
    ...(options.pieceBytes ? { pieceBytes: options.pieceBytes } : {}),
    log: (message) => app.log.warn(message),
  });
  const configured = options.summarizers ?? [];
  const summarizers = new SummarizerRegistry(configured, options.defaultSummarizerId);
  const summarizerSet = new SummarizerSet({
    registry: summarizers,
    configured: {
      summarizers: configured,
      defaultId: options.defaultSummarizerId ?? configured[0]?.id ?? OFFLINE_SUMMARIZER_ID,
      problems: options.summarizerProblems ?? [],
      secrets: options.summarizerSecrets ?? [],
    },
    stateDir: options.stateDir,
    env: options.agentEnv ?? process.env,
    ...(options.agentHome !== undefined ? { agentHome: options.agentHome } : {}),
    ...(options.providerTestTimeoutMs !== undefined ? { testTimeoutMs: options.providerTestTimeoutMs } : {}),
    warn: (message) => app.log.warn(message),
  });
  await summarizerSet.refresh();
  const runner = new SummaryRunner(publish, {
    secrets: () => summarizerSet.secrets(),
    ...(options.progressIntervalMs !== undefined ? { progressIntervalMs: options.progressIntervalMs } : {}),
  });
  const preferredSummarizerId = () => state.getSettings().branchSummary.summarizerId;
  const navigator = new Navigator({ store, extensions, summarizers, runner, preferredSummarizerId });
  const summaries = new SummaryService({ store, summarizers, runner, preferredSummarizerId });
  const reads = new SessionReads(store);
  const writes = new SessionWrites({ store, extensions, publish });
  const sessionStore = store;
  extensions.bind({
    navigateTree: (sessionId, targetId, navigateOptions) =>
      navigator.navigate(sessionId, targetId, navigateOptions),
    branch: (sessionId, entryId) => writes.branch(sessionId, entryId),
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

  const services: ApiDeps = {
    store,
    reads,
    writes,
    state,
    navigator,
    summaries,
    summarizers,
    summarizerSet,
    home,
  };
  app.decorate('canopy', { ...services, hub, extensions, publish });

  await app.register(fastifyWebsocket, {
    options: {
      maxPayload: MAX_CLIENT_MESSAGE_BYTES * 4,
      // The page offers `canopy` and its token as subprotocols (see installSecurity): `canopy` is
      // the answer, never the token.
      handleProtocols: (protocols) => (protocols.has(WS_PROTOCOL) ? WS_PROTOCOL : false),
    },
  });
  registerWsRoute(
    app,
    {
      hub,
      subscribe: async (sessionId) => {
        const session = await sessionStore.open(sessionId);
        const notices = [session.takeGreeting(), sessionStore.takeRepairNotice(sessionId)];
        return {
          leafId: session.sm.getLeafId(),
          notices: notices.filter((notice): notice is ServerEvent => notice !== undefined),
        };
      },
      abortSummary: (sessionId) => runner.abort(sessionId),
      clientClosed: (clientId) => runner.abortClient(clientId),
    },
    options.heartbeatMs,
    options.wsLimits,
    options.heartbeatScheduler,
  );
  registerApiRoutes(app, services);
  registerBranchRoutes(app, new BranchReads(store));
  registerBringBackRoutes(
    app,
    new BringBackService({ store, summarizers, runner, summaries, preferredSummarizerId }),
    droppedSignal,
  );
  const webDist = options.webDist && (await isDirectory(options.webDist)) ? options.webDist : undefined;
  await registerStatic(app, webDist);

  // Canopy's own writes a crash cut off are repaired before the first listing reads the files.
  store.repairLeftovers();
  store.start();
  if (options.awaitFirstScan ?? true) await store.firstScan;
  app.addHook('onClose', async () => {
    await sessionStore.close();
    state.close();
  });
  // Ready before returning, so injectWS (which does not wait for boot) works on a fresh instance.
  await app.ready();
  return app;
}
