// The snapshot's lines (a head line, node chunks and `read` lines, a closing line; see the
// protocol's SNAPSHOT_CONTENT_TYPE) turned into parts, piece by piece as the text arrives. Pure and environment-free: the snapshot worker
// (snapshotWorker.ts) runs it off the main thread, and the main thread runs the same code where
// there are no workers (tests), so both decode alike.

import type {
  NodeChunkHead,
  NodeColumns,
  SessionSnapshotEnd,
  SessionSnapshotHead,
  SnapshotClosingLine,
  TreeNode,
} from '@canopy/protocol';
import {
  chunkColumns,
  decodeNodes,
  isNodeChunkHead,
  textSpans,
  type TextSpans,
} from '@canopy/protocol/values';

const NEWLINE = 0x0a;
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

/**
 * What the decoder makes of a line: a part, except that nodes stay the line's columns (with where
 * each text is in them). The snapshot worker packs columns for the page without making a node
 * object per node; the page's own reader (no worker) decodes them (`nodesOf`).
 */
export type DecodedPart =
  Exclude<SnapshotPart, { kind: 'nodes' }> | { kind: 'columns'; columns: NodeColumns; spans: TextSpans };

/** The nodes part of decoded columns. */
export function nodesOf(part: Extract<DecodedPart, { kind: 'columns' }>): SnapshotPart {
  return { kind: 'nodes', nodes: decodeNodes(part.columns) };
}

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
 * Splits text into lines and decodes each complete line as it is completed; a node chunk's texts,
 * which follow its first line raw (the protocol's encodeNodeChunk), are taken by their length. A
 * line's or a chunk's pieces are kept in a list and joined once, when the last arrives: appending
 * every piece to one growing string and searching it again would copy a multi-megabyte chunk once
 * per network read.
 */
export class SnapshotDecoder {
  private pieces: string[] = [];
  private head: SessionSnapshotHead | undefined;
  private closed = false;
  private received = 0;
  private lineNumber = 0;
  /** The chunk whose texts are being read, and how many of their UTF-16 units (and the newline after them) are still to come. */
  private chunk: { head: NodeChunkHead; remaining: number } | undefined;

  /** The parts completed by `text`, in order. Throws SnapshotDecodeError on a line that is not one. */
  push(text: string): DecodedPart[] {
    const parts: DecodedPart[] = [];
    let from = 0;
    while (from < text.length) {
      const chunk = this.chunk;
      if (chunk) {
        const take = Math.min(chunk.remaining, text.length - from);
        this.pieces.push(from === 0 && take === text.length ? text : text.slice(from, from + take));
        from += take;
        chunk.remaining -= take;
        if (chunk.remaining === 0) parts.push(this.chunkPart(chunk.head));
        continue;
      }
      const newline = text.indexOf('\n', from);
      if (newline < 0) {
        this.pieces.push(from === 0 ? text : text.slice(from));
        break;
      }
      this.pieces.push(text.slice(from, newline));
      from = newline + 1;
      const line = this.pieces.length === 1 ? this.pieces[0]! : this.pieces.join('');
      this.pieces = [];
      const part = line ? this.partOf(line) : undefined;
      if (part) parts.push(part);
    }
    return parts;
  }

  /** The columns of a chunk whose texts (and their newline) are all in `pieces`. */
  private chunkPart(head: NodeChunkHead): DecodedPart {
    const texts = this.pieces.length === 1 ? this.pieces[0]! : this.pieces.join('');
    this.pieces = [];
    this.chunk = undefined;
    if (texts.charCodeAt(texts.length - 1) !== NEWLINE)
      throw new SnapshotDecodeError(
        'SNAPSHOT_INVALID',
        `The snapshot's line ${this.lineNumber} is not followed by its ${texts.length - 1} characters of text and a newline`,
      );
    return this.columnsPart(chunkColumns(head, texts));
  }

  /** The last part (a final line without a newline), after checking that the closing line came. */
  end(): DecodedPart[] {
    const rest = this.chunk ? '' : this.pieces.join('');
    this.pieces = [];
    const part = rest ? this.partOf(rest) : undefined;
    const parts = part ? [part] : [];
    if (!this.closed || this.chunk)
      throw new SnapshotDecodeError('SNAPSHOT_CUT', `The snapshot ended after ${this.received} nodes`);
    return parts;
  }

  /** The part of a complete line; none for a chunk's first line (its texts follow). */
  private partOf(line: string): DecodedPart | undefined {
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
    if (isNodeChunkHead(value)) {
      const size = value.latin1Chars + value.wideChars;
      if (!Number.isInteger(size) || size < 0)
        throw new SnapshotDecodeError(
          'SNAPSHOT_INVALID',
          `The snapshot's line ${this.lineNumber} holds no nodes (its texts' lengths are not lengths)`,
        );
      // Its texts and their newline come next; the part is made once they are in.
      this.chunk = { head: value, remaining: size + 1 };
      return undefined;
    }
    return this.columnsPart(value as NodeColumns);
  }

  /** The part of a line's columns, once they are known to hold their nodes. */
  private columnsPart(columns: NodeColumns): DecodedPart {
    let spans: TextSpans;
    try {
      spans = textSpans(columns);
    } catch (cause) {
      throw new SnapshotDecodeError(
        'SNAPSHOT_INVALID',
        `The snapshot's line ${this.lineNumber} holds no nodes (${(cause as Error).message})`,
      );
    }
    this.received += columns.count;
    return { kind: 'columns', columns, spans };
  }

  /** A line that is not nodes: progress, or the closing line. */
  private otherPartOf(value: object): DecodedPart {
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
