// Interop on the v3 fixtures, which the reference package wrote itself: session-core loads each one
// as the reference does, session-core's rewrite opens unchanged in the reference, and continuing the
// session with random operations on either side keeps the other side in step.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sameMeaningLines } from './support/canonical';
import {
  asApi,
  clockStart,
  fakeClock,
  interopRuns,
  interopSeed,
  interopTimeout,
  openReference,
  restoreClock,
} from './support/drivers';
import { expectOnlyOrphanIssues, expectSameSession } from './support/expect-same';
import { copyFixture, makeTempDir, removeTempDir, V3_FIXTURES } from './support/fixtures';
import { applySteps, ensureReferenceFile, stepsArb } from './support/ops';
import { loadIn, RETENTIONS } from '../retention';

/**
 * Views (path and context) at every tip and at every entry of the small fixtures; at every 25th entry of
 * the 2,700-entry one, whose contexts are long.
 */
const strideOf = (name: string) => (name === 'many-branches.jsonl' ? 25 : 1);
/** Random continuations per fixture and direction; CANOPY_INTEROP_RUNS scales them up. */
const RUNS = Math.max(5, Math.round(interopRuns(200) / 10));
/** Random continuations of the big fixture cost ~0.5 s each: half as many of those. */
const runsOf = (name: string) => (name === 'many-branches.jsonl' ? Math.ceil(RUNS / 2) : RUNS);

/**
 * After a continuation, the views worth comparing are those at the entries the operations added: the
 * fixture's own entries were compared by the load test, and every new path runs through old entries.
 */
function addedIds(session: { getEntries(): { id: string }[] }, before: ReadonlySet<string>): string[] {
  return session
    .getEntries()
    .map((entry) => entry.id)
    .filter((id) => !before.has(id));
}

let tempDir: string;
let fileCounter = 0;

beforeAll(() => {
  tempDir = makeTempDir('interop-v3');
});

afterAll(() => {
  restoreClock();
  removeTempDir(tempDir);
});

/** A copy of the fixture in its own folder inside the test's temporary folder (removed after the suite). */
function freshCopy(name: string): { dir: string; path: string; text: string } {
  const dir = join(tempDir, `copy-${++fileCounter}`);
  mkdirSync(dir);
  const path = copyFixture(name, dir);
  return { dir, path, text: readFileSync(path, 'utf8') };
}

// Once keeping every entry, once keeping only the index (entries read back from the file's bytes).
describe.each(RETENTIONS)('v3 fixtures written by the reference (retain %s)', (retention) => {
  describe.each(V3_FIXTURES)('%s', (name) => {
    test('loads in session-core with no issues and the same tree, leaf, paths and contexts as in the reference', () => {
      const { dir, path, text } = freshCopy(name);
      const ref = openReference(path, dir);
      const core = loadIn(retention, text);
      expect(core.issues).toEqual([]);
      expectSameSession(asApi(ref), asApi(core), { stride: strideOf(name) });
    });

    test("session-core's rewrite means the same line for line and opens in the reference as the same session", () => {
      const { text } = freshCopy(name);
      const core = loadIn(retention, text);
      const written = core.toJsonl();
      expect(sameMeaningLines(written)).toEqual(sameMeaningLines(text));
      const path = join(tempDir, `rewritten-${++fileCounter}-${name}`);
      writeFileSync(path, written);
      const ref = openReference(path, tempDir);
      expectSameSession(asApi(core), asApi(ref), { stride: strideOf(name) });
    });

    test(
      'continued by session-core with random operations, it opens in the reference as the same session',
      () => {
        const seed = interopSeed(`${name}: session-core continues → reference`);
        const { text } = freshCopy(name);
        const fixtureIds = new Set(
          loadIn(retention, text)
            .getEntries()
            .map((entry) => entry.id),
        );
        fc.assert(
          fc.property(stepsArb(25), fc.nat(), (steps, clockSeed) => {
            const clock = fakeClock(clockStart(clockSeed));
            const core = loadIn(retention, text, { writeAs: 'pi-0.73' });
            applySteps(asApi(core), steps, clock);
            restoreClock();
            const path = join(tempDir, `continued-${++fileCounter}.jsonl`);
            writeFileSync(path, core.toJsonl());
            const ref = openReference(path, tempDir);
            expectSameSession(asApi(core), asApi(ref), {
              stride: strideOf(name),
              leaves: addedIds(core, fixtureIds),
            });
          }),
          { seed, numRuns: runsOf(name) },
        );
      },
      interopTimeout(runsOf(name), 1_500),
    );

    test(
      'continued by the reference with random operations, it opens in session-core as the same session',
      () => {
        const seed = interopSeed(`${name}: reference continues → session-core`);
        const fixtureIds = new Set(
          loadIn(retention, freshCopy(name).text)
            .getEntries()
            .map((entry) => entry.id),
        );
        fc.assert(
          fc.property(stepsArb(25), fc.nat(), (steps, clockSeed) => {
            const { dir, path } = freshCopy(name);
            const clock = fakeClock(clockStart(clockSeed));
            // The fixture holds an assistant message, so the reference appends every entry at once.
            const ref = openReference(path, dir);
            applySteps(asApi(ref), steps, clock);
            ensureReferenceFile(ref, clock);
            restoreClock();
            const written = readFileSync(ref.getSessionFile() as string, 'utf8');
            const core = loadIn(retention, written);
            expectOnlyOrphanIssues(core.issues, asApi(ref));
            expectSameSession(asApi(ref), asApi(core), {
              stride: strideOf(name),
              leaves: addedIds(ref, fixtureIds),
            });
          }),
          { seed, numRuns: runsOf(name) },
        );
      },
      interopTimeout(runsOf(name), 1_500),
    );
  });
});
