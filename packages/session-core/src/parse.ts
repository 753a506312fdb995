// Incremental JSONL parser for session files, built for tailing a file that another process is still
// appending to: it takes chunks of bytes (or text), yields complete "\n"-terminated lines only, keeps a
// partial last line buffered, and reports every line it cannot use as an issue with its line number.
// It never throws on file content.
// One file because line splitting, JSON parsing, entry validation and issue reporting share one state
// machine per chunk.

import { ABRIDGED, abridgedEntryIsExact, abridgeLine } from './line-scan';
import { getSessionVersion } from './migrate';
import { KNOWN_ENTRY_TYPES } from './entry-types';
import { CURRENT_SESSION_VERSION } from './types';
import type { IssueKind, ParseIssue, SessionEntry, SessionHeader } from './types';

/** The fixed-width title slot line that newer oh-my-pi files put before the header (docs/format.md#lines). */
export interface TitleSlot {
  type: 'title';
  title?: string;
  [key: string]: unknown;
}

export interface ParsedHeader {
  line: number;
  header: SessionHeader;
}

/**
 * [OMP] The title slot a line holds (a whole line of JSON, newline or not, whose `type` is "title"), or
 * undefined for anything else: oh-my-pi rewrites the line in place on a rename, so a reader that finds
 * it mid-rewrite or replaced keeps the title it had.
 */
export function parseTitleSlot(line: string): TitleSlot | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  return (value as { type?: unknown }).type === 'title' ? (value as TitleSlot) : undefined;
}

export interface ParsedTitleSlot {
  line: number;
  slot: TitleSlot;
}

export interface ParsedEntry {
  /** 1-based line number in the file. */
  line: number;
  entry: SessionEntry;
  /**
   * Byte offset of the line's first character in the file (after a byte-order mark at the file start)
   * and its byte length without the line ending ("\n" or "\r\n"): the exact bytes that were parsed.
   */
  offset: number;
  length: number;
}

/** What one `push` (or `end`) produced. */
export interface ParseBatch {
  header?: ParsedHeader;
  titleSlot?: ParsedTitleSlot;
  entries: ParsedEntry[];
  issues: ParseIssue[];
}

export interface Utf8Decoder {
  decode(input: Uint8Array): string;
}
interface Utf8Encoder {
  encode(input: string): Uint8Array;
  encodeInto(input: string, destination: Uint8Array): { read: number; written: number };
}

// TextDecoder and TextEncoder exist in Node 20 and in browsers; reaching them through globalThis keeps
// this package free of the DOM and Node type libraries.
const codecs = globalThis as unknown as {
  TextDecoder: new (label: string, options: { fatal: boolean; ignoreBOM: boolean }) => Utf8Decoder;
  TextEncoder: new () => Utf8Encoder;
};

const NEWLINE_BYTE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const OPEN_BRACE = 0x7b;
const BYTE_ORDER_MARK = 0xfeff;
const MAX_REASON_LENGTH = 160;
/**
 * Shorter lines are not scanned for long strings: what cutting them could save is less than the scan
 * costs (a measured choice, see bench/log/2026-history.md#the-skeleton-scan-line-scants-before-and-after).
 */
const ABRIDGE_MIN_LINE_BYTES = 2048;

/** UTF-8 length of a short string, counted in JS. */
function utf8LengthByCounting(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) {
      bytes += 1;
    } else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        // A surrogate pair: two UTF-16 units, four bytes.
        bytes += 2;
        i++;
      } else {
        bytes += 2;
      }
    } else {
      // Three bytes; a lone surrogate is encoded as U+FFFD, also three bytes.
      bytes += 2;
    }
  }
  return bytes;
}

const ENCODE_WINDOW = 1 << 15;
let encodeBuffer: Uint8Array | undefined;

/**
 * UTF-8 length of a string without keeping its encoding: long strings are encoded natively, one window
 * at a time, into a reused buffer (a JS loop over every character would cost more than the parsing).
 */
