// The e2e harness itself: what scripts and fixtures rely on to leave nothing behind.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { test as base, expect } from '@playwright/test';
import { cleanup, startCanopy } from '../support/server';

base('cleanup stops the server and removes its folders', async () => {
  const running = await startCanopy({ fixtures: ['seed-example.jsonl'] });
  const pid = running.pid();
  expect(pid).toBeDefined();
  expect((await fetch(running.url)).ok).toBe(true);
  await cleanup(running);
  // Signal 0 only asks whether the process exists.
  expect(() => process.kill(pid!, 0)).toThrow();
  expect(existsSync(dirname(running.sessionsDir))).toBe(false);
});
