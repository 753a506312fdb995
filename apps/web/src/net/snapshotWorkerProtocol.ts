// The messages between the page and the snapshot worker (snapshotWorker.ts). The worker only
// decodes: it fetches a snapshot and posts its parts; the store stays on the page and builds the
// tree from them (docs/architecture.md#opening-a-session).

import type { SearchMaskColumns } from '@canopy/session-core';
import type { PackedNodes } from './packedNodes';
import type { SnapshotFailure, SnapshotPart } from './snapshotDecoder';

export type ToSnapshotWorker =
  /** `token`: the page's access token, sent as a header (a worker has no session storage). */
  | { type: 'load'; loadId: number; url: string; token: string | null }
  /** The page no longer wants the load (another session opened, or this one closed). */
  | { type: 'abort'; loadId: number };

export type FromSnapshotWorker =
  /** A part other than nodes. */
  | { type: 'part'; loadId: number; part: Exclude<SnapshotPart, { kind: 'nodes' }> }
  /** Nodes, packed (packedNodes.ts), with their search masks. */
  | { type: 'nodes'; loadId: number; nodes: PackedNodes; masks: SearchMaskColumns }
  | { type: 'done'; loadId: number }
  | { type: 'failed'; loadId: number; failure: SnapshotFailure };

/** The side of a MessagePort or Worker each end uses. */
export interface SnapshotPort<In, Out> {
  postMessage(message: Out, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<In>) => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEvent<In>) => void): void;
}
