// The messages between the page and the snapshot worker (snapshotWorker.ts). The worker only
// decodes: it fetches a snapshot and posts its parts; the store stays on the page and builds the
// tree from them (docs/architecture.md#opening-a-session).

import type { SnapshotFailure, SnapshotPart } from './snapshotDecoder';

export type ToSnapshotWorker =
  | { type: 'load'; loadId: number; url: string }
  /** The page no longer wants the load (another session opened, or this one closed). */
  | { type: 'abort'; loadId: number };

export type FromSnapshotWorker =
  | { type: 'part'; loadId: number; part: SnapshotPart }
  | { type: 'done'; loadId: number }
  | { type: 'failed'; loadId: number; failure: SnapshotFailure };

/** The side of a MessagePort or Worker each end uses. */
export interface SnapshotPort<In, Out> {
  postMessage(message: Out, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<In>) => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEvent<In>) => void): void;
}
