// Locating the shared session fixtures and copying them to temporary folders.
// The fixtures live outside the repository (`<repo>/../shared/fixtures/sessions`) and are read-only;
// tests always work on copies so that nothing (not even the reference's migration rewrite) touches them.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (five levels above this file: support → interop → test → session-core → packages). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../..');

const fixturesPath = resolve(repoRoot, '../shared/fixtures/sessions');

/** The fixtures folder, or null when ../shared is absent (tests then skip with a message). */
export function fixturesDir(): string | null {
  return existsSync(join(fixturesPath, 'README.md')) ? fixturesPath : null;
}

export const FIXTURES_MISSING = `shared session fixtures not found at ${fixturesPath}; skipping`;

/** The v3 fixtures written by the reference package itself (see the fixtures README). */
export const V3_FIXTURES = [
  'seed-example.jsonl',
  'branched-from-seed-example.jsonl',
  'all-entry-types.jsonl',
  'many-branches.jsonl',
] as const;

/** Legacy fixtures that both implementations migrate on load. */
export const LEGACY_FIXTURES = [
  'legacy-v1-before-compaction.jsonl',
  'legacy-v1-large-session.jsonl',
  'legacy-v2-hookmessage.jsonl',
] as const;

/** A fresh temporary folder; remove it with `removeTempDir`. */
export function makeTempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `canopy-${prefix}-`));
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Copies one fixture into `dir` (under `asName` if given) and returns the copy's path. */
export function copyFixture(name: string, dir: string, asName: string = name): string {
  const source = fixturesDir();
  if (!source) throw new Error(FIXTURES_MISSING);
  const target = join(dir, asName);
  copyFileSync(join(source, name), target);
  return target;
}
