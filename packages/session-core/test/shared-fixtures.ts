// An optional cross-check only: session fixtures kept outside the repository, next to the clone
// (`<repo>/../shared/fixtures/sessions`), when a maintainer has them. vitest.config.ts includes the
// `*.shared-crosscheck.test.ts` files only when that folder exists; every other test uses the
// project's own fixtures (test/fixtures.ts).
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyToTemp } from './fixtures';

/** The repository root: test → session-core → packages → repo. */
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const fixturesPath = resolve(repoRoot, '../shared/fixtures/sessions');

/** Why fixture tests are skipped, for the skip message. */
export const FIXTURES_MISSING_MESSAGE = `session fixtures not found at ${fixturesPath}; fixture tests skipped`;

/** The fixtures folder, or undefined when ../shared is absent. */
export function fixturesDir(): string | undefined {
  return existsSync(join(fixturesPath, 'README.md')) ? fixturesPath : undefined;
}

/** Names of every `.jsonl` fixture, sorted; empty when the folder is absent. */
export function fixtureNames(): string[] {
  const dir = fixturesDir();
  return dir
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.jsonl'))
        .sort()
    : [];
}

/** Copies one fixture into a fresh temporary folder and returns the copy's path. */
export async function copyFixture(name: string): Promise<string> {
  const dir = fixturesDir();
  if (!dir) throw new Error(FIXTURES_MISSING_MESSAGE);
  return copyToTemp(join(dir, name));
}

/** The bytes of a temporary copy of a fixture. */
export async function readFixtureCopy(name: string): Promise<Uint8Array> {
  return new Uint8Array(await readFile(await copyFixture(name)));
}

export { removeFixtureCopies } from './fixtures';
