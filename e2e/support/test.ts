// The Playwright `test` of this suite: each test gets a Canopy server over temporary copies of the
// session files it names (`test.use({ sessionFiles: [...] })`), and a page object already on the
// printed URL. A file whose tests never write (no jump, label, append, branch, settings) sets
// `sharedServer: true` and reuses one server per set of files for the whole worker, because
// starting the server is most of a test's time on a loaded two-core machine.
import { fixtureIds } from '@canopy/fixtures';
import { test as base, expect, type Page, type TestInfo } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CanopyApp } from '../pages/CanopyApp';
import { GraphPane } from '../pages/GraphPane';
import { Summaries } from '../pages/Summaries';
import { cleanup, hasSharedFixtures, startCanopy, type RunningCanopy, type StartOptions } from './server';
import { watchFile, type WatchedFile } from './sessionFile';

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
  graph: GraphPane;
  summaries: Summaries;
  /**
   * The test's first session file (the first of `sessionFiles`, else of `generatedSessions`) as its
   * bytes were when the test began, to check what the test wrote to it.
   */
  sessionFile: WatchedFile;
}

interface WorkerFixtures {
  serverPool: Map<string, Promise<RunningCanopy>>;
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
        await cleanup(running);
      }
    },
    { scope: 'worker' },
  ],
  canopy: async ({ sessionFiles, generatedSessions, sharedServer, serverEnv, serverPool }, use, testInfo) => {
    if (sharedServer && Object.keys(generatedSessions).length === 0 && Object.keys(serverEnv).length === 0) {
      const key = sessionFiles.join('\n');
      let pending = serverPool.get(key);
      if (!pending) {
        pending = startCanopy({ fixtures: sessionFiles });
        serverPool.set(key, pending);
      }
      const running = await pending;
      const from = running.output().length;
      await use(running);
      await attachServerOutput(testInfo, running.output().slice(from));
      return;
    }
    await useOwnCanopy(
      {
        fixtures: sessionFiles,
        env: serverEnv,
        prepare: (dir) => {
          for (const [name, make] of Object.entries(generatedSessions))
            writeFileSync(join(dir, name), make());
        },
      },
      async (running) => {
        await use(running);
        await attachServerOutput(testInfo, running.output());
      },
    );
  },
  app: ({ page, canopy }, use) => useApp(page, canopy, use),
  graph: ({ page }, use) => use(new GraphPane(page)),
  summaries: ({ page }, use) => use(new Summaries(page)),
  sessionFile: ({ canopy, sessionFiles, generatedSessions }, use) => {
    const name = sessionFiles[0] ?? Object.keys(generatedSessions)[0];
    if (name === undefined) throw new Error('the test names no session file');
    return use(watchFile(sessionPath(canopy, name)));
  },
});

/**
 * A failed test keeps what its server printed (warnings, errors, a crash) beside its trace: a
 * failure seen only in CI, such as a dropped WebSocket, can then be read from the server's side.
 */
async function attachServerOutput(testInfo: TestInfo, output: string): Promise<void> {
  if (testInfo.status === testInfo.expectedStatus) return;
  await testInfo.attach('canopy server output', {
    body: output.length > 0 ? output : '(the server printed nothing during this test)',
    contentType: 'text/plain',
  });
}

/** The `canopy` fixture's body for one test: a server started for it, stopped and removed after it. */
export async function useOwnCanopy(
  options: StartOptions,
  use: (running: RunningCanopy) => Promise<void>,
): Promise<void> {
  const running = await startCanopy(options);
  try {
    await use(running);
  } finally {
    await cleanup(running);
  }
}

/** The `app` fixture's body: the page object, already on the server's printed URL. */
export async function useApp(
  page: Page,
  canopy: RunningCanopy,
  use: (app: CanopyApp) => Promise<void>,
): Promise<void> {
  const app = new CanopyApp(page, canopy);
  await app.goto();
  await use(app);
}

export { expect };

/**
 * The tests of this file or `describe` block run on one session the test writes (`make` gives its
 * text), opened in the app before each test.
 */
export function onGeneratedSession(name: string, make: () => string): void {
  test.use({ sessionFiles: [], generatedSessions: { [name]: make } });
  test.beforeEach(async ({ app }) => {
    await app.openSession(name);
  });
}

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
