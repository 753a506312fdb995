// The skeleton scan: an "abridged" parse of one JSONL line, for loading a session that keeps only its
// index (docs/architecture.md#state, "The skeleton scan"). One pass over the line's bytes, without
// decoding them, finds every string value longer than the tree ever needs and cuts it to a prefix; the
// line is rebuilt from what is left, and only that is decoded and `JSON.parse`d. The result has the
// shape of the full entry with some long strings cut short; it is good for the tree's skeleton (ids,
// row and search text, flags, usage) and nothing else, and it is marked with {@link ABRIDGED}.
//
// Exactness: the abridged line is valid JSON exactly when the full line is, and every skeleton field
// derived from it equals the one from the full entry:
// - Only string bodies are removed, each the tail after a safe point (before an ASCII byte, a UTF-8
//   lead byte or an escape, never inside one), and every removed tail is validated as a JSON string
//   body (no control bytes, well-formed escapes, a closing quote); string-body.ts scans each string.
//   Everything kept is validated by `JSON.parse` itself; if it throws, the caller parses the full line
//   for the exact error.
// - Outside string bodies the bytes are kept as they are, so keys, numbers, literals, nesting,
//   duplicate keys (the last one wins) and key order parse exactly as in the full line.
// - A cut string keeps at least {@link ABRIDGE_KEEP_UNITS} UTF-16 units of the decoded string (counted
//   low: a 4-byte sequence as one unit) and is a prefix of the full string, because the decoder's
//   replacement of invalid UTF-8 never spans a safe point.
// - Which fields may be cut is decided by {@link abridgedEntryIsExact} from the entry's type and the
//   keys the cut strings sat under; anything else (and any doubt) takes the full parse.
// One file because the scanner and the guard are one proof: what may be cut is decided by where the
// scan found it.

import { LineStrings } from './string-body';
import { hasTextContent, isRecord } from './text';

/**
 * A cut string keeps at least this many UTF-16 units. Every skeleton field reads less of a string it
 * may be cut from: the 200-character preview of message text, the list row's first user message (300),
 * a tool call's JSON shown in 40 characters. Longer reads (whole summaries, commands, paths) come from
 * fields that are never cut.
 */
export const ABRIDGE_KEEP_UNITS = 320;

/** Marks an abridged entry (its own symbol-keyed property: invisible to JSON and `Object.keys`). */
export const ABRIDGED: unique symbol = Symbol('canopy.abridged');

/** Whether an entry came from an abridged parse: some of its long strings are cut short. */
export function isAbridged(entry: object): boolean {
  return (entry as { [ABRIDGED]?: true })[ABRIDGED] === true;
}

/** Where a cut string was: the key it is the value of (or the array's key), and whether it is inside tool data. */
export interface StringCut {
  /** The member name, or undefined when it is not a plain ASCII key (then nothing may be cut there). */
  key: string | undefined;
  /** Inside an object or array held by an `arguments`, `details` or `data` member (tool and extension data). */
  inData: boolean;
}

export interface AbridgedLine {
  /** The rebuilt line's bytes (a view of a reused buffer: decode it before the next call). */
  bytes: Uint8Array;
  cuts: StringCut[];
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const OBJECT = 0;
const ARRAY = 1;

/** The text of a key's bytes (quotes included in the range) when it is plain ASCII without escapes. */
function plainKey(bytes: Uint8Array, start: number, end: number): string | undefined {
  if (start < 0) return undefined;
  let key = '';
  for (let i = start + 1; i < end - 1; i++) {
    const byte = bytes[i]!;
    if (byte >= 0x80 || byte === BACKSLASH) return undefined;
    key += String.fromCharCode(byte);
  }
  return key;
}

const DATA_KEYS: ReadonlySet<string> = new Set(['arguments', 'details', 'data']);

let scratch = new Uint8Array(1 << 16);

/**
 * Scans one line (`bytes[start..end)`, no line ending) and cuts its long string values. Returns
 * undefined when nothing was cut, or when the line is not well-formed where a string would be cut (an
 * unterminated string, a bad escape or a control byte in a removed tail): the caller then parses the
 * full line, which also gives the exact error. Object keys are never cut.
 */
export function abridgeLine(
  bytes: Uint8Array,
  start: number,
  end: number,
  keepUnits = ABRIDGE_KEEP_UNITS,
): AbridgedLine | undefined {
  // The open containers, each with the byte range of the key it is the value of (-1: none).
  const kinds: number[] = [];
  const keyStarts: number[] = [];
  const keyEnds: number[] = [];
  // The last key read in the innermost object: the key of the value that follows it.
  let keyStart = -1;
  let keyEnd = -1;
  let expectKey = false;
  let cuts: StringCut[] | undefined;
  let written = 0;
  let copyFrom = start;
  let i = start;
  let strings: LineStrings | undefined;
  while (i < end) {
    const byte = bytes[i]!;
    if (byte !== QUOTE) {
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        const depth = kinds.length;
        const inObject = depth > 0 && kinds[depth - 1] === OBJECT;
        keyStarts.push(depth === 0 ? -1 : inObject ? keyStart : keyStarts[depth - 1]!);
        keyEnds.push(depth === 0 ? -1 : inObject ? keyEnd : keyEnds[depth - 1]!);
        kinds.push(byte === OPEN_BRACE ? OBJECT : ARRAY);
        expectKey = byte === OPEN_BRACE;
      } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        if (kinds.length === 0) return undefined;
        kinds.pop();
        keyStarts.pop();
        keyEnds.pop();
        expectKey = false;
      } else if (byte === COMMA) {
        expectKey = kinds.length > 0 && kinds[kinds.length - 1] === OBJECT;
      } else if (byte === COLON) {
        expectKey = false;
      }
      i++;
      continue;
    }

