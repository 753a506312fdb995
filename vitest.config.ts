import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = dirname(fileURLToPath(import.meta.url));

// `*.shared-crosscheck.test.ts` compare against session files some maintainers keep beside the clone
// (`../shared/fixtures/sessions`). They are an extra check only: without that folder they are not part
// of the run at all (rather than skipped), so a fresh clone runs every test it has.
const crossCheckFolder = join(root, '..', 'shared', 'fixtures', 'sessions');
const crossChecks = existsSync(join(crossCheckFolder, 'README.md'));

export default defineConfig({
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/*/test/**/*.test.ts',
      'apps/*/src/**/*.test.{ts,tsx}',
      'apps/*/test/**/*.test.ts',
      'bench/**/*.test.ts',
      'scripts/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', ...(crossChecks ? [] : ['**/*.shared-crosscheck.test.ts'])],
    // The project's own session fixtures are generated once, before any test file runs.
    globalSetup: ['packages/fixtures/src/global-setup.ts'],
    // Failure bounds only (no test waits for a duration): generous, so that a machine busy with other
    // work (npm run test:stress) slows the heavy tests down without failing them.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Forks isolate the file-system and child-process heavy server tests from each other.
    pool: 'forks',
  },
});
