// The server writes the bundled demo sessions (@canopy/demo) into a folder of its own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_FILE_NAMES } from '@canopy/demo';
import { SessionManager } from '@canopy/session-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeDemoSessions } from '../src/files/demo';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-demo-'));
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('writeDemoSessions', () => {
  it('writes the three files into a new folder and links the branched one to the first by absolute path', () => {
    const target = path.join(dir, 'written');
    const paths = writeDemoSessions(target);
    expect(paths).toEqual([
      path.join(target, DEMO_FILE_NAMES.main),
      path.join(target, DEMO_FILE_NAMES.branched),
      path.join(target, DEMO_FILE_NAMES.omp),
    ]);
    const branched = SessionManager.fromJsonl(fs.readFileSync(paths[1] as string, 'utf8'));
    expect(branched.getHeader()?.parentSession).toBe(paths[0]);
    for (const file of paths)
      expect(SessionManager.fromJsonl(fs.readFileSync(file, 'utf8')).issues).toEqual([]);
  });

  it('refuses to overwrite a file that is already there and leaves it untouched', () => {
    const existing = path.join(dir, DEMO_FILE_NAMES.main);
    fs.writeFileSync(existing, 'mine\n');
    expect(() => writeDemoSessions(dir)).toThrow(/EEXIST/);
    expect(fs.readFileSync(existing, 'utf8')).toBe('mine\n');
  });
});
