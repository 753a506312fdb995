import path from 'node:path';
import type { SessionHeader, SessionStorage, SessionStorageProvider } from '@canopy/session-core';
import { appendLinesSync, atomicWriteSync, readWholeSync, statFileSync } from './files';

/**
 * Storage for a brand-new session file (branch, fork, new session), named like the reference's
 * `<dir>/<timestamp>_<sessionId>.jsonl` beside the file it came from.
 */
export class NewFileStorage implements SessionStorage {
  constructor(readonly path: string) {}

  appendLines(lines: readonly string[]): void {
    const size = statFileSync(this.path)?.size ?? 0;
    if (size === 0) {
      atomicWriteSync(this.path, lines.map((line) => `${line}\n`).join(''));
      return;
    }
    appendLinesSync(this.path, [...lines], size);
  }

  rewrite(text: string): void {
    atomicWriteSync(this.path, text);
  }

  read(): string {
    return readWholeSync(this.path).toString('utf8');
  }
}

export class NewFileStorageProvider implements SessionStorageProvider {
  readonly created: NewFileStorage[] = [];

  constructor(private readonly directory: string) {}

  create(header: SessionHeader): NewFileStorage {
    const stamp = String(header.timestamp).replace(/[:.]/g, '-');
    const storage = new NewFileStorage(path.join(this.directory, `${stamp}_${header.id}.jsonl`));
    this.created.push(storage);
    return storage;
  }
}

/** A storage that must never be written: the throwaway copy a branch or fork starts from. */
export class ReadOnlyStorage implements SessionStorage {
  constructor(readonly path: string) {}
  appendLines(): void {
    throw new Error('internal: the source copy of a branch must not be written');
  }
  rewrite(): void {
    throw new Error('internal: the source copy of a branch must not be written');
  }
  read(): string {
    return readWholeSync(this.path).toString('utf8');
  }
}
