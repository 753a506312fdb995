// Reads the streamed snapshot of a session (docs/architecture.md#path-of-an-event): the head line,
// then the nodes chunk by chunk as they arrive, so the first rows can be drawn before the last
// chunk of a large tree has left the server.

import {
  API_ROUTES,
  apiPath,
  decodeNodes,
  type NodeColumns,
  type SessionSnapshotHead,
  type TreeNode,
} from '@canopy/protocol';
import { ApiError, errorOf } from './errors';

export type SnapshotPart = { kind: 'head'; head: SessionSnapshotHead } | { kind: 'nodes'; nodes: TreeNode[] };

/** The parts of one session's snapshot, in order. Throws ApiError on a refusal or a cut stream. */
export async function* readSnapshot(id: string, signal?: AbortSignal): AsyncGenerator<SnapshotPart> {
  const url = apiPath(API_ROUTES.getSession.url, { id });
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'same-origin', signal });
  } catch (cause) {
    throw new ApiError(0, 'NETWORK', `Cannot reach the Canopy server (${(cause as Error).message})`);
  }
  if (!response.ok || !response.body) throw await errorOf(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  let head: SessionSnapshotHead | undefined;
  let received = 0;
  const partOf = (line: string): SnapshotPart => {
    if (!head) {
      head = JSON.parse(line) as SessionSnapshotHead;
      return { kind: 'head', head };
    }
    const nodes = decodeNodes(JSON.parse(line) as NodeColumns);
    received += nodes.length;
    return { kind: 'nodes', nodes };
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += value;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line) yield partOf(line);
    }
  }
  if (buffered) yield partOf(buffered);
  if (!head || received !== head.nodeCount)
    throw new ApiError(
      0,
      'SNAPSHOT_CUT',
      `The snapshot ended after ${received} of ${head?.nodeCount ?? '?'} nodes`,
    );
}
