// The string-body scanner: the WebAssembly module is the one its source builds, it is the one in use
// here, and it answers exactly as the TypeScript definition on every kind of input (plain runs across
// its sixteen-byte blocks, escapes split by the line's end, control and high bytes), for lines in turn
// and lines that make its memory grow or are too long to copy.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { seededRandom } from '../../fixtures/src/determinism';
import { LineStringBodies, stringBodyEndInBytes, usesWasm, WASM_LINE_LIMIT } from './string-body';

const encoder = new TextEncoder();
const bytesOf = (text: string) => encoder.encode(text);

/** Bytes a string body is made of, weighted towards the ones the scanner decides on. */
const ALPHABET = Uint8Array.of(
  ...bytesOf('""\\\\\\uuu0aF9g/bfnrtx  abcdefgh'),
  ...[0x00, 0x09, 0x0a, 0x1f, 0x20, 0x7f, 0x80, 0xc3, 0xff],
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

describe('stringBodyEndInBytes', () => {
  const end = (text: string, from = 0) => stringBodyEndInBytes(bytesOf(text), from, bytesOf(text).length);

  test('finds the closing quote past every escape JSON has', () => {
    expect(end('abc"rest')).toBe(3);
    expect(end('\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uABCD"')).toBe(28);
    expect(end('é"')).toBe(2);
  });

  test('rejects what JSON.parse rejects before the quote', () => {
    for (const body of ['a\\x"', 'a\\u12g4"', 'a\\u123"', 'tab\there"', 'nul\u0000"', 'a\\']) {
      expect(end(body), body).toBe(-1);
      expect(() => JSON.parse(`"${body}`)).toThrow();
    }
    expect(end('a\u007f"')).toBe(2);
  });

  test('is -1 when the line ends first, also inside an escape', () => {
    for (const body of ['abc', 'ab\\', 'ab\\u12', 'ab\\u123']) expect(end(body), body).toBe(-1);
  });
});

describe('LineStringBodies', () => {
  test('answers as stringBodyEndInBytes for every start, across block boundaries', () => {
    const random = seededRandom(20261203);
    for (let round = 0; round < 400; round++) {
      const body = randomBody(random, 1 + Math.floor(random() * 90), round % 2 === 0 ? 0.9 : 0.3);
      // The line sits inside a larger buffer, as lines do in a chunk read from a file.
      const lead = Math.floor(random() * 7);
      const buffer = new Uint8Array(lead + body.length + 5);
      buffer.set(body, lead);
      const lineEnd = lead + body.length;
      const line = new LineStringBodies(buffer, lead, lineEnd);
      for (let from = lead; from <= lineEnd; from++) {
        expect(line.bodyEnd(from), `round ${round} from ${from}`).toBe(
          stringBodyEndInBytes(buffer, from, lineEnd),
        );
      }
    }
  });

  test('finds a quote or a control byte at each position of a long plain run', () => {
    for (let at = 0; at < 40; at++) {
      for (const special of [0x22, 0x01, 0x5c]) {
        const bytes = new Uint8Array(48).fill(0x61);
        bytes[at] = special;
        if (special === 0x5c) bytes[at + 1] = 0x78; // \x: malformed
        const expected = special === 0x22 ? at : -1;
        expect(new LineStringBodies(bytes, 0, bytes.length).bodyEnd(0), `${special} at ${at}`).toBe(expected);
        expect(stringBodyEndInBytes(bytes, 0, bytes.length)).toBe(expected);
      }
    }
  });

  test('stays right when lines alternate and when a line outgrows the memory', () => {
    const short = bytesOf('abc"');
    const long = new Uint8Array(200_000).fill(0x62);
    long[150_000] = 0x22;
    const first = new LineStringBodies(short, 0, short.length);
    const second = new LineStringBodies(long, 0, long.length);
    expect(first.bodyEnd(0)).toBe(3);
    expect(second.bodyEnd(0)).toBe(150_000);
    expect(first.bodyEnd(1)).toBe(3);
    expect(second.bodyEnd(150_001)).toBe(-1);
  });

  test('scans a line longer than the limit with the fallback', () => {
    const huge = new Uint8Array(WASM_LINE_LIMIT + 16).fill(0x63);
    huge[huge.length - 2] = 0x22;
    huge[10] = 0x5c;
    huge[11] = 0x6e;
    expect(new LineStringBodies(huge, 0, huge.length).bodyEnd(0)).toBe(huge.length - 2);
    huge[12] = 0x0a;
    expect(new LineStringBodies(huge, 0, huge.length).bodyEnd(0)).toBe(-1);
  });
});
