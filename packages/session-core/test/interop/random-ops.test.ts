// Differential tests against the reference package (@mariozechner/pi-coding-agent 0.73.1) over random
// operation sequences: every append type, branch, resetLeaf, branchWithSummary (also from null), labels
// set and cleared, createBranchedSession, newSession, and clock jumps (children are ordered by timestamp).
// Each property logs its seed; replay one with CANOPY_INTEROP_SEED, ask for more runs with
// CANOPY_INTEROP_RUNS (e.g. CANOPY_INTEROP_RUNS=5000).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { sameMeaningLines } from './support/canonical';
import { expectOnlyOrphanIssues, expectSameSession } from './support/expect-same';
import {
  asApi,
  clockStart,
  createReference,
  DEMO_CWD,
  fakeClock,
  interopRuns,
  interopSeed,
  interopTimeout,
  openReference,
  MemoryStorage,
  MemoryStorageProvider,
  restoreClock,
  SessionManager,
} from './support/drivers';
import { useRunDirs } from './support/fixtures';
import {
  applyStep,
  applySteps,
  ensureReferenceFile,
  flushStep,
  reparentPastDroppedLabels,
  stepsArb,
  type Step,
  type StepHooks,
} from './support/ops';
import { leavesToCheck, positionalIds, snapshot, viewsAt } from './support/projection';
import { loadIn, RETENTIONS } from '../retention';
import type { EntryRetention } from '../../src/entry-store';

const MAX_STEPS = 60;
const RUNS = interopRuns(200);
/** Each run takes a few milliseconds; leave room for a slow machine and for shrinking a failure. */
const TIMEOUT = interopTimeout(RUNS, 60);

const runDir = useRunDirs('interop-random', restoreClock);

/** Runs `steps` on the reference persisted in `dir`; makes sure its lazy first write happened. */
function runReference(dir: string, steps: readonly Step[], start: number, hooks: StepHooks = {}) {
  const clock = fakeClock(start);
  const ref = createReference(dir);
  const outcomes = applySteps(asApi(ref), steps, clock, hooks);
  const flushed = ensureReferenceFile(ref, clock);
  restoreClock();
  return { ref, outcomes, flushed, file: ref.getSessionFile() as string };
}

/**
 * Runs `steps` on session-core. With `persist`, it writes through a storage (one line appended per
 * entry, as the server writes files) and a provider for the files createBranchedSession makes; `file`
 * is then the current file's text as written, otherwise the in-memory session's toJsonl().
 */
function runCore(
  steps: readonly Step[],
  start: number,
  options: { withFlushStep: boolean; persist: boolean; retention?: EntryRetention },
) {
  const clock = fakeClock(start);
  const provider = new MemoryStorageProvider('interop');
  const first = new MemoryStorage('', 'interop/first.jsonl');
  // Writing as the reference version does (docs/format.md#writing: pi 1.6 changed some writes).
  const core = options.persist
    ? SessionManager.inMemory(DEMO_CWD, {
        storage: first,
        storageProvider: provider,
        retain: options.retention ?? 'all',
        writeAs: 'pi-0.73',
      })
    : SessionManager.inMemory(DEMO_CWD, { writeAs: 'pi-0.73' });
  const outcomes = applySteps(asApi(core), steps, clock);
  if (options.withFlushStep) applyStep(asApi(core), flushStep, clock);
  restoreClock();
  const current = core.getSessionFile();
  const storage = current === first.path ? first : current === undefined ? undefined : provider.get(current);
  return { core, outcomes, file: storage ? storage.read() : core.toJsonl() };
}