    // A string: the units of what would be kept are counted up to the first safe point past the
    // budget; a cut string's removed tail is checked as a JSON string body up to its closing quote.
    const open = i;
    const isKey = expectKey;
    strings ??= new LineStrings(bytes, start, end);
    strings.scan(i + 1, isKey ? undefined : keepUnits);
    if (strings.quote < 0) return undefined;
    const cutAt = strings.cutAt;
    i = strings.quote;
    if (cutAt >= 0) {
      const kept = cutAt - copyFrom;
      if (written + kept > scratch.length) {
        const grown = new Uint8Array(Math.max(scratch.length * 2, written + kept + (end - i)));
        grown.set(scratch.subarray(0, written));
        scratch = grown;
      }
      scratch.set(bytes.subarray(copyFrom, cutAt), written);
      written += kept;
      copyFrom = i;
      cuts ??= [];
      cuts.push(describeCut(bytes, kinds, keyStarts, keyEnds, keyStart, keyEnd));
    }
    i++;
    if (isKey) {
      keyStart = open;
      keyEnd = i;
      expectKey = false;
    }
  }
  if (cuts === undefined) return undefined;
  const rest = end - copyFrom;
  if (written + rest > scratch.length) {
    const grown = new Uint8Array(Math.max(scratch.length * 2, written + rest));
    grown.set(scratch.subarray(0, written));
    scratch = grown;
  }
  scratch.set(bytes.subarray(copyFrom, end), written);
  written += rest;
  return { bytes: scratch.subarray(0, written), cuts };
}

function describeCut(
  bytes: Uint8Array,
  kinds: readonly number[],
  keyStarts: readonly number[],
  keyEnds: readonly number[],
  keyStart: number,
  keyEnd: number,
): StringCut {
  const depth = kinds.length;
  let key: string | undefined;
  if (depth > 0) {
    key =
      kinds[depth - 1] === OBJECT
        ? plainKey(bytes, keyStart, keyEnd)
        : plainKey(bytes, keyStarts[depth - 1]!, keyEnds[depth - 1]!);
  }
  let inData = false;
  for (let d = 0; d < depth && !inData; d++) {
    const name = plainKey(bytes, keyStarts[d]!, keyEnds[d]!);
    inData = name !== undefined && DATA_KEYS.has(name);
  }
  return { key, inData };
}

/**
 * Members of a message whose string values the skeleton reads at most {@link ABRIDGE_KEEP_UNITS} of:
 * text and string content (previews and the first user message), and bodies it never reads (thinking,
 * signatures, image data, bash output).
 */
const MESSAGE_BODY_KEYS: ReadonlySet<string> = new Set([
  'text',
  'content',
  'thinking',
  'thinkingSignature',
  'textSignature',
  'signature',
  'data',
  'output',
]);

/** Tool-call arguments a tool result's row shows whole or normalised (see `formatToolCall`): never cut. */
const SHOWN_ARGUMENT_KEYS: ReadonlySet<string> = new Set([
  'path',
  'file_path',
  'pattern',
  'command',
  'offset',
  'limit',
]);

/**
 * Whether the skeleton of an abridged entry (its view entry, usage, tool calls and list-row facts)
 * is provably the one of the full entry, given where its strings were cut. Only message, compaction
 * and custom entries qualify, and only with cuts in members the skeleton reads a short prefix of, or
 * not at all; a cut in text also needs the kept prefix to have non-blank text (the "has text" test of
 * the filters cannot see past a blank prefix).
 */
export function abridgedEntryIsExact(entry: Record<string, unknown>, cuts: readonly StringCut[]): boolean {
  switch (entry.type) {
    case 'message': {
      let textCut = false;
      for (const cut of cuts) {
        if (cut.key === undefined) return false;
        if (cut.inData) {
          if (SHOWN_ARGUMENT_KEYS.has(cut.key)) return false;
          continue;
        }
        if (!MESSAGE_BODY_KEYS.has(cut.key)) return false;
        if (cut.key === 'text' || cut.key === 'content') textCut = true;
      }
      if (!textCut) return true;
      const message = entry.message;
      return isRecord(message) && hasTextContent(message.content);
    }
    case 'compaction':
      // Its row reads only tokensBefore; the summary and the file lists in details are not read.
      return cuts.every((cut) => cut.inData || cut.key === 'summary');
    case 'custom':
      // Its row reads only customType; what it carries is in data.
      return cuts.every((cut) => cut.inData || cut.key === 'data');
    default:
      return false;
  }
}