export function utf8Length(text: string): number {
  if (text.length < 256) return utf8LengthByCounting(text);
  const encoder = sharedEncoder();
  // Each UTF-16 unit needs at most three bytes.
  encodeBuffer ??= new Uint8Array(ENCODE_WINDOW * 3);
  let bytes = 0;
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + ENCODE_WINDOW, text.length);
    // Never split a surrogate pair between two windows.
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    bytes += encoder.encodeInto(text.slice(start, end), encodeBuffer).written;
    start = end;
  }
  return bytes;
}

let encoderInstance: Utf8Encoder | undefined;
/** A decoder with the parser's settings: invalid bytes become U+FFFD, a U+FEFF is kept. */
export function utf8Decoder(): Utf8Decoder {
  return new codecs.TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
}

/** The UTF-8 bytes of a string (a lone surrogate becomes U+FFFD). */
export function utf8Encode(text: string): Uint8Array {
  return sharedEncoder().encode(text);
}

function sharedEncoder(): Utf8Encoder {
  encoderInstance ??= new codecs.TextEncoder();
  return encoderInstance;
}

function describeNonObject(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return typeof value;
}

function shorten(text: string): string {
  return text.length > MAX_REASON_LENGTH ? `${text.slice(0, MAX_REASON_LENGTH)}…` : text;
}

function issue(line: number, kind: IssueKind, detail: string): ParseIssue {
  return { line, kind, message: `line ${line}: ${detail}` };
}

function emptyBatch(): ParseBatch {
  return { entries: [], issues: [] };
}

/**
 * A copy of `bytes` in memory of its own. Not `bytes.slice()`: a Node `Buffer` (a `Uint8Array`) answers
 * `slice` with a view of the same memory, which a caller reusing its read buffer overwrites.
 */
function copyBytes(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return copy;
}