describe('interop with the reference on random operation sequences', () => {
  // 'index': the session keeps only its index and reads its entries back from the files it wrote.
  test.each(RETENTIONS)(
    'a file written by session-core (retain %s) opens in the reference with the same tree, leaf, paths and contexts',
    (retention) => {
      const seed = interopSeed('session-core → reference');
      fc.assert(
        fc.property(stepsArb(MAX_STEPS), fc.nat(), (steps, clockSeed) => {
          const dir = runDir();
          const { core, file: text } = runCore(steps, clockStart(clockSeed), {
            withFlushStep: false,
            persist: true,
            retention,
          });
          // What was appended line by line is the whole session.
          expect(text).toBe(core.toJsonl());
          const path = join(dir, 'written-by-core.jsonl');
          writeFileSync(path, text);

          const ref = openReference(path, dir);
          expectSameSession(asApi(core), asApi(ref));
          // v3 needs no migration: the reference must not have rewritten the file.
          expect(readFileSync(path, 'utf8')).toBe(text);

          // session-core reading its own file agrees as well.
          const reread = loadIn(retention, text);
          expectOnlyOrphanIssues(reread.issues, asApi(core));
          expectSameSession(asApi(core), asApi(reread));
        }),
        { seed, numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  test.each(RETENTIONS)(
    'a file written by the reference opens in session-core (retain %s) with the same tree, leaf, paths and contexts',
    (retention) => {
      const seed = interopSeed('reference → session-core');
      fc.assert(
        fc.property(stepsArb(MAX_STEPS), fc.nat(), (steps, clockSeed) => {
          const dir = runDir();
          const { ref, file } = runReference(dir, steps, clockStart(clockSeed));
          const text = readFileSync(file, 'utf8');

          const core = loadIn(retention, text);
          expectOnlyOrphanIssues(core.issues, asApi(ref));
          expectSameSession(asApi(ref), asApi(core));
          // And what session-core writes back means the same, line for line.
          expect(sameMeaningLines(core.toJsonl())).toEqual(sameMeaningLines(text));
        }),
        { seed, numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  test(
    'the same operations give the same session in both implementations, entry by entry',
    () => {
      const seed = interopSeed('session-core ≡ reference (by position)');
      fc.assert(
        fc.property(stepsArb(MAX_STEPS), fc.nat(), (steps, clockSeed) => {
          const dir = runDir();
          const start = clockStart(clockSeed);
          const reference = runReference(dir, steps, start, {
            afterCreateBranchedSession: reparentPastDroppedLabels,
          });
          const { core, outcomes } = runCore(steps, start, {
            withFlushStep: !reference.flushed,
            persist: false,
          });
          expect(outcomes).toEqual(reference.outcomes);

          const coreApi = asApi(core);
          const refApi = asApi(reference.ref);
          const coreIds = positionalIds(coreApi);
          const refIds = positionalIds(refApi);
          const expected = snapshot(refApi, refIds);
          const actual = snapshot(coreApi, coreIds);
          expect(actual.entries).toEqual(expected.entries);
          expect(actual.tree).toEqual(expected.tree);
          expect(actual.leafId).toBe(expected.leafId);
          expect(actual.name).toBe(expected.name);
          expect(actual.labels).toEqual(expected.labels);
          expect(actual.children).toEqual(expected.children);

          const { type, version, cwd } = reference.ref.getHeader() ?? {};
          expect(core.getHeader()).toMatchObject({ type, version, cwd });

          // Compare the views at the same positions (ids differ: each session's own id at that position).
          const refEntries = refApi.getEntries();
          const coreEntries = coreApi.getEntries();
          const leaf = refApi.getLeafId();
          const positions = leavesToCheck(refApi, leaf).map((id) =>
            id === null ? null : refEntries.findIndex((entry) => entry.id === id),
          );
          const at = (entries: typeof refEntries) =>
            positions.map((p) => (p === null ? null : (entries[p]?.id ?? null)));
          expect(viewsAt(coreApi, at(coreEntries), coreIds)).toEqual(viewsAt(refApi, at(refEntries), refIds));
        }),
        { seed, numRuns: RUNS },
      );
    },
    TIMEOUT,
  );
});
