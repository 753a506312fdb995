// The test command of the README on a fresh machine: the unit run holds browser tests of its own
// (bench/browser.test.ts), so Chromium must be in place before it starts, not only before the
// end-to-end step (on a machine without Chromium those tests failed to launch it).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'canopy.mjs'), 'utf8');

/** The body of `function name(…) { … }` in the script, up to the next top-level function. */
function functionBody(name: string): string {
  const start = script.indexOf(`function ${name}(`);
  expect(start, `function ${name} in canopy.mjs`).toBeGreaterThanOrEqual(0);
  const next = script.indexOf('\nfunction ', start + 1);
  return script.slice(start, next === -1 ? undefined : next);
}

describe('npm test (scripts/canopy.mjs test)', () => {
  it('installs Chromium before the unit run, which launches it too', () => {
    const body = functionBody('test');
    const chromium = body.indexOf('ensureChromium()');
    const unitRun = body.indexOf("'unit and server tests (vitest)'");
    expect(chromium).toBeGreaterThanOrEqual(0);
    expect(unitRun).toBeGreaterThan(chromium);
  });

  it('asks for Chromium once and counts a failed install as a failure', () => {
    const body = functionBody('test');
    expect(body.split('ensureChromium()').length - 1).toBe(1);
    expect(body).toContain("failures.push('chromium install')");
  });
});
