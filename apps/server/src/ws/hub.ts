import type { ServerEvent } from '@canopy/protocol';

/** The part of a WebSocket the hub needs; satisfied by `ws`'s WebSocket. */
export interface HubSocket {
  readonly readyState: number;
  /** Bytes queued for sending (a client that does not read lets it grow). */
  readonly bufferedAmount?: number;
  send(data: string): void;
  terminate?(): void;
}

const OPEN = 1;

/**
 * Fan-out of server events to connected browsers. Session-scoped events go to the sockets
 * subscribed to that session; `session_list_changed` goes to everyone. The hub depends on nothing:
 * the store asks it whether a session is followed (`subscriberCount`).
 */
export class EventHub {
  private readonly subscriptions = new Map<HubSocket, Set<string>>();
  private readonly subscribers = new Map<string, Set<HubSocket>>();
  /** Queued bytes beyond which a socket is disconnected instead of queued to. */
  private readonly bufferLimits = new WeakMap<HubSocket, number>();

  /** `warn` hears of every socket the hub cuts off (the server log says why a page reconnected). */
  constructor(private readonly warn: (message: string) => void = () => undefined) {}

  add(socket: HubSocket, maxBufferedBytes?: number): void {
    if (!this.subscriptions.has(socket)) this.subscriptions.set(socket, new Set());
    if (maxBufferedBytes !== undefined) this.bufferLimits.set(socket, maxBufferedBytes);
  }

  subscriptionCount(socket: HubSocket): number {
    return this.subscriptions.get(socket)?.size ?? 0;
  }

  remove(socket: HubSocket): void {
    const sessions = this.subscriptions.get(socket);
    this.subscriptions.delete(socket);
    for (const sessionId of sessions ?? []) this.unsubscribe(socket, sessionId);
  }

  subscribe(socket: HubSocket, sessionId: string): void {
    this.add(socket);
    this.subscriptions.get(socket)?.add(sessionId);
    let set = this.subscribers.get(sessionId);
    if (!set) {
      set = new Set();
      this.subscribers.set(sessionId, set);
    }
    set.add(socket);
  }

  unsubscribe(socket: HubSocket, sessionId: string): void {
    this.subscriptions.get(socket)?.delete(sessionId);
    const set = this.subscribers.get(sessionId);
    if (!set || !set.delete(socket)) return;
    if (set.size === 0) this.subscribers.delete(sessionId);
  }

  subscriberCount(sessionId: string): number {
    return this.subscribers.get(sessionId)?.size ?? 0;
  }

  get socketCount(): number {
    return this.subscriptions.size;
  }

  publish(event: ServerEvent): void {
    const data = JSON.stringify(event);
    if ('sessionId' in event && event.type !== 'error') {
      for (const socket of this.subscribers.get(event.sessionId) ?? []) this.send(socket, data);
      return;
    }
    for (const socket of this.subscriptions.keys()) this.send(socket, data);
  }

  /** Sends, unless the client stopped reading and its queue is past its limit: then it is cut off. */
  private send(socket: HubSocket, data: string): void {
    const limit = this.bufferLimits.get(socket);
    if (limit !== undefined && (socket.bufferedAmount ?? 0) + data.length > limit) {
      this.warn(`WebSocket closed: the client stopped reading (over ${limit} bytes queued)`);
      socket.terminate?.();
      this.remove(socket);
      return;
    }
    sendRaw(socket, data);
  }
}

export function sendEvent(socket: HubSocket, event: ServerEvent): void {
  sendRaw(socket, JSON.stringify(event));
}

function sendRaw(socket: HubSocket, data: string): void {
  if (socket.readyState !== OPEN) return;
  try {
    socket.send(data);
  } catch {
    // A socket closing mid-send is cleaned up by its close handler.
  }
}
