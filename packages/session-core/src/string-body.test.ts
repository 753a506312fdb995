// The string scanner of the skeleton scan: the WebAssembly module is the one its source builds, it is
// the one in use here, and it answers exactly as the TypeScript definition on every kind of input
// (plain runs across its sixteen-byte blocks, cuts inside and beside multi-byte sequences and escapes,
// escapes split by the line's end, control and high bytes), for lines in turn and lines that make its
// memory grow or are too long to copy.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { seededRandom } from '../../fixtures/src/determinism';
import { LineStrings, scanStringInBytes, usesWasm, WASM_LINE_LIMIT } from './string-body';
import type { StringScan } from './string-body';

const encoder = new TextEncoder();
const bytesOf = (text: string) => encoder.encode(text);

interface WasmMemory {
  grow(pages: number): number;
}

/** The definition's answer. */
function defined(bytes: Uint8Array, from: number, end: number, keepUnits = 0x7fffffff): StringScan {
  const result = { quote: -1, cutAt: -1 };
  scanStringInBytes(bytes, from, end, keepUnits, result);
  return result;
}

/** The scanner's answer (WebAssembly here). */
function scanned(line: LineStrings, from: number, keepUnits?: number): StringScan {
  line.scan(from, keepUnits);
  return { quote: line.quote, cutAt: line.cutAt };
}

/** Bytes a string body is made of, weighted towards the ones the scanner decides on. */
const ALPHABET = Uint8Array.of(
  ...bytesOf('""\\\\\\uuu0aF9g/bfnrtx  abcdefgh'),
  ...[0x00, 0x09, 0x0a, 0x1f, 0x20, 0x7f, 0x80, 0x9f, 0xbf, 0xc3, 0xe2, 0xf0, 0xff],
);

function randomBody(random: () => number, length: number, plainShare: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    bytes[i] =
      random() < plainShare
        ? 0x61 + Math.floor(random() * 26)
        : ALPHABET[Math.floor(random() * ALPHABET.length)]!;
  }
  return bytes;
}

