// How a SessionManager holds its entries. With retention 'all' every parsed entry stays in memory (the
// default). With 'index' the tree index keeps, for most entries, only a stub (type, id, parentId,
// timestamp, and where the line is in the file); the full entry is read back from the file through an
// injected synchronous range reader when a method needs it, re-parsed exactly as at load, checked
// against the stub, and kept in a small LRU cache. See docs/architecture.md#state.

import { utf8Decoder } from './parse';
import type { SessionEntry } from './types';

/** What a SessionManager keeps of each entry: everything, or the index and a way back to the file. */
export type EntryRetention = 'all' | 'index';

/**
 * Reads `length` bytes at byte `offset` of the session file, synchronously. It must see the file the
 * session's storage appends to (its appends included). A short read (fewer bytes than asked: the file
 * shrank) is reported by the session as an {@link EntryReadError}.
 */
export type RangeReader = (offset: number, length: number) => Uint8Array;

/** Full entries of an 'index' session kept in memory by default (the most recently read ones). */
export const DEFAULT_ENTRY_CACHE_SIZE = 256;

/**
 * Entry types kept whole in 'index' mode: they are few and small, and the session state (labels, the
 * name, the dialect, the model and thinking level of a context) reads them. Everything else (messages,
 * custom entries, compactions and branch summaries with their long summaries) is read back on demand.
 */
const KEPT_WHOLE_TYPES: ReadonlySet<unknown> = new Set([
  'label',
  'session_info',
  'title_change',
  'model_change',
  'thinking_level_change',
  'mode_change',
  'ttsr_injection',
]);

/** Thrown when an entry cannot be read back from the file as it was indexed; nothing is returned. */
export class EntryReadError extends Error {
  constructor(
    /** The 1-based line the entry was indexed from. */
    readonly line: number,
    /** The id of the entry that was asked for. */
    readonly entryId: string,
    message: string,
  ) {
    super(message);
    this.name = 'EntryReadError';
  }
}

/** What the index keeps of an entry in 'index' mode: the fields the tree needs and where its line is. */
export class EntryStub {
  constructor(
    readonly type: unknown,
    readonly id: string,
    readonly parentId: unknown,
    readonly timestamp: unknown,
    /** Byte offset and length of the line's JSON text in the file, line ending excluded. */
    readonly offset: number,
    readonly length: number,
    readonly line: number,
  ) {}
}

/** Where an entry's line is in the file. */
export interface LineSpan {
  offset: number;
  length: number;
  line: number;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // Structural fields of damaged lines may be objects; compare them as JSON.
  return typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b);
}

function quote(id: string): string {
  return JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
}

export class EntryStore {
  private readonly cache = new Map<EntryStub, SessionEntry>();
  private readonly decoder = utf8Decoder();
  private reader: RangeReader | undefined;

  constructor(
    readonly retention: EntryRetention,
    reader: RangeReader | undefined,
    private readonly cacheSize = DEFAULT_ENTRY_CACHE_SIZE,
  ) {
    this.reader = reader;
  }

  /**
   * The reader of the file the session now reads from; undefined when there is none (a session
   * without a file, or a new file whose storage cannot read ranges): entries are then kept whole.
   */
  setReader(reader: RangeReader | undefined): void {
    this.reader = reader;
    this.cache.clear();
  }

  /** Whether entries from now on are kept as stubs. */
  get dropsEntries(): boolean {
    return this.retention === 'index' && this.reader !== undefined;
  }

  /**
   * What the index should keep of `entry`, read from (or just written to) `span` of the file: the
   * entry itself, or a stub. Without a span (the entry is not in the file the reader reads) it is kept.
   */
  retain(entry: SessionEntry, span: LineSpan | undefined): SessionEntry {
    if (!span || !this.dropsEntries || KEPT_WHOLE_TYPES.has(entry.type)) return entry;
    const stub = new EntryStub(
      entry.type,
      entry.id,
      entry.parentId,
      entry.timestamp,
      span.offset,
      span.length,
      span.line,
    );
    return stub as unknown as SessionEntry;
  }

  /** Puts a full entry in the cache (an entry this session just wrote, likely to be read next). */
  remember(retained: SessionEntry, entry: SessionEntry): void {
    if (retained instanceof EntryStub) this.cacheSet(retained, entry);
  }

  /**
   * The full entry for what the index kept: itself, or the entry read back from the file. A bulk walk
   * over every entry passes `cache = false` so it does not evict the entries read one at a time.
   */
  full(retained: SessionEntry, cache = true): SessionEntry {
    if (!(retained instanceof EntryStub)) return retained;
    const cached = this.cache.get(retained);
    if (cached) {
      if (cache) {
        // Most recently used last: Map iteration order is insertion order.
        this.cache.delete(retained);
        this.cache.set(retained, cached);
      }
      return cached;
    }
    const entry = this.read(retained);
    if (cache) this.cacheSet(retained, entry);
    return entry;
  }

  private cacheSet(stub: EntryStub, entry: SessionEntry): void {
    this.cache.set(stub, entry);
    if (this.cache.size > this.cacheSize) {
      const oldest = this.cache.keys().next().value as EntryStub;
      this.cache.delete(oldest);
    }
  }

  private read(stub: EntryStub): SessionEntry {
    const where = `line ${stub.line} (${stub.length} bytes at byte ${stub.offset})`;
    const fail = (what: string): never => {
      throw new EntryReadError(
        stub.line,
        stub.id,
        `Cannot read entry ${quote(stub.id)} back from ${where}: ${what}`,
      );
    };
    if (!this.reader) return fail('the session has no reader for its file');
    let bytes: Uint8Array;
    try {
      bytes = this.reader(stub.offset, stub.length);
    } catch (error) {
      return fail(`the read failed (${error instanceof Error ? error.message : String(error)})`);
    }
    if (bytes.length !== stub.length) {
      return fail(`only ${bytes.length} bytes could be read; the file is shorter than when it was indexed`);
    }
    let value: unknown;
    try {
      value = JSON.parse(this.decoder.decode(bytes));
    } catch {
      return fail('the bytes there are not a JSON line any more; the file changed on disk');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return fail('the bytes there are not a JSON object any more; the file changed on disk');
    }
    const entry = value as SessionEntry;
    if (entry.id !== stub.id) {
      const found = typeof entry.id === 'string' ? `entry ${quote(entry.id)}` : 'an entry without that id';
      return fail(`found ${found} there instead; the file changed on disk`);
    }
    if (
      !sameValue(entry.type, stub.type) ||
      !sameValue(entry.parentId, stub.parentId) ||
      !sameValue(entry.timestamp, stub.timestamp)
    ) {
      return fail('the entry there has a different type, parent or time; the file changed on disk');
    }
    return entry;
  }
}
