// How an open session reads one entry's line back from its file (docs/architecture.md#state): through
// a descriptor verified to be the session file inside the roots AND still the file that was read.
import fs from 'node:fs';
import { FileSafetyError, openConfinedSync, readAtSync, sameFile, stateOf, type FileState } from './confined';

/**
 * The verified descriptor the reads of one synchronous operation share (a context reads back every
 * entry of a branch: one open and check each would cost more than the reads). It is opened and
 * verified by the first read and closed on the next turn of the event loop, so every operation
 * still checks the file at the moment it happens.
 */
export class VerifiedReads {
  private reads: { fd: number; size: number } | undefined;

  constructor(private readonly file: string) {}

  /**
   * Bytes `[offset, offset + length)` of the file, which must still be the file `expected`
   * describes (same device and inode) and long enough; else a FileSafetyError('changed').
   */
  read(offset: number, length: number, expected: FileState): Uint8Array {
    const reads = this.descriptor(expected);
    // Lines Canopy appended since the descriptor was opened are past its first size.
    if (reads.size < offset + length) reads.size = fs.fstatSync(reads.fd).size;
    if (reads.size < offset + length) {
      throw new FileSafetyError('changed', 'The session file is shorter than what was read.');
    }
    return readAtSync(reads.fd, offset, length);
  }

  /** Reads from now on are of another file (just loaded, or rewritten); the old descriptor closes on the next turn. */
  forget(): void {
    this.reads = undefined;
  }

  private descriptor(expected: FileState): { fd: number; size: number } {
    if (this.reads) return this.reads;
    const { fd, stat } = openConfinedSync(this.file, fs.constants.O_RDONLY);
    if (!sameFile(stateOf(stat), expected)) {
      fs.closeSync(fd);
      throw new FileSafetyError('changed', 'The session file is no longer the one that was read.');
    }
    const reads = { fd, size: stat.size };
    this.reads = reads;
    setImmediate(() => {
      if (this.reads === reads) this.reads = undefined;
      fs.closeSync(fd);
    });
    return reads;
  }
}
