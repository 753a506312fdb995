import { parseTitleSlot, type TitleSlot } from '@canopy/session-core';
import {
  hashOfPieces,
  piecesOfSync,
  readAtSync,
  readIntoSync,
  sameFile,
  type ExactContent,
  type FileState,
} from '../files/confined';
import { READ_CHUNK_BYTES } from '../files/files';
import { isArchive } from '../files/omp-files';
import { RunningHash } from './running-hash';

/** Bytes kept from just before our read offset; if they change, the file was rewritten underneath. */
const WINDOW_BYTES = 64;

export type ReloadReason = 'replaced' | 'truncated' | 'rewritten';

/**
 * What a look at the file found beyond a reload, handed to the open session in order as {@link
 * FileTail.look} yields it (a return value, not a callback: the session pulls the news and acts).
 */
export type TailNews =
  /** Bytes another writer appended, already counted as read (one piece at a time, in order). */
  | { kind: 'grew'; bytes: Buffer }
  /** [oh-my-pi] The title line was rewritten in place and nothing else moved. */
  | { kind: 'title'; slot: TitleSlot };

/** A title line longer than this is not kept (a rename of it then reloads the session). */
const MAX_TITLE_LINE_BYTES = 64 << 10;

/**
 * What an open session knows of its file's bytes: how far it has read (`offset`), the file's
 * identity and times as last seen, a running hash of everything read and the last bytes before the
 * offset. {@link look} compares the file with them and says what happened: growth is read from the
 * offset in pieces; a replaced, truncated or rewritten file (same size included: the hash differs)
 * is answered as the reason to read it again. Every read is of at most `pieceBytes` (plus the
 * window): the file is never held whole, however large. A whole read feeds it piece by piece
 * ({@link took}, then {@link loaded}), and so does the migration rewrite with the pieces it writes
 * (a new tail); the write path tells it about its own appends.
 */
export class FileTail {
  offset = 0;
  /** The file as last read or written; any difference means another program touched it. */
  fileState: FileState = { size: 0, ino: 0, dev: 0, mtimeMs: 0, ctimeMs: 0, mode: 0o600 };
  /** Bytes of the file on disk (an archive's compressed size differs from `offset`). */
  diskSize = 0;
  private window: Buffer = Buffer.alloc(0);
  private hash = new RunningHash();
  /** [oh-my-pi] The title line as last read (oh-my-pi rewrites it in place on a rename). */
  private titleLine: Buffer | undefined;
  /** The first line's bytes while a whole read is under way, until its newline (or too long). */
  private firstLine: Buffer[] | undefined = [];
  private firstLineBytes = 0;

  constructor(
    private readonly file: string,
    private readonly pieceBytes = READ_CHUNK_BYTES,
  ) {}

  /** The SHA-256 of every byte read so far, in hex. */
  get contentHash(): string {
    return this.hash.digest();
  }

  /** The next piece of a whole read of a fresh tail (decompressed, for an archive), in order. */
  took(piece: Buffer): void {
    this.offset += piece.length;
    this.hash.add(piece);
    this.window = lastBytes(this.window, piece, WINDOW_BYTES);
    if (this.firstLine) {
      const newline = piece.indexOf(0x0a);
      const part = newline < 0 ? piece : piece.subarray(0, newline + 1);
      this.firstLineBytes += part.length;
      if (this.firstLineBytes > MAX_TITLE_LINE_BYTES) this.firstLine = undefined;
      else {
        this.firstLine.push(Buffer.from(part));
        if (newline >= 0) this.firstLine = [Buffer.concat(this.firstLine)];
      }
    }
  }

  /**
   * The whole read ended: `state` is the file as it was before its first piece was read (so a
   * change made while reading differs from it and the next {@link look} compares the bytes).
   */
  loaded(state: FileState, hasTitleLine: boolean): void {
    this.diskSize = state.size;
    this.fileState = { ...state, size: this.offset };
    const first = this.firstLine?.length === 1 ? this.firstLine[0] : undefined;
    this.titleLine = hasTitleLine && first?.[first.length - 1] === 0x0a ? first : undefined;
    this.firstLine = undefined;
  }

  /**
   * Is the file (open as `fd` through a verified descriptor, now in `state`) still exactly what was
   * read? Its bytes are hashed again piece by piece, never held whole.
   */
  isExactly(fd: number, state: FileState): boolean {
    if (!sameFile(state, this.fileState) || state.size !== this.offset) return false;
    const now = hashOfPieces(piecesOfSync(fd, 0, this.offset, this.pieceBytes));
    return now.size === this.offset && now.sha256 === this.contentHash;
  }

  /** The bytes read, as they are in the file open as `fd` (checked by {@link isExactly}), to copy in pieces. */
  contentIn(fd: number): ExactContent {
    return {
      size: this.offset,
      sha256: this.contentHash,
      pieces: () => piecesOfSync(fd, 0, this.offset, this.pieceBytes),
    };
  }

