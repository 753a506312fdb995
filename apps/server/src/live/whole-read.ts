// The whole read of an open session's file (on open, and again on a reload): through one verified
// descriptor, piece by piece; each piece is parsed, hashed and dropped before the next is read, so
// neither the file nor its text is ever held whole (docs/architecture.md#state).
import { SessionManager, type SessionStorage, type SessionStorageProvider } from '@canopy/session-core';
import { archivePiecesOf } from '../files/archive';
import { readIntoSync, type FileState } from '../files/confined';
import { closeDescriptorSync, openForReadSync } from '../files/descriptors';
import { PARSE_SLICE_BYTES, READ_CHUNK_BYTES } from '../files/files';
import { isArchive } from '../files/omp-files';
import { FileTail } from './file-tail';
import type { LoadProgress } from './load-progress';
import { SessionModel } from './session-model';

export interface WholeReadOptions {
  file: string;
  home: string;
  /** How the new manager writes (the open session's append path) and creates files (branch, fork). */
  storage: SessionStorage;
  storageProvider: SessionStorageProvider;
  /** How the new manager reads an entry's line back (the open session's verified reads). */
  readRange: (offset: number, length: number) => Uint8Array;
  /** Bytes per read (default READ_CHUNK_BYTES); a test seam. */
  pieceBytes?: number;
  /** The first read while it runs, for the snapshots streamed meanwhile. */
  progress?: LoadProgress;
  /** Test seam: runs after each piece, with the bytes read so far; the read waits for it. */
  afterPiece?: (readSoFar: number) => void | Promise<void>;
}

/** A whole read's result: the new model and tail, which replace the open session's together. */
export interface WholeRead {
  model: SessionModel;
  tail: FileTail;
}

/**
 * Reads the whole file into a new model and a new tail. The manager keeps only its index and reads
 * an entry back from the file when asked (an archive, read-only, is decompressed piece by piece and
 * keeps its entries whole); the model gets every entry once through the manager's listener. The
 * tail records the file as it was before the first piece: a change made while reading shows at the
 * next look (the caller looks at once). A file that vanished or left the roots throws FileSafetyError.
 */
export async function readWhole(options: WholeReadOptions): Promise<WholeRead> {
  const { file } = options;
  const { fd, state } = openForReadSync(file);
  const tail = new FileTail(file, options.pieceBytes);
  const model = new SessionModel(options.home);
  options.progress?.started(model.tree, state.size);
  try {
    // A cut-off last line stays buffered in the manager until its newline arrives.
    const sm = await SessionManager.fromJsonlChunks(pieces(fd, state, tail, options), {
      storage: options.storage,
      storageProvider: options.storageProvider,
      // An archive is not the bytes on disk, so it keeps its entries whole.
      retain: isArchive(file) ? 'all' : 'index',
      readRange: options.readRange,
      onEntries: model.receive,
    });
    model.attach(sm);
  } finally {
    closeDescriptorSync(fd);
  }
  tail.loaded(state, model.sm.getTitleSlot() !== undefined);
  return { model, tail };
}

/**
 * The file's bytes in pieces, each parsed and told to `tail` a slice at a time. Every piece is read
 * into the same buffer, so a piece is valid only until the next is asked for: the parser copies what
 * it keeps (a cut-off line), the tail copies its window and title line, the hash takes the bytes at
 * once. Between two pieces the read lets the event loop run, so that a snapshot streaming the nodes
 * received so far (`progress`) gets them onto its socket while the rest is read.
 */
async function* pieces(
  fd: number,
  { size }: FileState,
  tail: FileTail,
  options: WholeReadOptions,
): AsyncGenerator<Buffer> {
  const { progress } = options;
  if (isArchive(options.file)) {
    // Decompressed piece by piece, with its limits (an error says why it cannot be read).
    for await (const piece of archivePiecesOf(fd, size)) {
      tail.took(piece);
      yield piece;
    }
    progress?.advanced(size);
    return;
  }
  const buffer = Buffer.allocUnsafe(Math.min(options.pieceBytes ?? READ_CHUNK_BYTES, size));
  for (let at = 0; at < size;) {
    const piece = readIntoSync(fd, at, buffer, Math.min(buffer.length, size - at));
    if (piece.length === 0) return; // shrank while reading: the next look sees it
    // Parsed a slice per turn of the event loop: a whole piece is ~50 ms of parsing, and a
    // request served meanwhile (the page's script, its API calls) waited that long per turn.
    for (let from = 0; from < piece.length; from += PARSE_SLICE_BYTES) {
      if (from > 0) await nextTurn();
      const slice = piece.subarray(from, from + PARSE_SLICE_BYTES);
      // Told to the tail slice by slice: the hash takes a slice into one slot of its thread's
      // ring, which has hashed it long before the next slice is parsed (running-hash.ts).
      tail.took(slice);
      yield slice;
    }
    at += piece.length;
    progress?.advanced(at);
    await options.afterPiece?.(at);
    await nextTurn();
  }
}

function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
