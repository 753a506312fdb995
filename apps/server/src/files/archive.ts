// oh-my-pi's archived sessions (`*.jsonl.gz`, written by `omp gc`), decompressed in bounded pieces:
// zlib's stream inflates on the thread pool, the compressed bytes are read from one verified
// descriptor a piece at a time as the inflater asks for them, and the decompressed bytes come out
// in pieces of at most zlib's chunk size, with the event loop running between them. A limit on the
// decompressed size and on the ratio of decompressed to compressed bytes stops a small archive
// holding gigabytes of lines (a "zip bomb") as soon as it shows; a corrupt, truncated or
// zero-filled archive is an error that says which (docs/safety.md#archives).
import fs from 'node:fs';
import { createGunzip } from 'node:zlib';
import { AppError } from '../errors';
import { openConfinedSync, readAtSync } from './confined';

export interface ArchiveLimits {
  /** The most decompressed bytes (an open archive is held in memory, entry by entry). */
  maxBytes: number;
  /** The most decompressed bytes per compressed byte, once `ratioAfterBytes` are out. */
  maxRatio: number;
  ratioAfterBytes: number;
}

export const ARCHIVE_LIMITS: ArchiveLimits = {
  maxBytes: 128 << 20,
  // Session lines gzip 5–20×; a repetitive tool log up to ~50×. Zeros reach ~1000×.
  maxRatio: 100,
  ratioAfterBytes: 1 << 20,
};

/**
 * Compressed bytes read from the file at once: small, so that the ratio of what came out to what
 * went in is known early (a piece of a bomb is ~1000× its size).
 */
const COMPRESSED_PIECE_BYTES = 16 << 10;
/** Decompressed bytes per piece handed on. */
const OUTPUT_PIECE_BYTES = 256 << 10;

/** Why an archive cannot be read, said the same way in the list and when it is opened. */
export class ArchiveError extends AppError {
  constructor(
    readonly kind: 'corrupt' | 'truncated' | 'too-large',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(kind === 'too-large' ? 'PAYLOAD_TOO_LARGE' : 'SESSION_INVALID', message, options);
    this.name = 'ArchiveError';
  }
}

function zlibError(error: NodeJS.ErrnoException, decompressed: number): ArchiveError {
  if (error.code === 'Z_BUF_ERROR') {
    return new ArchiveError(
      'truncated',
      `The archive is cut off after ${decompressed} decompressed bytes (its compressed data ends early); it cannot be opened.`,
      { cause: error },
    );
  }
  return new ArchiveError(
    'corrupt',
    `The archive is damaged (${error.message} after ${decompressed} decompressed bytes); it is not a gzip file Canopy can read.`,
    { cause: error },
  );
}

/**
 * The decompressed bytes of the archive open as `fd` (`size` compressed bytes), piece by piece.
 * Throws ArchiveError when it is corrupt, cut off or past `limits`; nothing is ever held whole.
 */
export async function* archivePiecesOf(
  fd: number,
  size: number,
  limits: ArchiveLimits = ARCHIVE_LIMITS,
): AsyncGenerator<Buffer, void, undefined> {
  const inflater = createGunzip({ chunkSize: OUTPUT_PIECE_BYTES });
  let fed = 0;
  let failure: unknown;
  // The compressed bytes go in as the inflater takes them (its buffer stays small).
  const feed = async (): Promise<void> => {
    while (fed < size && !inflater.destroyed) {
      const piece = readAtSync(fd, fed, Math.min(COMPRESSED_PIECE_BYTES, size - fed));
      if (piece.length === 0) break; // shorter than it was: the inflater says it is cut off
      fed += piece.length;
      if (!inflater.write(piece)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            inflater.off('drain', done);
            inflater.off('close', done);
            resolve();
          };
          inflater.on('drain', done);
          inflater.on('close', done);
        });
      }
    }
    if (!inflater.destroyed) inflater.end();
  };
  const feeding = feed().catch((error: unknown) => {
    failure = error;
    inflater.destroy(error as Error);
  });
  let out = 0;
  try {
    for await (const piece of inflater as AsyncIterable<Buffer>) {
      out += piece.length;
      if (out > limits.maxBytes) {
        throw new ArchiveError(
          'too-large',
          `The archive holds more than ${limits.maxBytes} bytes of lines, more than Canopy opens from an archive; decompress it (gunzip) to open it.`,
        );
      }
      if (out > limits.ratioAfterBytes && out > limits.maxRatio * fed) {
        throw new ArchiveError(
          'too-large',
          `The archive decompresses to more than ${limits.maxRatio} times its size (${out} bytes from ${fed}), which no session does; Canopy stopped reading it.`,
        );
      }
      yield piece;
    }
  } catch (error) {
    if (error instanceof ArchiveError) throw error;
    if (failure !== undefined) throw failure;
    throw zlibError(error as NodeJS.ErrnoException, out);
  } finally {
    inflater.destroy();
    await feeding;
  }
  if (failure !== undefined) throw failure;
}

/**
 * An archived session file's decompressed bytes, read through a verified descriptor (see
 * openConfinedSync), piece by piece with `limits`; for the index and the CLI's outline.
 */
export async function* archivePieces(
  file: string,
  limits: ArchiveLimits = ARCHIVE_LIMITS,
): AsyncGenerator<Buffer, void, undefined> {
  const { fd, stat } = openConfinedSync(file, fs.constants.O_RDONLY);
  try {
    yield* archivePiecesOf(fd, stat.size, limits);
  } finally {
    fs.closeSync(fd);
  }
}
