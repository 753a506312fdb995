// The Playwright `test` of this suite: each test gets a Canopy server over temporary copies of the
// session files it names (`test.use({ sessionFiles: [...] })`), and a page object already on the
// printed URL. A file whose tests never write (no jump, label, append, branch, settings) sets
// `sharedServer: true` and reuses one server per set of files for the whole worker, because
// starting the server is most of a test's time on a loaded two-core machine.
import { fixtureIds } from '@canopy/fixtures';
import { test as base, expect } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CanopyApp } from '../pages/CanopyApp';
import { cleanup, hasSharedFixtures, startCanopy, type RunningCanopy } from './server';

export interface CanopyOptions {
  /** Fixture file names (of @canopy/fixtures) copied into the server's sessions folder. */
  sessionFiles: string[];
  /** Sessions written by the test before the server starts: file name → JSONL text (made on demand). */
  generatedSessions: Record<string, () => string>;
  /** Reuse one server per `sessionFiles` for the worker (only for tests that change nothing on the server). */
  sharedServer: boolean;
  /** Extra environment variables for the server (not with sharedServer). */
  serverEnv: Record<string, string>;
}

export interface CanopyFixtures {
  canopy: RunningCanopy;
  app: CanopyApp;
}

interface WorkerFixtures {
  serverPool: Map<string, Promise<RunningCanopy>>;
}

function launchFor(
  sessionFiles: string[],
  generated: Record<string, () => string>,
  env: Record<string, string> = {},
): Promise<RunningCanopy> {
  return startCanopy({
    fixtures: sessionFiles,
    env,
    prepare: (dir) => {
      for (const [name, make] of Object.entries(generated)) writeFileSync(join(dir, name), make());
    },
  });
}

export const test = base.extend<CanopyOptions & CanopyFixtures, WorkerFixtures>({
  sessionFiles: [['seed-example.jsonl'], { option: true }],
  generatedSessions: [{}, { option: true }],
  sharedServer: [false, { option: true }],
  serverEnv: [{}, { option: true }],
  serverPool: [
    // Playwright reads a fixture's dependencies from its destructuring pattern, so it must be one.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const pool = new Map<string, Promise<RunningCanopy>>();
      await use(pool);
      for (const pending of pool.values()) {
        const running = await pending.catch(() => undefined);
        if (!running) continue;
        await running.stop();
        cleanup(running);
      }
    },
    { scope: 'worker' },
  ],
  canopy: async ({ sessionFiles, generatedSessions, sharedServer, serverEnv, serverPool }, use) => {
    if (sharedServer && Object.keys(generatedSessions).length === 0 && Object.keys(serverEnv).length === 0) {
      const key = sessionFiles.join('\n');
      let pending = serverPool.get(key);
      if (!pending) {
        pending = launchFor(sessionFiles, {});
        serverPool.set(key, pending);
      }
      await use(await pending);
      return;
    }
    const running = await launchFor(sessionFiles, generatedSessions, serverEnv);
    try {
      await use(running);
    } finally {
      await running.stop();
      cleanup(running);
    }
  },
  app: async ({ page, canopy }, use) => {
    const app = new CanopyApp(page, canopy);
    await app.goto();
    await use(app);
  },
});

export { expect };

export const SKIP_WITHOUT_FIXTURES = 'the session fixtures could not be generated';

/**
 * Kept for older tests: the fixtures are the project's own and generated on first use, so this only
 * skips if generating them failed (and then says so).
 */
export function requireSharedFixtures(): void {
  test.skip(!hasSharedFixtures(), SKIP_WITHOUT_FIXTURES);
}

/** Entry ids of the fixtures by role (their manifest), e.g. `SEED_IDS.plan`. */
export const SEED_IDS = fixtureIds('seed-example.jsonl');
export const ALL_IDS = fixtureIds('all-entry-types.jsonl');
export { ALL_ENTRY_TYPES_TEXTS, fixtureFacts, fixtureIds } from '@canopy/fixtures';

export function sessionPath(canopy: RunningCanopy, fileName: string): string {
  return join(canopy.sessionsDir, fileName);
}
