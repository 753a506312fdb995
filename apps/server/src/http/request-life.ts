// Every request's whole life is bounded (docs/safety.md#access). Node's own timeouts watch a request
// only while it is being received, and its idle timer starts again with every byte: a client that
// keeps a request open by dribbling its body, or a response that never ends (a handler waiting on
// something that never comes), would hold its connection for ever. Here each request gets two
// deadlines of its own, independent of traffic: its body must have arrived within `requestMs` (even
// after an early answer, such as a refusal, was sent), and its answer must have been sent within
// `lifeMs`. Past either, the connection is closed. WebSocket upgrades leave HTTP at once and are
// bounded by the socket's own heartbeat instead.
import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

export interface RequestLife {
  /** The request (headers and body) must have arrived within this long. */
  requestMs: number;
  /** The answer must have been sent within this long of the request's start. */
  lifeMs: number;
}

export function boundRequestLife(app: FastifyInstance, life: RequestLife): void {
  app.addHook('onRequest', async (request, reply) => {
    const raw = request.raw;
    const socket = raw.socket;
    // Only requests on a real connection: an in-process request (`inject`) has no socket to close.
    if (request.headers.upgrade !== undefined || !(socket instanceof Socket)) return;
    const close = () => socket.destroy();
    const receiving = setTimeout(() => {
      if (!raw.complete) close();
    }, life.requestMs);
    const living = setTimeout(close, life.lifeMs);
    receiving.unref();
    living.unref();
    let answered = false;
    const done = () => {
      clearTimeout(receiving);
      clearTimeout(living);
      socket.off('close', done);
    };
    const maybeDone = () => {
      if (answered && raw.complete) done();
    };
    reply.raw.once('finish', () => {
      answered = true;
      clearTimeout(living);
      maybeDone();
    });
    raw.once('end', maybeDone);
    socket.once('close', done);
  });
}