describe('the WebAssembly module', () => {
  test('is built from string-body.wat (node scripts/build-wasm.mjs --check)', () => {
    const root = join(__dirname, '..', '..', '..');
    const result = spawnSync(process.execPath, [join(root, 'scripts', 'build-wasm.mjs'), '--check'], {
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  test('is in use in Node', () => {
    expect(usesWasm()).toBe(true);
  });
});

describe('scanStringInBytes', () => {
  const scan = (text: string, keepUnits?: number) =>
    defined(bytesOf(text), 0, bytesOf(text).length, keepUnits);

  test('without a cut: the closing quote, escapes skipped unchecked', () => {
    expect(scan('abc"rest')).toEqual({ quote: 3, cutAt: -1 });
    expect(scan('\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uABCD"')).toEqual({ quote: 28, cutAt: -1 });
    expect(scan('a\\x\tb"')).toEqual({ quote: 5, cutAt: -1 });
    expect(scan('abc', 10)).toEqual({ quote: -1, cutAt: -1 });
  });

  test('cuts at the first unit start with the budget behind it, counting an escape and a sequence as one', () => {
    expect(scan('abcdef"', 3)).toEqual({ quote: 6, cutAt: 3 });
    expect(scan('\\u00e9\\nxyz"', 2)).toEqual({ quote: 11, cutAt: 8 });
    // é is two bytes, 😀 four: the cut is never inside either.
    expect(scan('éé😀x"', 2)).toEqual({ quote: 9, cutAt: 4 });
    expect(scan('éé😀x"', 3)).toEqual({ quote: 9, cutAt: 8 });
    expect(scan('abc"', 3)).toEqual({ quote: 3, cutAt: -1 });
  });

  test('checks the rest of a cut body as JSON.parse would', () => {
    for (const rest of ['\\x"', '\\u12g4"', '\\u123"', '\there"', '\u0000"', '\\', 'abc']) {
      expect(scan(`ab${rest}`, 1), rest).toEqual({ quote: -1, cutAt: -1 });
      expect(() => JSON.parse(`"ab${rest}`)).toThrow();
    }
    expect(scan('ab\u007f"', 1)).toEqual({ quote: 3, cutAt: 1 });
  });
});

describe('LineStrings', () => {
  test('answers as the definition for every start and budget, across block boundaries', () => {
    const random = seededRandom(20261203);
    for (let round = 0; round < 300; round++) {
      const body = randomBody(random, 1 + Math.floor(random() * 90), round % 2 === 0 ? 0.9 : 0.3);
      // The line sits inside a larger buffer, as lines do in a chunk read from a file.
      const lead = Math.floor(random() * 7);
      const buffer = new Uint8Array(lead + body.length + 5).fill(0x22);
      buffer.set(body, lead);
      const lineEnd = lead + body.length;
      const line = new LineStrings(buffer, lead, lineEnd);
      for (let from = lead; from <= lineEnd; from++) {
        for (const keep of [undefined, 0, 1, 5, 17, 40]) {
          expect(scanned(line, from, keep), `round ${round} from ${from} keep ${keep}`).toEqual(
            defined(buffer, from, lineEnd, keep),
          );
        }
      }
    }
  });

  test('finds a quote, a control byte or the cut at each position of a long plain run', () => {
    for (let at = 0; at < 40; at++) {
      for (const special of [0x22, 0x01, 0x5c]) {
        const bytes = new Uint8Array(48).fill(0x61);
        bytes.fill(0x22, 46);
        bytes[at] = special;
        if (special === 0x5c) bytes[at + 1] = 0x78; // \x: malformed when checked
        const line = new LineStrings(bytes, 0, bytes.length);
        for (const keep of [undefined, 0, at, at + 1, 30]) {
          expect(scanned(line, 0, keep), `${special} at ${at}, keep ${keep}`).toEqual(
            defined(bytes, 0, bytes.length, keep),
          );
        }
      }
    }
  });

  test('stays right when lines alternate and when a line outgrows the memory', () => {
    const short = bytesOf('abc"');
    const long = new Uint8Array(200_000).fill(0x62);
    long[150_000] = 0x22;
    const first = new LineStrings(short, 0, short.length);
    const second = new LineStrings(long, 0, long.length);
    expect(scanned(first, 0)).toEqual({ quote: 3, cutAt: -1 });
    expect(scanned(second, 0, 320)).toEqual({ quote: 150_000, cutAt: 320 });
    expect(scanned(first, 1, 1)).toEqual({ quote: 3, cutAt: 2 });
    expect(scanned(second, 150_001)).toEqual({ quote: -1, cutAt: -1 });
  });

  test('scans a line longer than the limit with the fallback', () => {
    const huge = new Uint8Array(WASM_LINE_LIMIT + 16).fill(0x63);
    huge[huge.length - 2] = 0x22;
    huge[10] = 0x5c;
    huge[11] = 0x6e;
    expect(scanned(new LineStrings(huge, 0, huge.length), 0, 320)).toEqual({
      quote: huge.length - 2,
      cutAt: 321,
    });
    huge[400] = 0x0a;
    expect(scanned(new LineStrings(huge, 0, huge.length), 0, 320)).toEqual({ quote: -1, cutAt: -1 });
    expect(scanned(new LineStrings(huge, 0, huge.length), 0)).toEqual({ quote: huge.length - 2, cutAt: -1 });
  });

  test('scans a line where it is when the memory cannot grow for it', () => {
    // (WebAssembly is not in this project's types: session-core is typed without DOM types.)
    const { Memory } = (globalThis as unknown as { WebAssembly: { Memory: { prototype: WasmMemory } } })
      .WebAssembly;
    const grow = vi.spyOn(Memory.prototype, 'grow').mockImplementation(() => {
      throw new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded');
    });
    try {
      const line = new Uint8Array(WASM_LINE_LIMIT - 1024).fill(0x64);
      line[line.length - 1] = 0x22;
      expect(scanned(new LineStrings(line, 0, line.length), 0, 320)).toEqual({
        quote: line.length - 1,
        cutAt: 320,
      });
      expect(grow).toHaveBeenCalled();
    } finally {
      grow.mockRestore();
    }
  });
});
