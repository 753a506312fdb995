// The bounded line scans of the family (docs/archive-and-family.md#subagent-lanes): the lines holding
// a needle, whatever piece boundaries cut them, the last line without a newline, an archive, the cap;
// and the whole bounded read a lane makes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { scanLinesBounded, scanLinesHolding, TooLargeForRead, wholeFileBounded } from './family-heads';

let dir = '';
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  dir = '';
});

function write(name: string, content: string | Buffer): string {
  dir ||= fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-scan-')));
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

const lines = [
  '{"a":1}',
  '{"name":"task","é":"ü"}',
  'x'.repeat(50),
  '{"toolName":"task","long":"' + 'y'.repeat(40) + '"}',
  'no',
  'last "task" without newline',
];
const text = lines.join('\n');

describe('family line scans', () => {
  it.each([1, 3, 7, 16, 1024])(
    'finds every line holding the needle with %i-byte pieces',
    async (pieceBytes) => {
      const file = write('s.jsonl', text);
      const seen: string[] = [];
      const { complete } = await scanLinesHolding(file, '"task"', { maxBytes: 1 << 20, pieceBytes }, (line) =>
        seen.push(line),
      );
      expect(complete).toBe(true);
      expect(seen).toEqual([lines[1], lines[3], lines[5]]);
      const all: string[] = [];
      await scanLinesBounded(file, { maxBytes: 1 << 20, pieceBytes }, (line) => all.push(line));
      expect(all).toEqual(lines);
    },
  );

  it('stops at the cap, reads archives inflated, and a whole read refuses past its bound', async () => {
    const file = write('s.jsonl', text);
    const seen: string[] = [];
    const capped = await scanLinesHolding(file, '"task"', { maxBytes: 16, pieceBytes: 16 }, (line) =>
      seen.push(line),
    );
    expect(capped.complete).toBe(false);
    expect(seen).toEqual([]);
    const archive = write('a.jsonl.gz', gzipSync(Buffer.from(text)));
    const fromArchive: string[] = [];
    await scanLinesHolding(archive, '"task"', { maxBytes: 1 << 20 }, (line) => fromArchive.push(line));
    expect(fromArchive).toEqual([lines[1], lines[3], lines[5]]);
    const pieces: Buffer[] = [];
    for await (const piece of wholeFileBounded(file, 1 << 20)) pieces.push(piece);
    expect(Buffer.concat(pieces).toString()).toBe(text);
    await expect(async () => {
      for await (const piece of wholeFileBounded(file, 10)) pieces.push(piece);
    }).rejects.toBeInstanceOf(TooLargeForRead);
  });
});
