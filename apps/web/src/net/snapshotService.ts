// What the snapshot worker does with the page's messages, apart from the worker itself so that a
// test can drive it over a MessageChannel: each load streams its snapshot and posts every part,
// then `done` or `failed`; an abort stops the download and posts nothing more for that load.

import { searchMaskColumns } from '@canopy/session-core';
import { packedTransfers, packNodes } from './packedNodes';
import type { SnapshotFailure, SnapshotPart } from './snapshotDecoder';
import { SnapshotStreamError, streamSnapshot, type FetchLike } from './snapshotStream';
import type { FromSnapshotWorker, SnapshotPort, ToSnapshotWorker } from './snapshotWorkerProtocol';

/**
 * Nodes per message to the page. Receiving a message (structured clone) and unpacking it create
 * its nodes on the page's thread, then the store appends them: a thousand at a time keeps that to
 * a few ms.
 */
export const NODES_PER_MESSAGE = 1024;

export function serveSnapshots(
  port: SnapshotPort<ToSnapshotWorker, FromSnapshotWorker>,
  fetchImpl: FetchLike = (url, init) => fetch(url, init),
): void {
  const loads = new Map<number, AbortController>();
  port.addEventListener('message', (event) => {
    const message = event.data;
    if (message.type === 'abort') {
      loads.get(message.loadId)?.abort();
      loads.delete(message.loadId);
      return;
    }
    const { loadId, url, token } = message;
    const controller = new AbortController();
    loads.set(loadId, controller);
    const post = (reply: FromSnapshotWorker, transfer: Transferable[] = []) => {
      if (!controller.signal.aborted) port.postMessage(reply, transfer);
    };
    const emit = (part: SnapshotPart) => {
      if (part.kind !== 'nodes') return post({ type: 'part', loadId, part });
      // The page takes each message in a task of its own: smaller parts keep each of those short.
      for (let at = 0; at < part.nodes.length; at += NODES_PER_MESSAGE) {
        const nodes = part.nodes.slice(at, at + NODES_PER_MESSAGE);
        // Made here, the first search keystroke finds every entry's mask as soon as the snapshot
        // is in, without the page's idle time (at 200k entries, 200+ ms of it) having to make them.
        const masks = searchMaskColumns(nodes);
        const packed = packNodes(nodes);
        post({ type: 'nodes', loadId, nodes: packed, masks }, [
          masks.low.buffer,
          masks.high.buffer,
          ...packedTransfers(packed),
        ]);
      }
    };
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    streamSnapshot(url, controller.signal, emit, fetchImpl, headers)
      .then(
        () => post({ type: 'done', loadId }),
        (error: unknown) => post({ type: 'failed', loadId, failure: failureOf(error) }),
      )
      .finally(() => {
        if (loads.get(loadId) === controller) loads.delete(loadId);
      });
  });
  // A worker's scope receives messages without start(); a MessagePort needs it.
  (port as { start?: () => void }).start?.();
}

function failureOf(error: unknown): SnapshotFailure {
  if (error instanceof SnapshotStreamError) return error.failure;
  return { status: 0, code: 'SNAPSHOT_FAILED', message: `Reading the snapshot failed (${String(error)})` };
}
