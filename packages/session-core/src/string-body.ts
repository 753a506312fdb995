// One JSON string of a line, scanned as the skeleton scan (line-scan.ts) needs it: how far its body
// goes before the cut (the first safe point past a budget of UTF-16 units), and, when it is cut, that
// the rest is a valid JSON string body up to its closing quote. Long strings are most of a large
// session's bytes, and a byte loop in JavaScript spent 2–6 ns on each: about a quarter of a 100 MB
// open. The same scan in WebAssembly with 128-bit SIMD (string-body.wat) takes sixteen plain bytes at
// a time.
// {@link scanStringInBytes} is the definition, and the fallback where WebAssembly is unavailable or a
// line is too long to copy; the two agree on every input (string-body.test.ts).

import { WASM_HEX } from './string-body.wasm';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LETTER_U = 0x75;

/** `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t`: the one-character escapes JSON has. */
function isSimpleEscape(byte: number): boolean {
  return (
    byte === QUOTE ||
    byte === BACKSLASH ||
    byte === 0x2f ||
    byte === 0x62 ||
    byte === 0x66 ||
    byte === 0x6e ||
    byte === 0x72 ||
    byte === 0x74
  );
}

function isHexDigit(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

/** What one string's scan found: its closing quote and where it is cut (both -1 when invalid). */
export interface StringScan {
  /** -1: the line ends first, or the cut body's rest is not valid JSON. */
  quote: number;
  /** -1: not cut. */
  cutAt: number;
}

/**
 * Scans the string whose body starts at `from` in `bytes[..end)`. Its UTF-16 units are counted low (a
 * 4-byte UTF-8 sequence and an escape count one each) up to the first byte that starts a unit with
 * `keepUnits` behind it: that is the cut. A body without a cut is left to JSON.parse (its escapes are
 * skipped unchecked); a cut body's rest must be valid JSON up to the closing quote (no control byte,
 * well-formed escapes). Written into `into` (no allocation per string).
 */
export function scanStringInBytes(
  bytes: Uint8Array,
  from: number,
  end: number,
  keepUnits: number,
  into: StringScan,
): void {
  let i = from;
  let units = 0;
  into.quote = -1;
  into.cutAt = -1;
  while (i < end) {
    const c = bytes[i]!;
    if (c === QUOTE) {
      into.quote = i;
      return;
    }
    if (c < 0x80 || c >= 0xc0) {
      if (units >= keepUnits) {
        into.quote = validBodyEnd(bytes, i, end);
        if (into.quote >= 0) into.cutAt = i;
        return;
      }
      units++;
      if (c === BACKSLASH) {
        // Kept escapes are checked by JSON.parse; a malformed one stays in the line and fails it.
        i += bytes[i + 1] === LETTER_U ? 6 : 2;
        continue;
      }
    }
    i++;
  }
}

/** The closing quote of a body from `i`, checked as JSON.parse would; -1 when invalid or unterminated. */
function validBodyEnd(bytes: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const c = bytes[i]!;
    if (c === QUOTE) return i;
    if (c === BACKSLASH) {
      if (i + 1 >= end) return -1;
      const escaped = bytes[i + 1]!;
      if (escaped === LETTER_U) {
        if (i + 5 >= end) return -1;
        for (let h = i + 2; h < i + 6; h++) if (!isHexDigit(bytes[h]!)) return -1;
        i += 6;
      } else if (isSimpleEscape(escaped)) {
        i += 2;
      } else {
        return -1;
      }
      continue;
    }
    if (c < 0x20) return -1;
    i++;
  }
  return -1;
}

/**
 * Lines longer than this are scanned by the fallback: the module's memory grows to the longest line
 * copied into it and never shrinks, so one huge line must not pin its size for the process's life.
 */
export const WASM_LINE_LIMIT = 8 << 20;

const PAGE_BYTES = 65536;
/** No cut: more units than any line has. */
const NEVER = 0x7fffffff;

/** What this file needs of the WebAssembly API (session-core is typed without DOM or Node types). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}

interface StringScanExports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  cutAt: { value: number };
  scanString(from: number, end: number, keep: number): number;
}

/** Instantiated on first use (nothing runs at import); undefined where WebAssembly is unavailable. */
let instance: StringScanExports | null | undefined = null;
let memoryBytes = new Uint8Array(0);
/** Which {@link LineStrings} has its line in the module's memory now (by serial number). */
let lineInMemory = 0;
let linesMade = 0;

function wasmInstance(): StringScanExports | undefined {
  if (instance !== null) return instance;
  instance = undefined;
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (api === undefined) return undefined;
  try {
    const bytes = new Uint8Array(WASM_HEX.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(WASM_HEX.slice(2 * i, 2 * i + 2), 16);
    // Synchronous: the module is under a kilobyte, within what browsers compile on the main thread.
    instance = new api.Instance(new api.Module(bytes)).exports as StringScanExports;
    memoryBytes = new Uint8Array(instance.memory.buffer);
  } catch {
    // No SIMD, or a content security policy without 'wasm-unsafe-eval': the fallback serves.
  }
  return instance;
}

/**
 * Scans the strings of one line, `bytes[start..end)`, as {@link scanStringInBytes} does; each scan's
 * result is in `quote` and `cutAt`. The line is copied into the module's memory at the first scan (and
 * again if another line was scanned since).
 */
export class LineStrings implements StringScan {
  quote = -1;
  cutAt = -1;
  private wasm: StringScanExports | undefined;
  private readonly serial = ++linesMade;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly start: number,
    private readonly end: number,
  ) {
    this.wasm = end - start <= WASM_LINE_LIMIT ? wasmInstance() : undefined;
  }

  /** The string whose body starts at `from`; `keepUnits` undefined: never cut (an object key). */
  scan(from: number, keepUnits: number | undefined): void {
    const wasm = this.wasm;
    if (wasm === undefined) {
      scanStringInBytes(this.bytes, from, this.end, keepUnits ?? NEVER, this);
      return;
    }
    const start = this.start;
    const length = this.end - start;
    if (lineInMemory !== this.serial) {
      if (memoryBytes.length < length) {
        try {
          wasm.memory.grow(Math.ceil((length - memoryBytes.length) / PAGE_BYTES));
        } catch {
          // No memory for a copy of this line: it is scanned where it is.
          this.wasm = undefined;
          this.scan(from, keepUnits);
          return;
        }
        // Growing detaches the old buffer.
        memoryBytes = new Uint8Array(wasm.memory.buffer);
      }
      memoryBytes.set(this.bytes.subarray(start, this.end), 0);
      lineInMemory = this.serial;
    }
    const found = wasm.scanString(from - start, length, keepUnits ?? NEVER);
    if (found >= -1) {
      this.quote = found < 0 ? -1 : found + start;
      this.cutAt = -1;
    } else {
      this.quote = -2 - found + start;
      this.cutAt = wasm.cutAt.value + start;
    }
  }
}

/** Whether the WebAssembly scanner is in use here (for tests: the fallback is tested on its own). */
export function usesWasm(): boolean {
  return wasmInstance() !== undefined;
}
