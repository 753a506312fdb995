import type { TitleSlot } from '@canopy/session-core';
import { readAtSync, RunningHash, sameFile, type FileState } from './confined';
import { READ_CHUNK_BYTES } from './files';
import { isArchive } from './omp-files';

/** Bytes kept from just before our read offset; if they change, the file was rewritten underneath. */
const WINDOW_BYTES = 64;

export type ReloadReason = 'replaced' | 'truncated' | 'rewritten';

/** What a look at the file found, told to the open session. */
export interface TailEvents {
  /** Bytes another writer appended, already counted as read (called once per piece, in order). */
  grew(fresh: Buffer): void;
  /** The file is not what was read (replaced, truncated, rewritten): `bytes` is all of it now. */
  changed(reason: ReloadReason, bytes: Buffer, state: FileState): void;
  /** [oh-my-pi] The title line was rewritten in place and nothing else moved. */
  titleRewritten(slot: TitleSlot): void;
}

/**
 * What an open session knows of its file's bytes: how far it has read (`offset`), the file's
 * identity and times as last seen, a running hash of everything read and the last bytes before the
 * offset. {@link look} compares the file with them and says what happened: growth is read from the
 * offset in pieces; a replaced, truncated or rewritten file (same size included: the hash differs)
 * is read whole for a reload. The write path tells it about its own appends and rewrites.
 */
export class FileTail {
  offset = 0;
  /** The file as last read or written; any difference means another program touched it. */
  fileState: FileState = { size: 0, ino: 0, dev: 0, mtimeMs: 0, ctimeMs: 0, mode: 0o600 };
  /** Bytes of the file on disk (an archive's compressed size differs from `offset`). */
  diskSize = 0;
  private window: Buffer = Buffer.alloc(0);
  private readonly hash = new RunningHash();
  /** [oh-my-pi] The title line as last read (oh-my-pi rewrites it in place on a rename). */
  private titleLine: Buffer | undefined;

  constructor(private readonly file: string) {}

  /** Everything was (re)read: `bytes` (decompressed, for an archive) from a file now in `state`. */
  reset(bytes: Buffer, state: FileState, hasTitleLine: boolean): void {
    this.diskSize = state.size;
    this.offset = bytes.length;
    this.window = Buffer.from(bytes.subarray(Math.max(0, bytes.length - WINDOW_BYTES)));
    this.fileState = { ...state, size: bytes.length };
    this.hash.reset(bytes);
    this.titleLine = hasTitleLine ? firstLine(bytes) : undefined;
  }

  /** Is the file, as read through a verified descriptor, still exactly what was read? */
  isExactly(bytes: Buffer, state: FileState): boolean {
    return sameFile(state, this.fileState) && state.size === this.offset && this.hash.matches(bytes);
  }

