// Reads the streamed snapshot of a session (docs/architecture.md#opening-a-session): the head line,
// then the nodes chunk by chunk as they arrive, so the first rows can be drawn before the last
// chunk of a large tree has left the server. In the browser a worker (snapshotWorker.ts) fetches
// and decodes it, so the page's main thread only receives ready nodes; each part is handed over in
// a task of its own, so the page can draw between two parts however fast they come.

import { apiPath, ROUTE_PATHS } from '@canopy/protocol/values';
import { ApiError } from './errors';
import { unpackNodes } from './packedNodes';
import type { SnapshotFailure, SnapshotPart } from './snapshotDecoder';
import { SnapshotStreamError, streamSnapshot, type FetchLike } from './snapshotStream';
import type { FromSnapshotWorker, ToSnapshotWorker } from './snapshotWorkerProtocol';
import { accessToken, authHeaders } from './token';

export type { SnapshotPart } from './snapshotDecoder';

/** The page's end of a snapshot worker: the worker itself, or a MessagePort in tests. */
export type WorkerPort = Worker | MessagePort;

// One channel for every nextTask: a new MessageChannel per call, closed after its one message,
// cost about 120 ms of the page's main thread over a 200k-entry open (CPU profile: `close` and
// `MessageChannel`), for the ~1,000 steps and slices that wait for a task.
let taskChannel: MessageChannel | null = null;
/** Who waits for the next task, in the order they asked: each message wakes the first. */
const waitingForTask: (() => void)[] = [];

/** Resolves in a later task (not a microtask), after what the page had queued meanwhile. */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    if (taskChannel === null) {
      taskChannel = new MessageChannel();
      taskChannel.port1.onmessage = () => waitingForTask.shift()?.();
      // In Node (tests), an open port would keep the process alive after the last test.
      (taskChannel.port1 as { unref?: () => void }).unref?.();
    }
    waitingForTask.push(resolve);
    taskChannel.port2.postMessage(null);
  });
}

type Outcome = { ok: true } | { ok: false; failure: SnapshotFailure };

/**
 * Most nodes handed to the store in one step. Parts that queued up while the page was busy (each
 * message was already received, in a task of its own) go together, up to this many: one append
 * and one render for them instead of one each.
 */
export const MAX_NODES_PER_STEP = 4096;

/**
 * The next part of `queue`, with the node parts right behind it joined in (if `join`), up to
 * MAX_NODES_PER_STEP.
 */
function takeStep(queue: SnapshotPart[], join: boolean): SnapshotPart {
  const part = queue.shift()!;
  if (part.kind !== 'nodes' || !join) return part;
  let count = part.nodes.length;
  let take = 0;
  while (take < queue.length) {
    const next = queue[take]!;
    if (next.kind !== 'nodes' || count + next.nodes.length > MAX_NODES_PER_STEP) break;
    count += next.nodes.length;
    take++;
  }
  if (take === 0) return part;
  const parts = [part, ...queue.splice(0, take)] as Extract<SnapshotPart, { kind: 'nodes' }>[];
  const nodes = parts.flatMap((next) => next.nodes);
  // The search masks go along when every joined part has them (all parts of a load come alike).
  if (!parts.every((next) => next.masks !== undefined)) return { kind: 'nodes', nodes };
  const low = new Int32Array(count);
  const high = new Int32Array(count);
  let at = 0;
  for (const next of parts) {
    low.set(next.masks!.low, at);
    high.set(next.masks!.high, at);
    at += next.nodes.length;
  }
  return { kind: 'nodes', nodes, masks: { low, high } };
}

/**
 * The parts that `start` produces, pulled one at a time. `start` gets the functions to push parts
 * and to finish, and answers a function that cancels it. After the first part, every part is
 * yielded in a task of its own (see the file comment).
 */
