// Bounded reads of session files for the family of a session (docs/archive-and-family.md): a file is
// read piece by piece from its start, line by line, until the reader has enough (a head reader is
// settled; a scan for subagent call sites has passed what it looks for) or a byte cap; an archived
// `.jsonl.gz` is inflated as a stream and left as soon as enough is read. Never a whole file held.
import { StringDecoder } from 'node:string_decoder';
import { FamilyHeadReader } from '@canopy/session-core';
import { archivePieces } from './archive';
import { readChunksConfined } from './confined';
import { isArchive } from './omp-files';

/** Pieces read at a time: a header and a few hundred entries. */
export const FAMILY_HEAD_PIECE_BYTES = 64 << 10;
/** The most bytes of one file's head read for its family (a fork copying more is reported). */
export const FAMILY_HEAD_MAX_BYTES = 16 << 20;
/** Pieces read at a time by a scan of a whole parent for subagent call sites. */
export const CALL_SITE_PIECE_BYTES = 1 << 20;

export interface FamilyHeadRead {
  reader: FamilyHeadReader;
  /** The whole file was read (its head holds every entry). */
  complete: boolean;
}

/**
 * Hands the lines of `file` (a real path under the roots) to `onLine` in file order, a piece at a
 * time, until `enough` answers true after a piece or `maxBytes` are read. Answers whether every line
 * was seen; the last line is seen only when the whole file was read (a cut-off line never is).
 */
export async function scanLinesBounded(
  file: string,
  options: { maxBytes: number; pieceBytes?: number; enough?: () => boolean },
  onLine: (line: string) => void,
): Promise<{ complete: boolean }> {
  const { maxBytes, pieceBytes = FAMILY_HEAD_PIECE_BYTES, enough } = options;
  const decoder = new StringDecoder('utf8');
  const pieces = isArchive(file) ? archivePieces(file) : readChunksConfined(file, 0, pieceBytes);
  let rest = '';
  let read = 0;
  for await (const piece of pieces) {
    read += piece.length;
    const lines = (rest + decoder.write(piece)).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) onLine(line);
    // Leaving the loop closes the descriptor (and the inflater) at once.
    if (enough?.() || read >= maxBytes) return { complete: false };
  }
  onLine(rest + decoder.end());
  return { complete: true };
}

/**
 * Hands `onLine` only the lines of `file` (a real path under the roots) that hold `needle`, in file
 * order, reading at most `maxBytes`: the bytes are searched for the needle as they are and only the
 * lines around a hit are decoded, so a scan of a large file that the needle rarely occurs in costs
 * little more than reading it. Answers whether the whole file was read.
 */
export async function scanLinesHolding(
  file: string,
  needle: string,
  options: { maxBytes: number; pieceBytes?: number },
  onLine: (line: string) => void,
): Promise<{ complete: boolean }> {
  const { maxBytes, pieceBytes = CALL_SITE_PIECE_BYTES } = options;
  const bytes = Buffer.from(needle, 'utf8');
  const pieces = isArchive(file) ? archivePieces(file) : readChunksConfined(file, 0, pieceBytes);
  const NEWLINE = 0x0a;
  const linesHolding = (buffer: Buffer, end: number) => {
    for (let at = buffer.indexOf(bytes); at >= 0 && at < end;) {
      const start = buffer.lastIndexOf(NEWLINE, at) + 1;
      const stop = buffer.indexOf(NEWLINE, at);
      const lineEnd = stop < 0 || stop > end ? end : stop;
      onLine(buffer.toString('utf8', start, lineEnd));
      at = buffer.indexOf(bytes, lineEnd);
    }
  };
  let carry: Buffer | undefined;
  let read = 0;
  for await (const piece of pieces) {
    read += piece.length;
    const buffer = carry ? Buffer.concat([carry, piece]) : piece;
    // Lines up to the last newline are whole; the rest waits for the next piece.
    const end = buffer.lastIndexOf(NEWLINE) + 1;
    linesHolding(buffer, end);
    carry = end < buffer.length ? Buffer.from(buffer.subarray(end)) : undefined;
    if (read >= maxBytes) return { complete: false };
  }
  if (carry) linesHolding(carry, carry.length);
  return { complete: true };
}

/** Reads the head of `file` (a real path under the roots) until its reader is settled. */
export async function readFamilyHead(
  file: string,
  maxBytes = FAMILY_HEAD_MAX_BYTES,
): Promise<FamilyHeadRead> {
  const reader = new FamilyHeadReader();
  const { complete } = await scanLinesBounded(file, { maxBytes, enough: () => reader.settled }, (line) =>
    reader.addLine(line),
  );
  return { reader, complete };
}

/** A file's bytes were more than a bounded whole read allows. */
export class TooLargeForRead extends Error {
  constructor(readonly maxBytes: number) {
    super(`more than ${maxBytes} bytes`);
    this.name = 'TooLargeForRead';
  }
}

/**
 * The bytes of `file` (a real path under the roots; an archive inflated), piece by piece, for a
 * one-shot read of a small file (a subagent's lane); past `maxBytes` the read stops with
 * TooLargeForRead before the piece that crosses it is handed on.
 */
export async function* wholeFileBounded(
  file: string,
  maxBytes: number,
): AsyncGenerator<Buffer, void, undefined> {
  const pieces = isArchive(file) ? archivePieces(file) : readChunksConfined(file, 0, CALL_SITE_PIECE_BYTES);
  let read = 0;
  for await (const piece of pieces) {
    read += piece.length;
    if (read > maxBytes) throw new TooLargeForRead(maxBytes);
    yield piece;
  }
}