function concatBytes(parts: readonly Uint8Array[], total: number): Uint8Array {
  const joined = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

type HeaderState = 'expecting' | 'found' | 'absent';

/**
 * Splits a growing session file into lines and classifies each one: header, entry, or issue.
 *
 * - Chunks are `Uint8Array`s or strings. Byte chunks are split at the newline byte before decoding:
 *   0x0A never occurs inside a multi-byte UTF-8 sequence, so a character split across chunks stays
 *   whole in the buffered partial line, and `consumedBytes` is exact without re-encoding anything.
 * - `\r\n` endings are accepted, blank lines skipped, a byte-order mark at the very start ignored.
 * - The header is expected on the first line that is a JSON object (the reference likewise ignores
 *   unparsable lines before it). Without one, the entries still load and `header` stays undefined.
 * - In a v1 file (a header without `version`) entries have no ids yet: they are passed through for the
 *   migration to number them instead of being reported.
 */
export class SessionLineParser {
  private headerState: HeaderState = 'expecting';
  private currentHeader: SessionHeader | undefined;
  private currentTitleSlot: TitleSlot | undefined;
  private fileVersion: number | undefined;
  private completeLines = 0;
  private countedBytes = 0;
  private pendingByteParts: Uint8Array[] = [];
  private pendingByteCount = 0;
  private pendingTextParts: string[] = [];
  private atFileStart = true;
  // Keeps a U+FEFF that is not at the start of the file: each decode call would otherwise drop one at
  // the start of every region. The one at the file start is stripped by hand.
  private readonly decoder: Utf8Decoder = utf8Decoder();

  /**
   * Whether entries without an id are passed through (for the v1 migration) instead of being reported
   * as `missing-id`. Set from the header; a caller that has rewritten a migrated file turns it off.
   */
  allowEntriesWithoutId = false;

  /**
   * Whether lines read from bytes may be parsed abridged (see line-scan.ts): long strings cut short,
   * the entry marked with `ABRIDGED`. Only for a caller that keeps no entry it is handed but a stub
   * (a SessionManager loading with retain 'index'); never while the header is still expected or for a
   * legacy file that will be migrated.
   */
  abridgeLongStrings = false;

  /** The session header, once its line has been read. */
  get header(): SessionHeader | undefined {
    return this.currentHeader;
  }

  /** Newer oh-my-pi's title slot line before the header, if the file has one. */
  get titleSlot(): TitleSlot | undefined {
    return this.currentTitleSlot;
  }

  /** Whether the next JSON object line would be taken as the header (nothing but noise read so far). */
  get expectingHeader(): boolean {
    return this.headerState === 'expecting';
  }

  /** The format version the header declared when it was read (undefined without a header). */
  get version(): number | undefined {
    return this.fileVersion;
  }

  /** Number of complete lines consumed, blank and bad ones included; the next line is this + 1. */
  get lineCount(): number {
    return this.completeLines;
  }

  /** Byte offset just after the last complete line: where to resume reading the file. */
  get consumedBytes(): number {
    return this.countedBytes;
  }

  /** Bytes of a partial last line held back until its newline arrives. */
  get pendingBytes(): number {
    let total = this.pendingByteCount;
    for (const text of this.pendingTextParts) total += utf8Length(text);
    return total;
  }

  /** Feeds the next chunk of the file; returns what the lines completed by it contain. */
  push(chunk: Uint8Array | string): ParseBatch {
    const batch = emptyBatch();
    if (chunk.length === 0) return batch;
    if (typeof chunk === 'string') {
      if (this.pendingByteParts.length > 0) this.pushBytes(sharedEncoder().encode(chunk), batch);
      else this.pushText(chunk, batch);
    } else {
      if (this.pendingTextParts.length > 0) {
        // Switching from text to bytes mid-line: continue in bytes, which is always well defined.
        const pendingText = this.pendingTextParts.join('');
        this.pendingTextParts = [];
        const encoded = sharedEncoder().encode(pendingText);
        this.pendingByteParts = [encoded];
        this.pendingByteCount = encoded.length;
      }
      this.pushBytes(chunk, batch);
    }
    return batch;
  }

  /**
   * Reports a buffered partial last line as `truncated-line`, without consuming it: more bytes may
   * still complete it. A remainder of only whitespace is not an issue.
   */
  remainderIssue(): ParseIssue | undefined {
    const bytes = this.pendingBytes;
    if (bytes === 0 || this.pendingIsBlank()) return undefined;
    return issue(
      this.completeLines + 1,
      'truncated-line',
      `cut off: the last line has no terminating newline (${bytes} bytes so far); it is ignored until it is complete`,
    );
  }

  /** The end of the input: a non-blank partial last line is reported as `truncated-line` and dropped. */
  end(): ParseBatch {
    const batch = emptyBatch();
    const remainder = this.remainderIssue();
    if (remainder) batch.issues.push(remainder);
    this.pendingByteParts = [];
    this.pendingByteCount = 0;
    this.pendingTextParts = [];
    return batch;
  }

  /**
   * Accounts for complete lines this process wrote itself (they are not parsed again). `header` is
   * the header line's object when `text` starts the file with it.
   */
  noteWritten(text: string, header?: SessionHeader): void {
    if (this.pendingBytes > 0)
      throw new Error('Cannot account for written lines while a partial line is buffered');
    if (header !== undefined) this.adoptHeader(header);
    this.countLines(text);
  }

  /** Starts over on a file this process has just replaced with `text` (a complete rewrite). */
  restart(text: string, header: SessionHeader | undefined, titleSlot?: TitleSlot): void {
    this.headerState = 'expecting';
    this.currentHeader = undefined;
    this.fileVersion = undefined;
    this.allowEntriesWithoutId = false;
    this.currentTitleSlot = titleSlot;
    this.completeLines = 0;
    this.countedBytes = 0;
    this.pendingByteParts = [];
    this.pendingByteCount = 0;
    this.pendingTextParts = [];
    this.atFileStart = text.length === 0;
    if (header !== undefined) this.adoptHeader(header);
    this.countLines(text);
  }

  /**
   * Starts over on a file this process has just written whole, of `lines` complete lines and `bytes`
   * bytes (streamed, so there is no text to count), starting with `header` (after `titleSlot`).
   */
  restartCounted(
    lines: number,
    bytes: number,
    header: SessionHeader | undefined,
    titleSlot?: TitleSlot,
  ): void {
    this.restart('', header, titleSlot);
    this.completeLines = lines;
    this.countedBytes = bytes;
    this.atFileStart = bytes === 0;
  }

  private adoptHeader(header: SessionHeader): void {
    this.headerState = 'found';
    this.currentHeader = header;
    this.fileVersion = getSessionVersion(header);
    this.allowEntriesWithoutId = this.fileVersion < 2;
  }

  private countLines(text: string): void {
    if (text.length === 0) return;
    this.atFileStart = false;
    let newline = text.indexOf('\n');
    while (newline !== -1) {
      this.completeLines++;
      newline = text.indexOf('\n', newline + 1);
    }
    this.countedBytes += utf8Length(text);
  }

  private pendingIsBlank(): boolean {
    for (const part of this.pendingByteParts) {
      for (let i = 0; i < part.length; i++) {
        const byte = part[i] as number;
        if (byte === 0x20 || byte === 0x09 || byte === CARRIAGE_RETURN) continue;
        if (byte < 0x80) return false;
        // A non-ASCII byte may belong to Unicode whitespace (or a byte-order mark): decide exactly like
        // a complete line would be judged, by decoding and trimming.
        const joined = concatBytes(this.pendingByteParts, this.pendingByteCount);
        return this.decoder.decode(joined).trim().length === 0;
      }
    }
    for (const part of this.pendingTextParts) {
      if (part.trim().length > 0) return false;
    }
    return true;
  }

  private pushText(chunk: string, batch: ParseBatch): void {
    const lastNewline = chunk.lastIndexOf('\n');
    if (lastNewline === -1) {
      this.pendingTextParts.push(chunk);
      return;
    }
    let region = chunk.slice(0, lastNewline + 1);
    if (this.pendingTextParts.length > 0) {
      this.pendingTextParts.push(region);
      region = this.pendingTextParts.join('');
    }
    this.pendingTextParts = lastNewline + 1 < chunk.length ? [chunk.slice(lastNewline + 1)] : [];
    const regionOffset = this.countedBytes;
    this.countedBytes += utf8Length(region);
    this.consumeLines(region, batch, regionOffset);
  }

  private pushBytes(chunk: Uint8Array, batch: ParseBatch): void {
    const lastNewline = chunk.lastIndexOf(NEWLINE_BYTE);
    if (lastNewline === -1) {
      // Copy: the caller may reuse its buffer for the next read.
      this.pendingByteParts.push(copyBytes(chunk));
      this.pendingByteCount += chunk.length;
      return;
    }
    let region = chunk.subarray(0, lastNewline + 1);
    if (this.pendingByteParts.length > 0) {
      // Only the line the pending bytes start is joined; the rest of the chunk is decoded in place,
      // so a file read in large pieces is not copied a second time.
      const firstNewline = chunk.indexOf(NEWLINE_BYTE);
      this.pendingByteParts.push(chunk.subarray(0, firstNewline + 1));
      const joined = concatBytes(this.pendingByteParts, this.pendingByteCount + firstNewline + 1);
      const joinedOffset = this.countedBytes;
      this.countedBytes += joined.length;
      this.consumeRegion(joined, batch, joinedOffset);
      region = chunk.subarray(firstNewline + 1, lastNewline + 1);
    }
    this.pendingByteParts =
      lastNewline + 1 < chunk.length ? [copyBytes(chunk.subarray(lastNewline + 1))] : [];
    this.pendingByteCount = chunk.length - lastNewline - 1;
    const regionOffset = this.countedBytes;
    this.countedBytes += region.length;
    if (region.length > 0) this.consumeRegion(region, batch, regionOffset);
  }

  /** Complete lines of bytes: decoded whole, or line by line when lines may be abridged. */
  private consumeRegion(region: Uint8Array, batch: ParseBatch, regionOffset: number): void {
    if (this.abridgeLongStrings) this.consumeLineBytes(region, batch, regionOffset);
    else this.consumeLines(this.decoder.decode(region), batch, regionOffset, region);
  }

  /**
   * `consumeLines` over bytes, for a parser that may abridge: a long line whose abridged parse is
   * usable (see line-scan.ts) is never decoded whole; every other line is decoded and parsed as
   * today, together with its neighbours in one decode call. The same line ends ("\r\n" too), blank
   * lines and byte-order mark at the file start.
   */
  private consumeLineBytes(bytes: Uint8Array, batch: ParseBatch, regionOffset: number): void {
    let start = 0;
    if (this.atFileStart) {
      this.atFileStart = false;
      // U+FEFF in UTF-8.
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
    }
    // The lines from here to `start` are not abridged; they are decoded as one run.
    let runStart = start;
    const flushRun = (runEnd: number) => {
      const run = bytes.subarray(runStart, runEnd);
      this.consumeLines(this.decoder.decode(run), batch, regionOffset + runStart, run);
      runStart = runEnd;
    };
    const length = bytes.length;
    while (start < length) {
      const newline = bytes.indexOf(NEWLINE_BYTE, start);
      let end = newline;
      if (end > start && bytes[end - 1] === CARRIAGE_RETURN) end--;
      // Whether a line may be abridged depends on the header, which may be in the run.
      if (this.headerState === 'expecting' && runStart < start) flushRun(start);
      const abridged =
        end - start >= ABRIDGE_MIN_LINE_BYTES && bytes[start] === OPEN_BRACE && this.mayAbridge()
          ? this.abridgedObject(bytes, start, end)
          : undefined;
      if (abridged) {
        if (runStart < start) flushRun(start);
        this.completeLines++;
        this.classifyObject(abridged, this.completeLines, batch, regionOffset + start, end - start);
        runStart = newline + 1;
      }
      start = newline + 1;
    }
    if (runStart < length) flushRun(length);
  }

  /** The line's abridged object, marked, when the scan cut something and its skeleton is exact. */
  private abridgedObject(bytes: Uint8Array, start: number, end: number): Record<string, unknown> | undefined {
    const abridged = abridgeLine(bytes, start, end);
    if (!abridged) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(this.decoder.decode(abridged.bytes));
    } catch {
      // The full line's own parse reports it (with its own message).
      return undefined;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    const object = value as Record<string, unknown>;
    if (!abridgedEntryIsExact(object, abridged.cuts)) return undefined;
    (object as { [ABRIDGED]?: true })[ABRIDGED] = true;
    return object;
  }

  /** Abridged entries only once the header is settled and the file needs no migration. */
  private mayAbridge(): boolean {
    return (
      this.headerState !== 'expecting' &&
      !this.allowEntriesWithoutId &&
      (this.fileVersion === undefined || this.fileVersion >= CURRENT_SESSION_VERSION)
    );
  }

  /**
   * `text` holds complete lines only: it ends with "\n". `regionOffset` is the file offset of its first
   * byte; `bytes`, when the text was decoded from bytes, are those bytes: each line's byte span is found
   * by the same newline in them (0x0A is never part of a multi-byte character). From a string, each
   * line's UTF-8 length is counted instead.
   */
  private consumeLines(text: string, batch: ParseBatch, regionOffset: number, bytes?: Uint8Array): void {
    let start = 0;
    let byteStart = 0;
    if (this.atFileStart) {
      this.atFileStart = false;
      if (text.charCodeAt(0) === BYTE_ORDER_MARK) {
        start = 1;
        // U+FEFF is three bytes in UTF-8 (EF BB BF), whether it came from bytes or from a string.
        byteStart = 3;
      }
    }
    const length = text.length;
    while (start < length) {
      const newline = text.indexOf('\n', start);
      let end = newline;
      if (end > start && text.charCodeAt(end - 1) === CARRIAGE_RETURN) end--;
      this.completeLines++;
      const raw = end > start ? text.slice(start, end) : '';
      let byteLength: number;
      let byteNext: number;
      if (bytes) {
        const byteNewline = bytes.indexOf(NEWLINE_BYTE, byteStart);
        byteLength = byteNewline - byteStart - (newline - end);
        byteNext = byteNewline + 1;
      } else {
        byteLength = utf8Length(raw);
        byteNext = byteStart + byteLength + (newline - end) + 1;
      }
      if (end > start)
        this.classifyLine(raw, this.completeLines, batch, regionOffset + byteStart, byteLength);
      start = newline + 1;
      byteStart = byteNext;
    }
  }

  private classifyLine(raw: string, line: number, batch: ParseBatch, offset: number, length: number): void {
    // Nearly every line starts with "{": only other lines pay for the blank check.
    if (raw.charCodeAt(0) !== OPEN_BRACE && raw.trim().length === 0) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      batch.issues.push(issue(line, 'invalid-json', `not valid JSON (${shorten(reason)}); skipped`));
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      batch.issues.push(issue(line, 'not-object', `${describeNonObject(value)}, not a JSON object; skipped`));
      return;
    }
    this.classifyObject(value as Record<string, unknown>, line, batch, offset, length);
  }

  private classifyObject(
    value: Record<string, unknown>,
    line: number,
    batch: ParseBatch,
    offset: number,
    length: number,
  ): void {
    const type = value.type;
    if (this.headerState === 'expecting') {
      if (type === 'session') {
        if (typeof value.id === 'string') {
          const header = value as SessionHeader;
          this.adoptHeader(header);
          batch.header = { line, header };
        } else {
          this.headerState = 'absent';
          batch.issues.push(
            issue(line, 'invalid-header', 'the session header has no string "id"; it is ignored'),
          );
        }
        return;
      }
      if (type === 'title' && this.currentTitleSlot === undefined) {
        const slot = value as TitleSlot;
        this.currentTitleSlot = slot;
        batch.titleSlot = { line, slot };
        return;
      }
      this.headerState = 'absent';
      batch.issues.push(
        issue(
          line,
          'missing-header',
          `the file does not start with a session header (found ${
            typeof type === 'string' ? `a "${shorten(type)}" entry` : 'an object without a type'
          }); the entries are loaded without one`,
        ),
      );
    } else if (type === 'session') {
      batch.issues.push(
        issue(line, 'extra-header', 'a second session header; ignored (only the first one counts)'),
      );
      return;
    }

    const id = value.id;
    if (typeof type !== 'string') {
      // With an id it is a node of the tree (others may hang under it): kept verbatim, like an
      // entry of an unknown type. Without one there is nothing to place.
      if (typeof id === 'string' && id.length > 0) {
        batch.issues.push(issue(line, 'unknown-type', 'an entry without a string "type"; kept as it is'));
        batch.entries.push({ line, entry: value as unknown as SessionEntry, offset, length });
      } else {
        batch.issues.push(issue(line, 'invalid-entry', 'an entry without a string "type"; skipped'));
      }
      return;
    }
    if ((typeof id !== 'string' || id.length === 0) && !this.allowEntriesWithoutId) {
      const what =
        id === undefined ? 'has no id' : typeof id === 'string' ? 'has an empty id' : 'has a non-string id';
      batch.issues.push(issue(line, 'missing-id', `a "${shorten(type)}" entry that ${what}; skipped`));
      return;
    }
    if (!KNOWN_ENTRY_TYPES.has(type)) {
      batch.issues.push(issue(line, 'unknown-type', `unknown entry type "${shorten(type)}"; kept as it is`));
    }
    batch.entries.push({ line, entry: value as SessionEntry, offset, length });
  }
}

/** The result of parsing a whole file at once (no migration, no index). */
export interface ParsedSessionText {
  header: SessionHeader | undefined;
  titleSlot: TitleSlot | undefined;
  /** Entries in file order; v1 entries still lack ids. */
  entries: SessionEntry[];
  /** 1-based file line of each entry, parallel to `entries`. */
  entryLines: number[];
  issues: ParseIssue[];
  /** The version the header declares (absent means 1); undefined without a header. */
  version: number | undefined;
  /** The header is older than the current format: load it through the migrations. */
  needsMigration: boolean;
}

/** Parses a complete file's text; a last line without its newline is reported as `truncated-line`. */
export function parseSessionText(text: string): ParsedSessionText {
  const parser = new SessionLineParser();
  const batch = parser.push(text);
  const tail = parser.end();
  return {
    header: parser.header,
    titleSlot: parser.titleSlot,
    entries: batch.entries.map((parsed) => parsed.entry),
    entryLines: batch.entries.map((parsed) => parsed.line),
    issues: [...batch.issues, ...tail.issues],
    version: parser.version,
    needsMigration: parser.version !== undefined && parser.version < CURRENT_SESSION_VERSION,
  };
}
