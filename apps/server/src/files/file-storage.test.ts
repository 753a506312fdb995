import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NewFileStorage } from './file-storage';

describe('NewFileStorage.rewriteLines', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-rewrite-lines-')));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const inRoots = () => true;
  /** Lines long enough that the file is written in several batches. */
  const lines = Array.from({ length: 40 }, (_, i) => JSON.stringify({ n: i, text: 'y'.repeat(100_000) }));

  it('creates the file with every line and its newline, with the given permission bits', () => {
    const storage = new NewFileStorage(path.join(dir, 'new.jsonl'), 0o640, inRoots);
    storage.rewriteLines(lines);
    expect(fs.readFileSync(storage.path, 'utf8')).toBe(lines.map((line) => `${line}\n`).join(''));
    expect(fs.statSync(storage.path).mode & 0o777).toBe(0o640);
    const second = Buffer.from(`${lines[1]}\n`);
    const at = Buffer.byteLength(`${lines[0]}\n`);
    expect(Buffer.from(storage.readRange(at, second.length)).equals(second)).toBe(true);
  });

  it('a line that fails to be produced after earlier batches were written leaves no file, and the error is the line’s own', () => {
    const storage = new NewFileStorage(path.join(dir, 'new.jsonl'), 0o600, inRoots);
    const failure = new Error('entry 30 could not be read back');
    function* failing(): Generator<string> {
      for (let i = 0; i < 30; i++) yield lines[i]!;
      throw failure;
    }
    expect(() => storage.rewriteLines(failing())).toThrow(failure);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('never replaces an existing file: it is refused and left exactly as it was', () => {
    const file = path.join(dir, 'taken.jsonl');
    fs.writeFileSync(file, 'someone else\n');
    const storage = new NewFileStorage(file, 0o600, inRoots);
    expect(() => storage.rewriteLines(lines)).toThrow(/Could not create the session file/);
    expect(fs.readFileSync(file, 'utf8')).toBe('someone else\n');
  });

  it('is never read whole: entries come back through readRange only', () => {
    const storage = new NewFileStorage(path.join(dir, 'new.jsonl'), 0o600, inRoots);
    storage.rewriteLines(lines);
    expect(() => storage.read()).toThrow(/never reads a session file whole/);
  });

  it('a folder outside the roots is refused before anything is created', () => {
    const storage = new NewFileStorage(path.join(dir, 'new.jsonl'), 0o600, () => false);
    expect(() => storage.rewriteLines(lines)).toThrow(/outside the configured folders/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
