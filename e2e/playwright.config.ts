import { defineConfig } from '@playwright/test';

// Debian's Chromium, never a downloaded browser; the flags keep it off the (closed) network.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

const jsonOutput = process.env.CANOPY_PLAYWRIGHT_JSON;

export default defineConfig({
  testDir: './tests',
  // The project's own session fixtures, generated once before the tests (support/server.ts copies them).
  globalSetup: '../packages/fixtures/src/global-setup.ts',
  outputDir: './test-results',
  // Failure bounds only (tests wait for states, never for durations): generous, so that a machine
  // busy with other work (npm run test:stress) slows the suite down without failing it.
  timeout: 240_000,
  expect: { timeout: 30_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: jsonOutput ? [['list'], ['json', { outputFile: jsonOutput }]] : [['list']],
  use: {
    browserName: 'chromium',
    viewport: { width: 1440, height: 900 },
    launchOptions: {
      executablePath: process.env.CANOPY_CHROMIUM ?? '/usr/bin/chromium',
      args: CHROMIUM_ARGS,
    },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
