// Bounded reads of session files' heads for the family of a session (docs/archive-and-family.md):
// a file is read piece by piece from its start until its head reader is settled (the header, and
// for a fork every entry it copied) or a byte cap; an archived `.jsonl.gz` is inflated as a stream
// and left as soon as enough is read. Never a whole file.
import { StringDecoder } from 'node:string_decoder';
import { FamilyHeadReader } from '@canopy/session-core';
import { archivePieces } from './archive';
import { readChunksConfined } from './confined';
import { isArchive } from './omp-files';

/** Pieces read at a time: a header and a few hundred entries. */
export const FAMILY_HEAD_PIECE_BYTES = 64 << 10;
/** The most bytes of one file's head read for its family (a fork copying more is reported). */
export const FAMILY_HEAD_MAX_BYTES = 16 << 20;

export interface FamilyHeadRead {
  reader: FamilyHeadReader;
  /** The whole file was read (its head holds every entry). */
  complete: boolean;
}

/** Reads the head of `file` (a real path under the roots) until its reader is settled. */
export async function readFamilyHead(
  file: string,
  maxBytes = FAMILY_HEAD_MAX_BYTES,
): Promise<FamilyHeadRead> {
  const reader = new FamilyHeadReader();
  const decoder = new StringDecoder('utf8');
  const pieces = isArchive(file) ? archivePieces(file) : readChunksConfined(file, 0, FAMILY_HEAD_PIECE_BYTES);
  let rest = '';
  let read = 0;
  let complete = true;
  for await (const piece of pieces) {
    read += piece.length;
    const lines = (rest + decoder.write(piece)).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) reader.addLine(line);
    if (reader.settled || read >= maxBytes) {
      // Leaving the loop closes the descriptor (and the inflater) at once.
      complete = false;
      break;
    }
  }
  if (complete) reader.addLine(rest + decoder.end());
  return { reader, complete };
}
