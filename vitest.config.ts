import { defineConfig } from 'vitest/config';

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
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Forks isolate the file-system and child-process heavy server tests from each other.
    pool: 'forks',
  },
});
