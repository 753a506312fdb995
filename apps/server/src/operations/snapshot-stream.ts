import {
  encodeNodes,
  type SessionSnapshotEnd,
  type SessionSnapshotHead,
  type SnapshotClosingLine,
  type TreeNode,
} from '@canopy/protocol';
import type { LoadProgress } from '../live/load-progress';
import { CHUNK_NODES, FIRST_CHUNK_NODES, nodeChunkLines } from '../live/tree-model';

/** The session at the moment a snapshot describes: its nodes and everything else about it. */
export interface SnapshotState {
  end: Omit<SessionSnapshotEnd, 'changed'>;
  /** Every node, fixed at that moment (see TreeModel.snapshot). */
  nodes: readonly TreeNode[];
}

export type SnapshotOutcome =
  { ok: true; state: SnapshotState } | { ok: false; code: string; message: string };

/** What one snapshot is made from (see SessionReads.snapshot). */
export interface SnapshotSource {
  head: SessionSnapshotHead;
  /** The session's first read, while it runs: its nodes are sent as they are rendered. */
  progress?: LoadProgress;
  /**
   * The session at the snapshot's moment, taken when the session is open, at once after its first
   * read: a change published later reaches the browser as an event, none published earlier does.
   */
  outcome: Promise<SnapshotOutcome>;
}

/** The head and closing lines as the route serialises them (with its compiled schemas). */
export interface SnapshotEncoders {
  head(head: SessionSnapshotHead): string;
  end(end: SessionSnapshotEnd): string;
}

/** A line's bytes, its newline included: what the response writes (see snapshotPieces). */
function bytesOf(line: string): Buffer {
  return Buffer.from(`${line}\n`, 'utf8');
}

/**
 * `nodes` as NodeColumns lines (see nodeChunkLines), each encoded when it is asked for; `first`:
 * they are the snapshot's first nodes, whose line is short (FIRST_CHUNK_NODES).
 */
function chunkLines(nodes: readonly TreeNode[], first: boolean): Generator<Buffer> {
  return nodeChunkLines(nodes, first ? FIRST_CHUNK_NODES : CHUNK_NODES, bytesOf);
}

function closing(line: SnapshotClosingLine): Buffer {
  return bytesOf(JSON.stringify(line));
}

/**
 * The NDJSON lines of one snapshot (the protocol's SNAPSHOT_CONTENT_TYPE): the head; while the
 * session's first read runs, the nodes rendered since the last piece and the bytes read; then
 * the rest of the nodes as of the snapshot's moment and the closing line, which also carries the
 * nodes sent earlier whose row differs now (labels are put on at the end of a read; a tool result
 * read before its call is rendered again). A session already open takes the same path without the
 * first part. Each line is made when the response asks for it, so a slow reader holds one line.
 */
export async function* snapshotLines(
  source: SnapshotSource,
  encode: SnapshotEncoders,
): AsyncGenerator<Buffer> {
  yield bytesOf(encode.head(source.head));
  // The nodes sent while the read ran, as they were sent (the model may replace or relabel them).
  const sent: TreeNode[] = [];
  const progress = source.progress;
  if (progress) {
    let read = -1;
    for (;;) {
      const ended = progress.ended;
      if (ended) break;
      const nodes = progress.nodes;
      if (nodes.length > sent.length) {
        const fresh = nodes.slice(sent.length);
        const first = sent.length === 0;
        for (const node of fresh) sent.push(node);
        yield* chunkLines(fresh, first);
      }
      if (progress.read !== read) {
        read = progress.read;
        yield bytesOf(JSON.stringify({ read }));
      }
      await progress.next();
    }
  }
  const outcome = await source.outcome;
  if (!outcome.ok) {
    yield closing({ error: { code: outcome.code, message: outcome.message } });
    return;
  }
  const { nodes, end } = outcome.state;
  const changed: TreeNode[] = [];
  for (let i = 0; i < sent.length; i++) {
    const now = nodes[i];
    if (now?.id !== sent[i]!.id) {
      // A reload started the tree over (the file was replaced while it was read).
      yield closing({ restart: { message: 'The session file changed while it was read.' } });
      return;
    }
    // Labels were not on any node as it was sent: the end of the read puts them on.
    if (now !== sent[i] || now.label !== undefined) changed.push(now);
  }
  yield* chunkLines(nodes.slice(sent.length), sent.length === 0);
  yield bytesOf(encode.end({ ...end, changed: encodeNodes(changed) }));
}

/** Bytes of a snapshot handed to its socket at once (see snapshotPieces). */
export const SNAPSHOT_WRITE_BYTES = 64 << 10;

/**
 * The lines' bytes in pieces of at most `pieceBytes`, each line encoded when the response asks for
 * it. A client that stops reading leaves the server holding one encoded line (its string already
 * dropped) and the piece queued on its socket, not a line in each of the stream's buffers (a
 * NodeColumns line is ~1 MB): see docs/safety.md#access.
 */
export async function* snapshotPieces(
  lines: AsyncIterable<Buffer>,
  pieceBytes = SNAPSHOT_WRITE_BYTES,
): AsyncGenerator<Buffer> {
  for await (const bytes of lines) {
    for (let at = 0; at < bytes.length; at += pieceBytes) yield bytes.subarray(at, at + pieceBytes);
  }
}
