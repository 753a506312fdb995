// The snapshot's NDJSON (a head line, `NodeColumns` lines and `read` lines, a closing line; see the
// protocol's SNAPSHOT_CONTENT_TYPE) turned into parts, piece by piece as the text arrives. Pure and environment-free: the snapshot worker
// (snapshotWorker.ts) runs it off the main thread, and the main thread runs the same code where
// there are no workers (tests), so both decode alike.

import type {
  NodeColumns,
  SessionSnapshotEnd,
  SessionSnapshotHead,
  SnapshotClosingLine,
  TreeNode,
} from '@canopy/protocol';
import { decodeNodes } from '@canopy/protocol/values';
import type { SearchMaskColumns } from '@canopy/session-core';

export type SnapshotPart =
  | { kind: 'head'; head: SessionSnapshotHead }
  /**
   * Nodes in file order; the snapshot worker adds their search masks (session-core's
   * searchMaskColumns), which the page would otherwise make itself when idle.
   */
  | { kind: 'nodes'; nodes: TreeNode[]; masks?: SearchMaskColumns }
  /** The server has read this many bytes of the file (of the head's `bytes`). */
  | { kind: 'read'; read: number }
  /** The closing line: the nodes sent earlier that changed are decoded in `changed`. */
  | { kind: 'end'; end: Omit<SessionSnapshotEnd, 'changed'>; changed: TreeNode[] }
  /** The file was replaced while the server read it: the snapshot must be read again. */
  | { kind: 'restart' };

/** Why a snapshot could not be read; `status` 0 when it never got an HTTP answer to blame. */
export interface SnapshotFailure {
  status: number;
  code: string;
  message: string;
}

export class SnapshotDecodeError extends Error {
  constructor(
    /** SNAPSHOT_CUT, SNAPSHOT_INVALID, or the code of the server's error line. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SnapshotDecodeError';
  }
}

/**
 * Splits text into lines and decodes each complete line as it is completed. A line's pieces are
 * kept in a list and joined once, when its newline arrives: appending every piece to one growing
 * string and searching it again would copy a multi-megabyte chunk line once per network read.
 */
export class SnapshotDecoder {
  private pieces: string[] = [];
  private head: SessionSnapshotHead | undefined;
  private closed = false;
  private received = 0;
  private lineNumber = 0;

  /** The parts completed by `text`, in order. Throws SnapshotDecodeError on a line that is not one. */
  push(text: string): SnapshotPart[] {
    const parts: SnapshotPart[] = [];
    let from = 0;
    for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', from)) {
      this.pieces.push(text.slice(from, newline));
      from = newline + 1;
      const line = this.pieces.length === 1 ? this.pieces[0]! : this.pieces.join('');
      this.pieces = [];
      if (line) parts.push(this.partOf(line));
    }
    if (from < text.length) this.pieces.push(from === 0 ? text : text.slice(from));
    return parts;
  }

  /** The last part (a final line without a newline), after checking that the closing line came. */
  end(): SnapshotPart[] {
    const rest = this.pieces.join('');
    this.pieces = [];
    const parts = rest ? [this.partOf(rest)] : [];
    if (!this.closed)
      throw new SnapshotDecodeError('SNAPSHOT_CUT', `The snapshot ended after ${this.received} nodes`);
    return parts;
  }

  private partOf(line: string): SnapshotPart {
    this.lineNumber += 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (cause) {
      throw new SnapshotDecodeError(
        'SNAPSHOT_INVALID',
        `The snapshot's line ${this.lineNumber} is not JSON (${(cause as Error).message})`,
      );
    }
    if (!this.head) {
      this.head = value as SessionSnapshotHead;
      return { kind: 'head', head: this.head };
    }
    if (this.closed)
      throw new SnapshotDecodeError(
        'SNAPSHOT_INVALID',
        `The snapshot's line ${this.lineNumber} follows its end`,
      );
    if (value && typeof value === 'object' && !('count' in value)) return this.otherPartOf(value);
    let nodes: TreeNode[];
    try {
      nodes = decodeNodes(value as NodeColumns);
    } catch (cause) {
      throw new SnapshotDecodeError(
        'SNAPSHOT_INVALID',
        `The snapshot's line ${this.lineNumber} holds no nodes (${(cause as Error).message})`,
      );
    }
    this.received += nodes.length;
    return { kind: 'nodes', nodes };
  }

  /** A line that is not nodes: progress, or the closing line. */
  private otherPartOf(value: object): SnapshotPart {
    if ('read' in value) return { kind: 'read', read: Number(value.read) };
    const line = value as SnapshotClosingLine;
    this.closed = true;
    if ('error' in line) throw new SnapshotDecodeError(line.error.code, line.error.message);
    if ('restart' in line) return { kind: 'restart' };
    if (!('end' in line))
      throw new SnapshotDecodeError('SNAPSHOT_INVALID', `The snapshot's line ${this.lineNumber} is not one`);
    const { changed, ...end } = line.end;
    if (end.nodeCount !== this.received)
      throw new SnapshotDecodeError(
        'SNAPSHOT_CUT',
        `The snapshot ended after ${this.received} of ${end.nodeCount} nodes`,
      );
    try {
      return { kind: 'end', end, changed: decodeNodes(changed) };
    } catch (cause) {
      throw new SnapshotDecodeError(
        'SNAPSHOT_INVALID',
        `The snapshot's closing line holds no nodes (${(cause as Error).message})`,
      );
    }
  }
}
