import {
  clientMessageValidator,
  MAX_CLIENT_MESSAGE_BYTES,
  PROTOCOL_VERSION,
  WS_PATH,
  type ClientMessage,
  type ServerEvent,
} from '@canopy/protocol';
import type {} from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { toClientError } from '../errors';
import { sendEvent, type EventHub } from './hub';

export interface WsServices {
  hub: EventHub;
  /** Opens (tails) the session for a subscriber; returns the current leaf, throws AppError. */
  subscribe(sessionId: string): Promise<{ leafId: string | null; notices: ServerEvent[] }>;
  /** Aborts a running summary; false when none runs. */
  abortSummary(sessionId: string): boolean;
}

export const HEARTBEAT_INTERVAL_MS = 15_000;

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
  scheduleHeartbeat: HeartbeatScheduler = intervalScheduler(heartbeatMs),
): void {
  const alive = new WeakMap<WebSocket, boolean>();
  const sockets = new Set<WebSocket>();

  // One tick for every socket: a socket that did not answer the previous ping is dead.
  const stopHeartbeat = scheduleHeartbeat(() => {
    for (const socket of sockets) {
      if (alive.get(socket) === false) {
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
    sockets.add(socket);
    alive.set(socket, true);
    services.hub.add(socket);
    socket.on('pong', () => alive.set(socket, true));
    socket.on('close', () => {
      sockets.delete(socket);
      services.hub.remove(socket);
    });
    socket.on('error', () => socket.terminate());
    socket.on('message', (data, isBinary) => {
      alive.set(socket, true);
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
    sendEvent(socket, { type: 'hello', protocolVersion: PROTOCOL_VERSION });
  });

  function handleMessage(socket: WebSocket, message: ClientMessage): void {
    switch (message.type) {
      case 'ping':
        sendEvent(socket, message.id === undefined ? { type: 'pong' } : { type: 'pong', id: message.id });
        return;
      case 'subscribe': {
        const { sessionId } = message;
        services.subscribe(sessionId).then(
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
      case 'abort_summary':
        if (!services.abortSummary(message.sessionId)) {
          sendEvent(socket, {
            type: 'error',
            code: 'NO_SUMMARY_RUNNING',
            message: 'No summary is being generated for this session.',
            sessionId: message.sessionId,
          });
        }
        return;
      default: {
        const unreachable: never = message;
        throw new Error(`unhandled message ${JSON.stringify(unreachable)}`);
      }
    }
  }
}
