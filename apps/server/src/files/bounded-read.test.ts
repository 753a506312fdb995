// The shared reader of every file that is not a session file (docs/safety.md#confinement): no final
// link followed, no FIFO waited on, checked on the descriptor, bounded before a byte is read.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FileSafetyError,
  readBoundedNoFollow,
  readBoundedNoFollowSync,
  type BoundedRead,
  type BoundedReadOptions,
} from './confined';

type Reader = (file: string, options: BoundedReadOptions) => Promise<BoundedRead>;

const readers: Array<[string, Reader]> = [
  ['async', readBoundedNoFollow],
  ['sync', async (file, options) => readBoundedNoFollowSync(file, options)],
];

async function refusal(read: Promise<unknown>): Promise<string> {
  try {
    await read;
  } catch (error) {
    if (error instanceof FileSafetyError) return error.reason;
    throw error;
  }
  return 'read';
}

describe.each(readers)('readBoundedNoFollow (%s)', (_name, read) => {
  let dir: string;
  let folder: string;
  let outside: string;
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-bounded-')));
    folder = path.join(dir, 'folder');
    outside = path.join(dir, 'outside');
    fs.mkdirSync(folder);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(folder, 'a.json'), '{"a":1}');
    fs.writeFileSync(path.join(outside, 'secret.json'), '{"secret":true}');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads a regular file inside its folder, from the descriptor', async () => {
    const result = await read(path.join(folder, 'a.json'), { maxBytes: 100 });
    expect(result.bytes.toString()).toBe('{"a":1}');
    expect(result).toMatchObject({ size: 7, truncated: false, real: path.join(folder, 'a.json') });
  });

  it('refuses a final symbolic link, even to a file beside it, and never reads through it', async () => {
    fs.symlinkSync(path.join(outside, 'secret.json'), path.join(folder, 'out.json'));
    fs.symlinkSync(path.join(folder, 'a.json'), path.join(folder, 'same.json'));
    fs.symlinkSync('/dev/zero', path.join(folder, 'zero'));
    for (const name of ['out.json', 'same.json', 'zero']) {
      expect(await refusal(read(path.join(folder, name), { maxBytes: 100 })), name).toBe('outside-roots');
    }
  });

  it('a FIFO opens at once and is refused as not a file (no writer is waited for)', async () => {
    const fifo = path.join(folder, 'pipe');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(await refusal(read(fifo, { maxBytes: 100 }))).toBe('not-a-file');
    expect(await refusal(read(folder, { maxBytes: 100, inside: [dir] }))).toBe('not-a-file');
  });

  it('a file larger than the bound is refused before reading, or read up to the bound with truncate', async () => {
    const big = path.join(folder, 'big');
    fs.writeFileSync(big, '0123456789');
    fs.truncateSync(big, 1 << 30); // a sparse 1 GB file
    expect(await refusal(read(big, { maxBytes: 1024 }))).toBe('too-large');
    const start = await read(big, { maxBytes: 4, truncate: true });
    expect(start.bytes.toString()).toBe('0123');
    expect(start).toMatchObject({ size: 1 << 30, truncated: true });
  });

  it('refuses a file whose folder now links elsewhere, checked on the descriptor against `inside`', async () => {
    const linked = path.join(dir, 'linked');
    fs.symlinkSync(outside, linked);
    // The caller resolved the folder before the swap: the descriptor is elsewhere.
    expect(await refusal(read(path.join(linked, 'secret.json'), { maxBytes: 100, inside: [folder] }))).toBe(
      'outside-roots',
    );
    // Without `inside`, the folder is resolved at the open: inside its own (real) folder is fine.
    const own = await read(path.join(linked, 'secret.json'), { maxBytes: 100 });
    expect(own.real).toBe(path.join(outside, 'secret.json'));
  });

  it('a missing file is `deleted`', async () => {
    expect(await refusal(read(path.join(folder, 'none.json'), { maxBytes: 100 }))).toBe('deleted');
  });
});
