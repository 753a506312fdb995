// Where a JSON string body ends, checked as JSON.parse would check it (no control byte, well-formed
// escapes). The skeleton scan (line-scan.ts) asks this for every long string it cuts, and the cut
// tails are most of a large session's bytes: a byte loop in JavaScript spends ~2–4 ns on each, which
// was a quarter of a 100 MB open. The same loop in WebAssembly with 128-bit SIMD (string-body.wat)
// skips sixteen plain bytes at a time. {@link stringBodyEndInBytes} is the definition and the fallback
// where WebAssembly is unavailable (or a line is too long to copy); the two agree on every input
// (string-body.test.ts).

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

/**
 * The index of the quote that closes the string body going on at `from` in `bytes[..end)`, or -1 when
 * the body is not valid JSON before it (a control byte or a malformed escape) or `end` comes first.
 */
export function stringBodyEndInBytes(bytes: Uint8Array, from: number, end: number): number {
  let i = from;
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

/** What this file needs of the WebAssembly API (session-core is typed without DOM or Node types). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}

interface StringBodyExports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  stringBodyEnd(from: number, end: number): number;
}

/** Instantiated on first use (nothing runs at import); undefined where WebAssembly is unavailable. */
let instance: StringBodyExports | null | undefined = null;
let memoryBytes = new Uint8Array(0);
/** Which {@link LineStringBodies} has its line in the module's memory now (by serial number). */
let lineInMemory = 0;
let linesMade = 0;

function wasmInstance(): StringBodyExports | undefined {
  if (instance !== null) return instance;
  instance = undefined;
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (api === undefined) return undefined;
  try {
    const bytes = new Uint8Array(WASM_HEX.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(WASM_HEX.slice(2 * i, 2 * i + 2), 16);
    // Synchronous: the module is a few hundred bytes, within what browsers compile on the main thread.
    instance = new api.Instance(new api.Module(bytes)).exports as StringBodyExports;
    memoryBytes = new Uint8Array(instance.memory.buffer);
  } catch {
    // No SIMD, or a content security policy without 'wasm-unsafe-eval': the fallback serves.
  }
  return instance;
}

/**
 * Finds the ends of string bodies in one line, `bytes[start..end)`. The line is copied into the
 * module's memory once, at the first question (a line whose strings are all short asks none).
 */
export class LineStringBodies {
  private readonly wasm: StringBodyExports | undefined;
  private readonly serial = ++linesMade;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly start: number,
    private readonly end: number,
  ) {
    this.wasm = end - start <= WASM_LINE_LIMIT ? wasmInstance() : undefined;
  }

  /** {@link stringBodyEndInBytes} from `from` to the line's end. */
  bodyEnd(from: number): number {
    const wasm = this.wasm;
    if (wasm === undefined) return stringBodyEndInBytes(this.bytes, from, this.end);
    const length = this.end - this.start;
    if (lineInMemory !== this.serial) {
      if (memoryBytes.length < length) {
        wasm.memory.grow(Math.ceil((length - memoryBytes.length) / PAGE_BYTES));
        // Growing detaches the old buffer.
        memoryBytes = new Uint8Array(wasm.memory.buffer);
      }
      memoryBytes.set(this.bytes.subarray(this.start, this.end), 0);
      lineInMemory = this.serial;
    }
    const found = wasm.stringBodyEnd(from - this.start, length);
    return found < 0 ? -1 : found + this.start;
  }
}

/** Whether the WebAssembly scanner is in use here (for tests: the fallback is tested on its own). */
export function usesWasm(): boolean {
  return wasmInstance() !== undefined;
}