async function* pulled(
  signal: AbortSignal | undefined,
  start: (push: (part: SnapshotPart) => void, finish: (outcome: Outcome) => void) => () => void,
): AsyncGenerator<SnapshotPart> {
  const queue: SnapshotPart[] = [];
  let outcome = null as Outcome | null;
  let wake: (() => void) | null = null;
  const rouse = () => {
    wake?.();
    wake = null;
  };
  const cancel = start(
    (part) => {
      if (outcome) return;
      queue.push(part);
      rouse();
    },
    (result) => {
      outcome ??= result;
      rouse();
    },
  );
  const onAbort = () => {
    outcome ??= { ok: true };
    cancel();
    rouse();
  };
  signal?.addEventListener('abort', onAbort);
  try {
    let first = true;
    // The first node part goes alone: the first rows are computed and drawn from it, in a task
    // that runs that code for the first time (several times slower than later), and a step of
    // 4096 nodes made it one of the longest tasks of the open.
    let nodesYet = false;
    for (;;) {
      signal?.throwIfAborted();
      if (queue.length > 0) {
        if (!first) await nextTask();
        signal?.throwIfAborted();
        first = false;
        const step = takeStep(queue, nodesYet);
        if (step.kind === 'nodes') nodesYet = true;
        yield step;
        continue;
      }
      if (outcome) {
        if (!outcome.ok)
          throw new ApiError(outcome.failure.status, outcome.failure.code, outcome.failure.message);
        return;
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // The consumer stopped early (an error, a newer open): nothing more is wanted from this load.
    if (!outcome) cancel();
  }
}

let nextLoadId = 0;

/** One snapshot through a snapshot worker's port (the worker, or a MessagePort in tests). */
export function readSnapshotThrough(
  port: WorkerPort,
  url: string,
  signal?: AbortSignal,
): AsyncGenerator<SnapshotPart> {
  const loadId = ++nextLoadId;
  return pulled(signal, (push, finish) => {
    const stopListening = () => {
      port.removeEventListener('message', listener as EventListener);
      port.removeEventListener('error', broken);
    };
    const listener = (event: MessageEvent<FromSnapshotWorker>) => {
      const message = event.data;
      if (message.loadId !== loadId) return;
      if (message.type === 'part') push(message.part);
      else if (message.type === 'nodes')
        push({ kind: 'nodes', nodes: unpackNodes(message.nodes), masks: message.masks });
      else {
        stopListening();
        finish(message.type === 'done' ? { ok: true } : { ok: false, failure: message.failure });
      }
    };
    const broken = (event: Event) => {
      stopListening();
      const reason = (event as { message?: unknown }).message;
      finish({
        ok: false,
        failure: {
          status: 0,
          code: 'SNAPSHOT_WORKER',
          message: `The snapshot reader failed (${typeof reason === 'string' && reason ? reason : 'it stopped'})`,
        },
      });
    };
    port.addEventListener('message', listener as EventListener);
    port.addEventListener('error', broken);
    // A MessagePort delivers nothing before start(); a Worker has no start and needs none.
    if ('start' in port) port.start();
    const load: ToSnapshotWorker = { type: 'load', loadId, url, token: accessToken() };
    port.postMessage(load);
    return () => {
      stopListening();
      const abort: ToSnapshotWorker = { type: 'abort', loadId };
      port.postMessage(abort);
    };
  });
}

/** One snapshot read and decoded on the calling thread (where there is no Worker). */
export function readSnapshotHere(
  url: string,
  signal?: AbortSignal,
  fetchImpl?: FetchLike,
): AsyncGenerator<SnapshotPart> {
  return pulled(signal, (push, finish) => {
    const controller = new AbortController();
    streamSnapshot(url, controller.signal, push, fetchImpl, authHeaders()).then(
      () => finish({ ok: true }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        const failure =
          error instanceof SnapshotStreamError
            ? error.failure
            : {
                status: 0,
                code: 'SNAPSHOT_FAILED',
                message: `Reading the snapshot failed (${String(error)})`,
              };
        finish({ ok: false, failure });
      },
    );
    return () => controller.abort();
  });
}

let worker: Worker | null | undefined;

/** The page's one snapshot worker, started on first use; null where workers are unavailable. */
function snapshotWorker(): Worker | null {
  if (worker !== undefined) return worker;
  if (typeof Worker === 'undefined') return (worker = null);
  try {
    worker = new Worker(new URL('./snapshotWorker.ts', import.meta.url), {
      type: 'module',
      name: 'snapshot',
    });
  } catch {
    return (worker = null);
  }
  // A worker that cannot run (its script failed to load) is dropped; the loads in flight fail on
  // the same event (readSnapshotThrough), and the next open starts a new worker.
  const started = worker;
  started.addEventListener('error', () => {
    if (worker === started) worker = undefined;
    started.terminate();
  });
  return worker;
}

/** Starts the snapshot worker ahead of the first open, so that its script loads meanwhile. */
export function prepareSnapshotReader(): void {
  snapshotWorker();
}

/** The parts of one session's snapshot, in order. Throws ApiError on a refusal or a cut stream. */
export function readSnapshot(id: string, signal?: AbortSignal): AsyncGenerator<SnapshotPart> {
  const url = apiPath(ROUTE_PATHS.getSession.url, { id });
  const port = snapshotWorker();
  return port ? readSnapshotThrough(port, url, signal) : readSnapshotHere(url, signal);
}
