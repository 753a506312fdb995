// The persistence seam of session-core: SessionManager writes through these interfaces, the server
// implements them over files, and tests use the in-memory versions below.

import { utf8Encode } from './parse';
import type { SessionHeader } from './types';

export interface SessionStorage {
  /** Path or opaque name of the file, used as `parentSession` of sessions branched from it. */
  readonly path?: string;
  /** Appends complete lines; each string is one JSON line WITHOUT the trailing "\n" (the storage adds it). */
  appendLines(lines: readonly string[]): void;
  /**
   * Atomically replaces the whole file (used once for a migrated legacy file, and to create a new file)
   * when the storage has no `rewriteLines`; also writes the header of a session created in memory.
   */
  rewrite(text: string): void;
  /**
   * Like `rewrite`, from the file's lines (each without its "\n"), consumed as they are written so no
   * single string holds the file; the migration rewrite of a legacy file and new sessions (branch,
   * fork) are written through it when present. It either writes every line or throws, leaving the
   * file as it was.
   */
  rewriteLines?(lines: Iterable<string>): void;
  /** Reads the whole file. */
  read(): string;
  /**
   * Reads `length` bytes at byte `offset` (fewer when the file is shorter). A session that keeps only
   * its index (`retain: 'index'`) reads its entries back through this.
   */
  readRange?(offset: number, length: number): Uint8Array;
}

export interface SessionStorageProvider {
  /** Storage for a brand-new session file (branch, fork, newSession). */
  create(header: SessionHeader): SessionStorage;
}

/** One write, as recorded by MemoryStorage. */
export type StorageWrite = { kind: 'append'; lines: string[] } | { kind: 'rewrite'; text: string };

/** A session "file" held in a string. */
export class MemoryStorage implements SessionStorage {
  readonly path?: string;
  /** Every write in order, so tests can check exactly what was written and how. */
  readonly writes: StorageWrite[] = [];
  private text: string;
  /** The UTF-8 form of `text`, encoded on the first ranged read after a write. */
  private bytes: Uint8Array | undefined;

  constructor(initialText = '', path?: string) {
    this.text = initialText;
    if (path !== undefined) this.path = path;
  }

  appendLines(lines: readonly string[]): void {
    for (const line of lines) {
      // A newline inside a line would split one entry across two lines of the file.
      if (line.includes('\n')) throw new Error('A session line must not contain a newline');
    }
    this.writes.push({ kind: 'append', lines: [...lines] });
    this.text += lines.map((line) => `${line}\n`).join('');
    this.bytes = undefined;
  }

  rewrite(text: string): void {
    this.writes.push({ kind: 'rewrite', text });
    this.text = text;
    this.bytes = undefined;
  }

  rewriteLines(lines: Iterable<string>): void {
    let text = '';
    for (const line of lines) text += `${line}\n`;
    this.rewrite(text);
  }

  read(): string {
    return this.text;
  }

  readRange(offset: number, length: number): Uint8Array {
    this.bytes ??= utf8Encode(this.text);
    return this.bytes.slice(offset, offset + length);
  }
}

/** Creates MemoryStorage "files" named like the reference's: `<dir>/<timestamp>_<sessionId>.jsonl`. */
export class MemoryStorageProvider implements SessionStorageProvider {
  /** Every storage created, in order. */
  readonly created: MemoryStorage[] = [];

  constructor(private readonly directory = 'memory') {}

  create(header: SessionHeader): MemoryStorage {
    const stamp = String(header.timestamp).replace(/[:.]/g, '-');
    const storage = new MemoryStorage('', `${this.directory}/${stamp}_${header.id}.jsonl`);
    this.created.push(storage);
    return storage;
  }

  /** The storage created under `path`, if any. */
  get(path: string): MemoryStorage | undefined {
    return this.created.find((storage) => storage.path === path);
  }
}
