// The migration rewrite's two file operations, taken on their own: the replace of a session file
// from pieces and the exact backup copied in pieces (docs/safety.md#migration-rewrite).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  backupExactSync,
  createConfinedLinesSync,
  createConfinedSync,
  FileSafetyError,
  piecesOfSync,
  replaceConfinedSync,
  statConfinedSync,
  withConfinedSync,
  type ExactContent,
} from './confined';

describe('the migration rewrite, in pieces', () => {
  let dir: string;
  let file: string;
  const original = Buffer.from(Array.from({ length: 200 }, (_, i) => `{"line":${i}}\n`).join(''));
  const inRoots = () => true;
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-confined-')));
    file = path.join(dir, 's.jsonl');
    fs.writeFileSync(file, original, { mode: 0o640 });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const beside = () => fs.readdirSync(dir).filter((name) => name !== 's.jsonl');

  it('replaces the file with the pieces as they are produced, keeping its permission bits', () => {
    const seen = statConfinedSync(file);
    const pieces = ['{"a":1}\n', '{"b":2}\n', '{"c":3}\n'].map((text) => Buffer.from(text));
    const state = replaceConfinedSync(file, pieces, seen, inRoots);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"a":1}\n{"b":2}\n{"c":3}\n');
    expect(state.size).toBe(24);
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
    expect(beside()).toEqual([]);
  });

  it('a piece that cannot be produced half-way: its own error, the file byte-identical, no temporary file', () => {
    const seen = statConfinedSync(file);
    const failure = new Error('entry 30 could not be read back');
    function* pieces(): Generator<Buffer> {
      yield Buffer.from('{"a":1}\n');
      throw failure;
    }
    expect(() => replaceConfinedSync(file, pieces(), seen, inRoots)).toThrow(failure);
    expect(fs.readFileSync(file).equals(original)).toBe(true);
    expect(beside()).toEqual([]);
  });

  /** The file's content as read, its pieces read through `fd` in 100 bytes. */
  function contentIn(fd: number): ExactContent {
    return {
      size: original.length,
      sha256: createHash('sha256').update(original).digest('hex'),
      pieces: () => piecesOfSync(fd, 0, original.length, 100),
    };
  }

  it('copies an exact backup piece by piece', () => {
    const backup = withConfinedSync(file, (fd) =>
      backupExactSync(file, 1, contentIn(fd), 0o640, inRoots, 100),
    );
    expect(backup).toBe(`${file}.v1.bak`);
    expect(fs.readFileSync(backup).equals(original)).toBe(true);
    expect(beside()).toEqual(['s.jsonl.v1.bak']);
  });

  it('a file changed in place between the check and the copy: FILE_CHANGED, no backup and nothing else beside it', () => {
    const changed = Buffer.from(original);
    changed[original.length - 3] = 0x38; // same size: the last line's 199 becomes 198
    const error = withConfinedSync(file, (fd) => {
      fs.writeFileSync(file, changed);
      try {
        backupExactSync(file, 1, contentIn(fd), 0o640, inRoots, 100);
      } catch (caught) {
        return caught;
      }
      return undefined;
    });
    expect(error).toBeInstanceOf(FileSafetyError);
    expect((error as FileSafetyError).reason).toBe('changed');
    expect(beside()).toEqual([]);
  });
});

describe('a new file (branch, fork)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-create-')));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('appears whole or not at all: while its lines are written only a hidden temporary file exists', () => {
    const file = path.join(dir, 'new.jsonl');
    const seen: string[][] = [];
    function* lines(): Generator<string> {
      for (let i = 0; i < 3000; i++) {
        // Looked at between batches: a crash here must leave no session cut off mid-line.
        if (i % 1000 === 999) seen.push(fs.readdirSync(dir));
        yield JSON.stringify({ line: i, text: 'x'.repeat(1000) });
      }
    }
    createConfinedLinesSync(file, lines(), 0o640, () => true);
    expect(seen.length).toBe(3);
    for (const names of seen) {
      expect(names).not.toContain('new.jsonl');
      expect(names.every((name) => name.startsWith('.new.jsonl.') && name.endsWith('.tmp'))).toBe(true);
    }
    expect(fs.readdirSync(dir)).toEqual(['new.jsonl']);
    expect(fs.readFileSync(file, 'utf8').split('\n')).toHaveLength(3001);
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
    // Never over an existing file.
    expect(() => createConfinedSync(file, Buffer.from('{}\n'), 0o600, () => true)).toThrow(FileSafetyError);
    expect(fs.readdirSync(dir)).toEqual(['new.jsonl']);
  });
});