  /**
   * Compares the file (open as `fd`, now in state `now`) with what was read: yields what it found
   * (growth, read a piece at a time, and a title line rewritten in place), and returns why the file
   * must be read again whole, if it must. The caller takes each piece before the next is read.
   */
  *look(fd: number, now: FileState): Generator<TailNews, ReloadReason | undefined> {
    if (!sameFile(now, this.fileState)) return 'replaced';
    if (isArchive(this.file)) {
      // Compressed: not tailed; any change is read again whole.
      if (now.size !== this.diskSize || now.mtimeMs !== this.fileState.mtimeMs) return 'rewritten';
      return undefined;
    }
    if (now.size < this.offset) return 'truncated';
    const touched = now.mtimeMs !== this.fileState.mtimeMs || now.ctimeMs !== this.fileState.ctimeMs;
    if (now.size === this.offset) {
      if (!touched) return undefined;
      // Touched without growing: an in-place rewrite of the same size is only visible in the bytes;
      // a rename rewrites oh-my-pi's title line in place, taken without a reload when nothing else moved.
      const compared = this.compareRead(fd);
      if (compared === 'other') return 'rewritten';
      if (compared !== 'same') yield compared;
      this.fileState = now;
      return undefined;
    }
    // A rename may rewrite the title line and append a title_change in one go.
    if (this.titleLine && touched) {
      const compared = this.compareRead(fd);
      if (compared === 'other') return 'rewritten';
      if (compared !== 'same') yield compared;
    }
    // In pieces, like the first read: what another writer appended can be large too.
    while (this.offset < now.size) {
      const start = Math.max(0, this.offset - this.window.length);
      const end = Math.min(now.size, this.offset + this.pieceBytes);
      const bytes = readAtSync(fd, start, end - start);
      const before = bytes.subarray(0, this.offset - start);
      if (!before.equals(this.window)) return 'rewritten';
      const fresh = bytes.subarray(this.offset - start);
      if (fresh.length === 0) return undefined; // shrank while reading: the next poll sees it
      this.fileState = { ...now, size: start + bytes.length };
      this.offset += fresh.length;
      this.hash.add(fresh);
      this.window = lastBytes(this.window, fresh, WINDOW_BYTES);
      yield { kind: 'grew', bytes: fresh };
    }
    return undefined;
  }

  /** Our own append landed at `start`, after `before` (another writer's lines, if any). */
  appended(start: number, before: Buffer, data: Buffer, state: FileState): void {
    this.offset = start + data.length;
    this.fileState = { ...state, size: this.offset };
    this.hash.add(before);
    this.hash.add(data);
    const tail = Buffer.concat([this.window, before, data]);
    this.window = Buffer.from(tail.subarray(Math.max(0, tail.length - WINDOW_BYTES)));
  }

  /**
   * Reads the file's first `offset` bytes again, piece by piece, and compares them with what was
   * read: 'same'; the news of the new title when only oh-my-pi's title line changed, in place, to
   * another title line (taken: the hash and window follow the disk); else 'other' (a reload).
   */
  private compareRead(fd: number): 'same' | 'other' | Extract<TailNews, { kind: 'title' }> {
    const old = this.titleLine;
    const head = old ? readAtSync(fd, 0, old.length) : Buffer.alloc(0);
    if (old && head.length !== old.length) return 'other';
    // The bytes as known (the old title line, then the rest as on disk now) and as they are now.
    const asKnown = new RunningHash();
    asKnown.add(old ?? head);
    const asNow = new RunningHash();
    asNow.add(head);
    // One buffer for every piece: each is hashed before the next is read.
    const buffer = Buffer.allocUnsafe(Math.min(this.pieceBytes, this.offset));
    for (let at = head.length; at < this.offset; at += this.pieceBytes) {
      const piece = readIntoSync(fd, at, buffer, Math.min(this.pieceBytes, this.offset - at));
      if (piece.length === 0) return 'other';
      asKnown.add(piece);
      asNow.add(piece);
    }
    if (asKnown.digest() !== this.hash.digest()) return 'other';
    if (!old || head.equals(old)) return 'same';
    const slot = titleSlotOf(head);
    if (!slot) return 'other';
    this.titleLine = Buffer.from(head);
    this.hash = asNow;
    // The tail window may overlap the title line in a short file: keep it equal to the disk.
    const windowStart = this.offset - this.window.length;
    if (windowStart < old.length) {
      const patched = Buffer.from(this.window);
      head.copy(patched, 0, windowStart, old.length);
      this.window = patched;
    }
    return { kind: 'title', slot };
  }
}

/** The title slot a rewritten first line holds, if it is one (a whole line, still a title line). */
function titleSlotOf(line: Buffer): TitleSlot | undefined {
  if (line[line.length - 1] !== 0x0a) return undefined;
  return parseTitleSlot(line.toString('utf8'));
}

/** The last `count` bytes of `before` followed by `after`, copied (the inputs may be reused). */
function lastBytes(before: Buffer, after: Buffer, count: number): Buffer {
  if (after.length >= count) return Buffer.from(after.subarray(after.length - count));
  const tail = Buffer.concat([before, after]);
  return Buffer.from(tail.subarray(Math.max(0, tail.length - count)));
}