  /** Compares the file (open as `fd`, now in state `now`) with what was read, and tells `events`. */
  look(fd: number, now: FileState, events: TailEvents): void {
    if (!sameFile(now, this.fileState)) return events.changed('replaced', readAtSync(fd, 0, now.size), now);
    if (isArchive(this.file)) {
      // Compressed: not tailed; any change is read again whole.
      if (now.size !== this.diskSize || now.mtimeMs !== this.fileState.mtimeMs)
        events.changed('rewritten', readAtSync(fd, 0, now.size), now);
      return;
    }
    if (now.size < this.offset) return events.changed('truncated', readAtSync(fd, 0, now.size), now);
    if (now.size === this.offset) {
      if (now.mtimeMs === this.fileState.mtimeMs && now.ctimeMs === this.fileState.ctimeMs) return;
      // Touched without growing: an in-place rewrite of the same size is only visible in the bytes.
      const bytes = readAtSync(fd, 0, now.size);
      if (this.hash.matches(bytes)) {
        this.fileState = now;
        return;
      }
      // A rename rewrites oh-my-pi's title line in place: taken without a reload when nothing else moved.
      if (this.takeTitleRewrite(bytes, events)) {
        this.fileState = now;
        return;
      }
      return events.changed('rewritten', bytes, now);
    }
    if (
      this.titleLine &&
      (now.mtimeMs !== this.fileState.mtimeMs || now.ctimeMs !== this.fileState.ctimeMs)
    ) {
      // A rename may rewrite the title line and append a title_change in one go.
      const head = readAtSync(fd, 0, Math.min(now.size, this.offset));
      const known = Buffer.concat([this.titleLine, head.subarray(this.titleLine.length)]);
      if (!head.equals(known) || !this.hash.matches(known)) {
        if (!this.takeTitleRewrite(head, events))
          return events.changed('rewritten', readAtSync(fd, 0, now.size), now);
      }
    }
    // In pieces, like the first read: what another writer appended can be large too.
    while (this.offset < now.size) {
      const start = Math.max(0, this.offset - this.window.length);
      const end = Math.min(now.size, this.offset + READ_CHUNK_BYTES);
      const bytes = readAtSync(fd, start, end - start);
      const before = bytes.subarray(0, this.offset - start);
      if (!before.equals(this.window)) return events.changed('rewritten', readAtSync(fd, 0, now.size), now);
      const fresh = bytes.subarray(this.offset - start);
      if (fresh.length === 0) return; // shrank while reading: the next poll sees it
      this.fileState = { ...now, size: start + bytes.length };
      this.offset += fresh.length;
      this.hash.add(fresh);
      this.window = lastBytes(this.window, fresh, WINDOW_BYTES);
      events.grew(fresh);
    }
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

  /** Our own rewrite (a migration) replaced the file with `encoded`, now in `state`. */
  rewritten(encoded: Buffer, state: FileState): void {
    this.fileState = state;
    this.offset = encoded.length;
    this.window = Buffer.from(encoded.subarray(Math.max(0, encoded.length - WINDOW_BYTES)));
    this.hash.reset(encoded);
  }

  /**
   * [oh-my-pi] Takes a title line rewritten in place (same length, still a title line) when the rest
   * of the known bytes did not change. `bytes` are the file's bytes from offset 0 up to (at most)
   * the known length. False when the change is anything else, and the caller reloads.
   */
  private takeTitleRewrite(bytes: Buffer, events: TailEvents): boolean {
    const old = this.titleLine;
    if (!old || bytes.length < old.length) return false;
    const current = bytes.subarray(0, old.length);
    if (current.equals(old) || current[current.length - 1] !== 0x0a) return false;
    const known = bytes.subarray(0, Math.min(bytes.length, this.offset));
    if (known.length !== this.offset) return false;
    if (!this.hash.matches(Buffer.concat([old, known.subarray(old.length)]))) return false;
    let slot: unknown;
    try {
      slot = JSON.parse(current.toString('utf8'));
    } catch {
      return false;
    }
    if (!slot || typeof slot !== 'object' || (slot as { type?: unknown }).type !== 'title') return false;
    this.titleLine = Buffer.from(current);
    this.hash.reset(known);
    // The tail window may overlap the title line in a short file: keep it equal to the disk.
    const windowStart = this.offset - this.window.length;
    if (windowStart < old.length) {
      const patched = Buffer.from(this.window);
      current.copy(patched, 0, windowStart, old.length);
      this.window = patched;
    }
    events.titleRewritten(slot as TitleSlot);
    return true;
  }
}

/** The first line of a file's bytes, its newline included (all of it without one). */
function firstLine(bytes: Buffer): Buffer {
  const newline = bytes.indexOf(0x0a);
  return Buffer.from(newline < 0 ? bytes : bytes.subarray(0, newline + 1));
}

/** The last `count` bytes of `before` followed by `after`, copied (the inputs may be reused). */
function lastBytes(before: Buffer, after: Buffer, count: number): Buffer {
  if (after.length >= count) return Buffer.from(after.subarray(after.length - count));
  const tail = Buffer.concat([before, after]);
  return Buffer.from(tail.subarray(Math.max(0, tail.length - count)));
}
