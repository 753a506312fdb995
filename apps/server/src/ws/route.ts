import {
  clientMessageValidator,
  MAX_CLIENT_MESSAGE_BYTES,
  PROTOCOL_VERSION,
  WS_PATH,
  type ClientMessage,
  type ServerEvent,
} from '@canopy/protocol';
import type {} from '@fastify/websocket';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { toClientError } from '../errors';
import { sendEvent, type EventHub } from './hub';
import { TOO_LATE_MESSAGE, type AbortOutcome } from '../operations/summary-runner';

export interface WsServices {
  hub: EventHub;
  /** Opens (tails) the session for a subscriber; returns the current leaf, throws AppError. */
  subscribe(sessionId: string): Promise<{ leafId: string | null; notices: ServerEvent[] }>;
  /** Aborts a running summary; false when none runs. */
  abortSummary(sessionId: string): AbortOutcome;
  /** The connection closed: abort the summaries it asked for. */
  clientClosed(clientId: string): void;
}

export const HEARTBEAT_INTERVAL_MS = 15_000;

/** Per-socket bounds, so one client cannot flood the server's memory or time. */
export interface WsLimits {
  /** Sustained messages per second a socket may send… */
  messagesPerSecond: number;
  /** …with bursts up to this many; beyond that the socket is closed (1008). */
  burst: number;
  /** Subscribes still being opened at once; more are refused with BUSY. */
  maxPendingSubscribes: number;
  /** Sessions one socket may be subscribed to. */
  maxSubscriptions: number;
  /** Bytes queued for a client that does not read; beyond that it is disconnected. */
  maxBufferedBytes: number;
  now: () => number;
}

export const DEFAULT_WS_LIMITS: WsLimits = {
  messagesPerSecond: 50,
  burst: 200,
  maxPendingSubscribes: 8,
  maxSubscriptions: 256,
  maxBufferedBytes: 16 * 1024 * 1024,
  now: () => Date.now(),
};

/** Close code for a socket that broke the limits ("policy violation"). */
export const WS_POLICY_VIOLATION = 1008;

/**
 * Runs `tick` on the heartbeat's rhythm and returns how to stop. The default is a timer every
 * `heartbeatMs`; tests pass their own and call `tick` themselves, so no test waits on a duration.
 */
export type HeartbeatScheduler = (tick: () => void) => () => void;

export function intervalScheduler(ms: number): HeartbeatScheduler {
  return (tick) => {
    const timer = setInterval(tick, ms);
    timer.unref();
    return () => clearInterval(timer);
  };
}

