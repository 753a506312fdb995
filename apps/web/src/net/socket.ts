// The live connection: one WebSocket per page, subscribed to the open session. It reconnects with
// backoff after any drop (a server restart, a sleeping laptop) and re-subscribes; the caller refetches
// the snapshot on reconnect because events sent while disconnected are lost.

import type { ClientMessage, ServerEvent } from '@canopy/protocol';
import { PROTOCOL_VERSION, WS_PATH } from '@canopy/protocol/values';
import { backoffDelay } from './backoff';
import { socketProtocols } from './token';
import { createEventDecoder, type EventCheck } from './serverEvents';

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'incompatible';

export interface LiveSocketHandlers {
  onEvent(event: ServerEvent): void;
  onState(state: ConnectionState, detail: { attempt: number; retryInMs?: number }): void;
  /** Called after every successful (re)connection, once hello arrived. */
  onReady(reconnected: boolean): void;
}

const HEARTBEAT_MS = 20_000;
/** A connection that gets no pong within this time is treated as dead and replaced. */
const HEARTBEAT_TIMEOUT_MS = 10_000;
/** Parses each message; development builds also check it (see checkServerEvents). */
let decodeEvent = createEventDecoder({});

/** Development builds: main.tsx installs the protocol's check before the app starts, and invalid events are dropped. */
export function checkServerEvents(check: EventCheck): void {
  decodeEvent = createEventDecoder({ check });
}

export class LiveSocket {
  private socket: WebSocket | null = null;
  private attempt = 0;
  private subscribed: string | null = null;
  private everOpened = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private heartbeatTimer: ReturnType<typeof setInterval> | null = null;
  private pongTimer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;

  constructor(
    private readonly handlers: LiveSocketHandlers,
    private readonly url = LiveSocket.defaultUrl(),
  ) {}

  static defaultUrl(): string {
    const base = new URL(WS_PATH, window.location.href);
    base.protocol = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    base.search = '';
    return base.toString();
  }

  start(): void {
    this.stopped = false;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    this.clearTimers();
    this.socket?.close();
    this.socket = null;
  }

  /** Subscribes to one session (replacing the previous one); kept across reconnects. */
  subscribe(sessionId: string | null): void {
    if (this.subscribed === sessionId) return;
    if (this.subscribed) this.send({ type: 'unsubscribe', sessionId: this.subscribed });
    this.subscribed = sessionId;
    if (sessionId) this.send({ type: 'subscribe', sessionId });
  }

  /** Forces an immediate reconnect attempt (the "retry now" button). */
  retryNow(): void {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) return;
    this.clearTimers();
    this.open();
  }

  private send(message: ClientMessage): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  private open(): void {
    if (this.stopped) return;
    this.handlers.onState(this.everOpened ? 'reconnecting' : 'connecting', { attempt: this.attempt });
    let socket: WebSocket;
    try {
      // The token as a subprotocol: a WebSocket carries no header (net/token.ts).
      socket = new WebSocket(this.url, socketProtocols());
    } catch {
      this.scheduleRetry();
      return;
    }
    this.socket = socket;
    socket.onmessage = (message) => {
      const event = decodeEvent(String(message.data));
      if (event === undefined) return;
      if (event.type === 'hello') {
        if (event.protocolVersion !== PROTOCOL_VERSION) {
          this.stopped = true;
          this.handlers.onState('incompatible', { attempt: this.attempt });
          socket.close();
          return;
        }
        const reconnected = this.everOpened;
        this.everOpened = true;
        this.attempt = 0;
        this.handlers.onState('open', { attempt: 0 });
        if (this.subscribed) this.send({ type: 'subscribe', sessionId: this.subscribed });
        this.startHeartbeat();
        this.handlers.onReady(reconnected);
        return;
      }
      if (event.type === 'pong') {
        if (this.pongTimer) clearTimeout(this.pongTimer);
        this.pongTimer = null;
        return;
      }
      this.handlers.onEvent(event);
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.clearTimers();
      this.scheduleRetry();
    };
    socket.onerror = () => {
      // onclose follows and schedules the retry.
    };
  }

  private scheduleRetry(): void {
    if (this.stopped) return;
    const delay = backoffDelay(this.attempt);
    this.attempt += 1;
    this.handlers.onState(this.everOpened ? 'reconnecting' : 'connecting', {
      attempt: this.attempt,
      retryInMs: delay,
    });
    this.retryTimer = setTimeout(() => this.open(), delay);
  }

  private startHeartbeat(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = setInterval(() => {
      this.send({ type: 'ping' });
      if (this.pongTimer) return;
      this.pongTimer = setTimeout(() => {
        this.pongTimer = null;
        // A half-open connection (the machine slept, a proxy dropped it) never fires onclose by itself.
        this.socket?.close();
      }, HEARTBEAT_TIMEOUT_MS);
    }, HEARTBEAT_MS);
  }

  private clearTimers(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.pongTimer) clearTimeout(this.pongTimer);
    this.retryTimer = null;
    this.heartbeatTimer = null;
    this.pongTimer = null;
  }
}
