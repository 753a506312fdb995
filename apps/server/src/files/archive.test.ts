// Archives decompressed in bounded pieces with limits (docs/safety.md#archives).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ArchiveError, archivePieces, type ArchiveLimits } from './archive';

const LINES = Buffer.from(
  Array.from(
    { length: 20_000 },
    (_, i) => `{"type":"message","id":"m${i}","text":"${(i * 7919).toString(36)}"}\n`,
  ).join(''),
);

async function collect(file: string, limits?: ArchiveLimits): Promise<Buffer[]> {
  const pieces: Buffer[] = [];
  for await (const piece of archivePieces(file, limits)) pieces.push(Buffer.from(piece));
  return pieces;
}

async function failure(file: string, limits?: ArchiveLimits): Promise<ArchiveError> {
  try {
    await collect(file, limits);
  } catch (error) {
    if (error instanceof ArchiveError) return error;
    throw error;
  }
  throw new Error('no failure');
}

describe('archivePieces', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-archive-')));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function write(name: string, bytes: Uint8Array): string {
    const file = path.join(dir, name);
    fs.writeFileSync(file, bytes);
    return file;
  }

  it('yields the lines in pieces of at most 256 KiB, exactly as they were compressed', async () => {
    const pieces = await collect(write('a.jsonl.gz', gzipSync(LINES)));
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.every((piece) => piece.length <= 256 << 10)).toBe(true);
    expect(Buffer.concat(pieces).equals(LINES)).toBe(true);
  });

  it('says a zero-filled or garbage archive is damaged, and an empty or cut-off one is cut off', async () => {
    expect(await failure(write('zeros.jsonl.gz', Buffer.alloc(4096)))).toMatchObject({
      kind: 'corrupt',
      code: 'SESSION_INVALID',
      message: expect.stringMatching(/^The archive is damaged \(incorrect header check/),
    });
    expect(await failure(write('text.jsonl.gz', LINES.subarray(0, 1000)))).toMatchObject({ kind: 'corrupt' });
    expect(await failure(write('empty.jsonl.gz', Buffer.alloc(0)))).toMatchObject({ kind: 'truncated' });
    const whole = gzipSync(LINES);
    expect(await failure(write('cut.jsonl.gz', whole.subarray(0, whole.length >> 1)))).toMatchObject({
      kind: 'truncated',
      message: expect.stringMatching(/^The archive is cut off after \d+ decompressed bytes/),
    });
  });

  it('stops at the size limit and at the ratio limit, with PAYLOAD_TOO_LARGE', async () => {
    const file = write('a.jsonl.gz', gzipSync(LINES));
    const small: ArchiveLimits = { maxBytes: 100_000, maxRatio: 1000, ratioAfterBytes: 0 };
    expect(await failure(file, small)).toMatchObject({ kind: 'too-large', code: 'PAYLOAD_TOO_LARGE' });
    // 64 MB of one repeated line: ~1000× smaller compressed; stopped once 1 MiB is out.
    const bomb = write('bomb.jsonl.gz', gzipSync(Buffer.alloc(64 << 20, '{"type":"x"}\n')));
    const pieces: number[] = [];
    await expect(
      (async () => {
        for await (const piece of archivePieces(bomb)) pieces.push(piece.length);
      })(),
    ).rejects.toMatchObject({
      kind: 'too-large',
      message: expect.stringMatching(/more than 100 times its size/),
    });
    expect(pieces.reduce((sum, n) => sum + n, 0)).toBeLessThan(2 << 20);
  });
});
