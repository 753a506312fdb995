import path from 'node:path';
import type { SessionHeader, SessionStorage, SessionStorageProvider } from '@canopy/session-core';
import {
  appendConfinedSync,
  createConfinedLinesSync,
  createConfinedSync,
  readRangeConfinedSync,
  stateOf,
  withConfinedSync,
  type FileState,
} from './confined';

/**
 * Storage for a brand-new session file (branch, fork, new session), named like the reference's
 * `<dir>/<timestamp>_<sessionId>.jsonl` beside the file it came from. The file is created whole or
 * not at all (createConfinedSync) in the verified folder, with the permission bits of the session it
 * came from.
 */
export class NewFileStorage implements SessionStorage {
  constructor(
    readonly path: string,
    private readonly mode: number,
    private readonly confined: (realDir: string) => boolean,
  ) {}

  appendLines(lines: readonly string[]): void {
    const data = Buffer.from(lines.map((line) => `${line}\n`).join(''), 'utf8');
    let current: FileState | undefined;
    try {
      // Only its state: the file is never read whole to append to it.
      current = withConfinedSync(this.path, (_fd, stat) => stateOf(stat));
    } catch {
      current = undefined;
    }
    if (!current) {
      createConfinedSync(this.path, data, this.mode, this.confined);
      return;
    }
    appendConfinedSync(this.path, data, current, { now: Date.now() });
  }

  rewrite(text: string): void {
    // Only ever called once, to create the file: an existing file is never replaced.
    createConfinedSync(this.path, Buffer.from(text, 'utf8'), this.mode, this.confined);
  }

  /** Creates the file from lines written batch by batch (a branch or fork never builds one string). */
  rewriteLines(lines: Iterable<string>): void {
    createConfinedLinesSync(this.path, lines, this.mode, this.confined);
  }

  read(): string {
    return readWhole();
  }

  /** An entry's line, read back through a verified descriptor (the manager checks it against its index). */
  readRange(offset: number, length: number): Uint8Array {
    return readRangeConfinedSync(this.path, offset, length);
  }
}

export class NewFileStorageProvider implements SessionStorageProvider {
  readonly created: NewFileStorage[] = [];

  /** `mode()`: the permission bits of the session the new file comes from, read when it is created. */
  constructor(
    private readonly directory: string,
    private readonly mode: () => number,
    private readonly confined: (realDir: string) => boolean,
  ) {}

  create(header: SessionHeader): NewFileStorage {
    const stamp = String(header.timestamp).replace(/[:.]/g, '-');
    const storage = new NewFileStorage(
      path.join(this.directory, `${stamp}_${header.id}.jsonl`),
      this.mode(),
      this.confined,
    );
    this.created.push(storage);
    return storage;
  }
}

/**
 * `SessionStorage.read`, which the server never calls: its managers are loaded in pieces
 * (`SessionManager.fromJsonlChunks`) and read entries back through `readRange`, so no session file
 * is ever held as one string (docs/architecture.md#state).
 */
function readWhole(): never {
  throw new Error('internal: the server never reads a session file whole; use readRange');
}
