// The benchmark sessions shared by `npm run bench` (run.ts) and retention.bench.ts: generated once from
// synthetic.ts (seed 1, so byte-identical every time) and kept in bench/.cache (gitignored).
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../e2e/support/server';
import { writeSyntheticSession } from './synthetic';

export interface Size {
  name: string;
  entries: number;
  /** Text scale of the synthetic generator: ~2 KB per entry at 1. */
  sizeScale: number;
}

/** The sizes: a 1.2 MB fixture-like file, 100 MB, 157 MB with small entries, ~1 GB. */
export const SIZES: Record<string, Size> = {
  '2.7k': { name: '2.7k', entries: 2_720, sizeScale: 0.25 },
  '50k': { name: '50k', entries: 50_000, sizeScale: 1 },
  '200k': { name: '200k', entries: 200_000, sizeScale: 0.4 },
  '500k': { name: '500k', entries: 500_000, sizeScale: 1 },
};

/** The generated session of `size`, written once (deterministic: seed 1) and reused. */
export async function sessionFile(size: Size): Promise<string> {
  const dir = join(repoRoot, 'bench', '.cache');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `synthetic-${size.name}.jsonl`);
  if (!existsSync(file)) {
    console.log(`generating ${file} …`);
    await writeSyntheticSession(`${file}.part`, {
      entries: size.entries,
      seed: 1,
      sizeScale: size.sizeScale,
    });
    renameSync(`${file}.part`, file);
  }
  return file;
}