export function registerWsRoute(
  app: FastifyInstance,
  services: WsServices,
  heartbeatMs = HEARTBEAT_INTERVAL_MS,
  limitOverrides: Partial<WsLimits> = {},
  scheduleHeartbeat: HeartbeatScheduler = intervalScheduler(heartbeatMs),
): void {
  const limits: WsLimits = { ...DEFAULT_WS_LIMITS, ...limitOverrides };
  const alive = new WeakMap<WebSocket, boolean>();
  const sockets = new Set<WebSocket>();
  /** Token bucket and pending subscribes of each socket. */
  const budgets = new WeakMap<WebSocket, { tokens: number; at: number; pending: number }>();

  /** Takes one message from the socket's budget; false when it is exhausted. */
  const withinRate = (socket: WebSocket): boolean => {
    const budget = budgets.get(socket);
    if (!budget) return false;
    const now = limits.now();
    budget.tokens = Math.min(
      limits.burst,
      budget.tokens + ((now - budget.at) / 1000) * limits.messagesPerSecond,
    );
    budget.at = now;
    if (budget.tokens < 1) return false;
    budget.tokens -= 1;
    return true;
  };

  // One tick for every socket: a socket that did not answer the previous ping is dead.
  const stopHeartbeat = scheduleHeartbeat(() => {
    for (const socket of sockets) {
      if (alive.get(socket) === false) {
        app.log.warn('WebSocket closed: no answer to the last heartbeat ping');
        socket.terminate();
        continue;
      }
      alive.set(socket, false);
      try {
        socket.ping();
      } catch {
        socket.terminate();
      }
    }
  });
  app.addHook('onClose', async () => {
    stopHeartbeat();
    for (const socket of sockets) socket.terminate();
  });

  app.get(WS_PATH, { websocket: true }, (socket) => {
    // Handlers are attached synchronously, before anything awaits, so no early message is lost.
    const clientId = randomUUID();
    sockets.add(socket);
    alive.set(socket, true);
    budgets.set(socket, { tokens: limits.burst, at: limits.now(), pending: 0 });
    services.hub.add(socket, limits.maxBufferedBytes);
    socket.on('pong', () => alive.set(socket, true));
    socket.on('close', () => {
      sockets.delete(socket);
      services.hub.remove(socket);
      services.clientClosed(clientId);
    });
    socket.on('error', (error) => {
      app.log.warn(`WebSocket closed on an error: ${error.message}`);
      socket.terminate();
    });
    socket.on('message', (data, isBinary) => {
      alive.set(socket, true);
      if (!withinRate(socket)) {
        // Stop reading at once: nothing more from this socket is parsed or queued.
        socket.removeAllListeners('message');
        app.log.warn('WebSocket closed: too many messages');
        socket.close(WS_POLICY_VIOLATION, 'Too many messages');
        // A client that does not answer the close is cut off anyway.
        setTimeout(() => socket.terminate(), 1000).unref();
        return;
      }
      const size = Array.isArray(data)
        ? data.reduce((sum, part) => sum + part.length, 0)
        : (data as Buffer | ArrayBuffer).byteLength;
      if (isBinary || size > MAX_CLIENT_MESSAGE_BYTES) {
        sendEvent(socket, {
          type: 'error',
          code: isBinary ? 'BAD_REQUEST' : 'PAYLOAD_TOO_LARGE',
          message: isBinary
            ? 'Binary messages are not accepted.'
            : `Messages are limited to ${MAX_CLIENT_MESSAGE_BYTES} bytes.`,
        });
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(
          Buffer.isBuffer(data)
            ? data.toString('utf8')
            : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8'),
        );
      } catch {
        sendEvent(socket, { type: 'error', code: 'BAD_REQUEST', message: 'The message is not valid JSON.' });
        return;
      }
      if (!clientMessageValidator.check(parsed)) {
        sendEvent(socket, {
          type: 'error',
          code: 'BAD_REQUEST',
          message: `Invalid message: ${clientMessageValidator.firstError(parsed) ?? 'unknown shape'}`,
        });
        return;
      }
      handleMessage(socket, parsed);
    });
    sendEvent(socket, { type: 'hello', protocolVersion: PROTOCOL_VERSION, clientId });
  });

  function handleMessage(socket: WebSocket, message: ClientMessage): void {
    switch (message.type) {
      case 'ping':
        sendEvent(socket, message.id === undefined ? { type: 'pong' } : { type: 'pong', id: message.id });
        return;
      case 'subscribe': {
        const { sessionId } = message;
        const budget = budgets.get(socket);
        if (!budget) return;
        if (
          budget.pending >= limits.maxPendingSubscribes ||
          services.hub.subscriptionCount(socket) >= limits.maxSubscriptions
        ) {
          sendEvent(socket, {
            type: 'error',
            code: 'BUSY',
            message: 'Too many subscriptions at once on this connection.',
            sessionId,
          });
          return;
        }
        budget.pending++;
        services
          .subscribe(sessionId)
          .finally(() => budget.pending--)
          .then(
            ({ leafId, notices }) => {
              if (!sockets.has(socket)) return;
              services.hub.subscribe(socket, sessionId);
              sendEvent(socket, { type: 'subscribed', sessionId, leafId });
              for (const notice of notices) sendEvent(socket, notice);
            },
            (error: unknown) => {
              const { code, message: text } = toClientError(error);
              if (code === 'INTERNAL_ERROR') app.log.error({ err: error }, 'subscribe failed');
              sendEvent(socket, { type: 'error', code, message: text, sessionId });
            },
          );
        return;
      }
      case 'unsubscribe':
        services.hub.unsubscribe(socket, message.sessionId);
        return;
      case 'abort_summary': {
        const outcome = services.abortSummary(message.sessionId);
        if (outcome === 'none') {
          sendEvent(socket, {
            type: 'error',
            code: 'NO_SUMMARY_RUNNING',
            message: 'No summary is being generated for this session.',
            sessionId: message.sessionId,
          });
        } else if (outcome === 'too-late') {
          sendEvent(socket, {
            type: 'error',
            code: 'SUMMARY_TOO_LATE',
            message: TOO_LATE_MESSAGE,
            sessionId: message.sessionId,
          });
        }
        return;
      }
      default: {
        const unreachable: never = message;
        throw new Error(`unhandled message ${JSON.stringify(unreachable)}`);
      }
    }
  }
}
