import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stateOf } from '../files/confined';
import { FileTail } from './file-tail';
import { hashThreadForTests, RunningHash } from './running-hash';

/** Deterministic bytes (a linear congruential generator), so a failure reproduces. */
function bytesOf(length: number, seed: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    bytes[i] = state >>> 24;
  }
  return bytes;
}

function sha256(...parts: Uint8Array[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
}

describe('RunningHash', () => {
  it('answers the SHA-256 of what was added, however it was split, with several hashes interleaved', () => {
    const data = [bytesOf(9 << 20, 1), bytesOf(3 << 20, 2), bytesOf(777_777, 3)];
    const hashes = data.map(() => new RunningHash());
    // Pieces of many sizes (empty, one byte, a slot, more than the whole ring), taken in turns.
    const sizes = [0, 1, 4096, 1 << 20, (1 << 20) + 1, 10 << 20, 65_537];
    const at = data.map(() => 0);
    for (let turn = 0; at.some((offset, i) => offset < data[i]!.length); turn++) {
      for (let i = 0; i < data.length; i++) {
        const size = sizes[(turn + i) % sizes.length]!;
        const piece = data[i]!.subarray(at[i], at[i]! + size);
        hashes[i]!.add(piece);
        at[i]! += piece.length;
        // Asked midway, as a poll may: the bytes so far, and more may be added after.
        if (turn === 2) expect(hashes[i]!.digest()).toBe(sha256(data[i]!.subarray(0, at[i])));
      }
    }
    for (let i = 0; i < data.length; i++) expect(hashes[i]!.digest()).toBe(sha256(data[i]!));
    expect(new RunningHash().digest()).toBe(sha256());
  });

  it('hashes on its own thread, and a buffer reused for the next piece does not change what was hashed', () => {
    const before = hashThreadForTests.hashedBytes();
    const hash = new RunningHash();
    const buffer = Buffer.alloc(3 << 20);
    const pieces: Buffer[] = [];
    for (let seed = 10; seed < 20; seed++) {
      bytesOf(buffer.length, seed).copy(buffer);
      pieces.push(Buffer.from(buffer));
      hash.add(buffer);
    }
    expect(hash.digest()).toBe(sha256(...pieces));
    // Every byte was hashed by the helper thread, none on this one.
    expect(hashThreadForTests.hashedBytes() - before).toBe(30 << 20);
  });
});

describe('RunningHash when its thread stops', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('answers no SHA-256 for what the thread held, so the tail reads the file again; new hashes start a new thread', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-hash-'));
    const file = path.join(dir, 'session.jsonl');
    const content = Buffer.from('{"type":"session","id":"s"}\n{"type":"message","id":"a"}\n');
    fs.writeFileSync(file, content);
    const tail = new FileTail(file);
    tail.took(content);
    const fd = fs.openSync(file, 'r');
    try {
      tail.loaded(stateOf(fs.fstatSync(fd)), false);
      // The file as a later look sees it: touched (its change time moved), the same size.
      let touches = 0;
      const seen = () => {
        const now = stateOf(fs.fstatSync(fd));
        return { ...now, ctimeMs: now.ctimeMs + ++touches };
      };
      // Everything one look yields, and why it asks for a reload (if it does).
      const lookAt = (state: ReturnType<typeof seen>) => {
        const look = tail.look(fd, state);
        const news: unknown[] = [];
        for (let step = look.next(); ; step = look.next()) {
          if (step.done) return { news, reload: step.value };
          news.push(step.value);
        }
      };
      // Touched without growing, bytes the same: nothing to do while the hash is known.
      expect(lookAt(seen())).toEqual({ news: [], reload: undefined });
      await hashThreadForTests.stop();
      // The hash is lost with the thread: the file can no longer be shown to be what was read.
      expect(lookAt(seen())).toEqual({ news: [], reload: 'rewritten' });
    } finally {
      fs.closeSync(fd);
    }
    const fresh = new RunningHash();
    const before = hashThreadForTests.hashedBytes();
    fresh.add(content);
    expect(fresh.digest()).toBe(sha256(content));
    expect(hashThreadForTests.hashedBytes() - before).toBe(content.length);
  });
});
