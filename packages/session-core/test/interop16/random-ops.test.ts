// The lockstep suite against today's pi (pi 1.6.0, test/pi16.ts): random operation sequences with
// everything pi 1.x writes (context edits and their refusals, usage entries, system messages, branch
// summaries and compactions with usage, the 1.x message fields) run on both; then each reads the
// other's file, and each continues the other's file: tree, leaf, paths, contexts at every leaf, labels
// and the entries themselves must be the same, with no difference either way. Each property logs its
// seed; replay one with CANOPY_INTEROP_SEED, ask for more runs with CANOPY_INTEROP_RUNS.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { EntryRetention } from '../../src/entry-store';
import { sameMeaningLines } from '../interop/support/canonical';
import { expectSameSession } from '../interop/support/expect-same';
import { useRunDirs } from '../interop/support/fixtures';
import { leavesToCheck, positionalIds, snapshot, viewsAt } from '../interop/support/projection';
import { loadIn, RETENTIONS } from '../retention';
import {
  asApi,
  clockStart,
  createPi16,
  DEMO_CWD,
  fakeClock,
  interopRuns,
  interopSeed,
  interopTimeout,
  MemoryStorage,
  MemoryStorageProvider,
  openPi16,
  restoreClock,
  SessionManager,
} from './support/drivers';
import {
  applyStep16,
  applySteps16,
  flushStep16,
  steps16Arb,
  type Pi16SessionApi,
  type Step16,
} from './support/ops';

const MAX_STEPS = 60;
const RUNS = interopRuns(200);
const TIMEOUT = interopTimeout(RUNS, 80);

const runDir = useRunDirs('interop16-random', restoreClock);

/** Either implementation as the shared API (the casts only widen parameter types both share). */
const api = (session: unknown) => session as Pi16SessionApi;

/** pi 1.6 writes its file once the session holds a user or assistant message; this makes sure it did. */
function ensurePi16File(
  ref: { getSessionFile(): string | undefined },
  clock: { now: number; set(ms: number): void },
) {
  const file = ref.getSessionFile();
  if (file !== undefined && existsSync(file)) return true;
  applyStep16(api(ref), flushStep16, clock);
  return false;
}

/** Runs `steps` on pi 1.6 persisted in `dir`. */
function runPi16(dir: string, steps: readonly Step16[], start: number) {
  const clock = fakeClock(start);
  const ref = createPi16(dir);
  const outcomes = applySteps16(api(ref), steps, clock);
  const flushed = ensurePi16File(ref, clock);
  restoreClock();
  return { ref, outcomes, flushed, file: ref.getSessionFile() as string, clock };
}

/** Runs `steps` on session-core, writing line by line through a storage (as the server writes files). */
function runCore(
  steps: readonly Step16[],
  start: number,
  withFlushStep: boolean,
  retention: EntryRetention = 'all',
) {
  const clock = fakeClock(start);
  const provider = new MemoryStorageProvider('interop16');
  const first = new MemoryStorage('', 'interop16/first.jsonl');
  const core = SessionManager.inMemory(DEMO_CWD, {
    storage: first,
    storageProvider: provider,
    retain: retention,
  });
  const outcomes = applySteps16(api(core), steps, clock);
  if (withFlushStep) applyStep16(api(core), flushStep16, clock);
  restoreClock();
  const current = core.getSessionFile();
  const storage = current === first.path ? first : current === undefined ? undefined : provider.get(current);
  return { core, outcomes, file: storage ? storage.read() : core.toJsonl() };
}

describe('lockstep with pi 1.6.0 on random operation sequences', () => {
  test.each(RETENTIONS)(
    'a file written by session-core (retain %s) opens in pi 1.6 as the same session',
    (retention) => {
      const seed = interopSeed('session-core → pi 1.6');
      fc.assert(
        fc.property(steps16Arb(MAX_STEPS), fc.nat(), (steps, clockSeed) => {
          const dir = runDir();
          const { core, file: text } = runCore(steps, clockStart(clockSeed), false, retention);
          expect(text).toBe(core.toJsonl());
          const path = join(dir, 'written-by-core.jsonl');
          writeFileSync(path, text);
          const ref = openPi16(path, dir);
          expectSameSession(asApi(core), api(ref));
          // Reading changed nothing: no migration, no newline to add.
          expect(readFileSync(path, 'utf8')).toBe(text);
          const reread = loadIn(retention, text);
          expect(reread.issues).toEqual([]);
          expectSameSession(asApi(core), asApi(reread));
        }),
        { seed, numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  test.each(RETENTIONS)(
    'a file written by pi 1.6 opens in session-core (retain %s) as the same session, without an issue',
    (retention) => {
      const seed = interopSeed('pi 1.6 → session-core');
      fc.assert(
        fc.property(steps16Arb(MAX_STEPS), fc.nat(), (steps, clockSeed) => {
          const dir = runDir();
          const { ref, file } = runPi16(dir, steps, clockStart(clockSeed));
          const text = readFileSync(file, 'utf8');
          const core = loadIn(retention, text);
          // pi 1.6 re-chains branched paths, so there are no orphans; every type is known.
          expect(core.issues).toEqual([]);
          expectSameSession(api(ref), asApi(core));
          expect(sameMeaningLines(core.toJsonl())).toEqual(sameMeaningLines(text));
        }),
        { seed, numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  test(
    'the same operations give the same session in both, entry by entry, refusals included',
    () => {
      const seed = interopSeed('session-core ≡ pi 1.6 (by position)');
      fc.assert(
        fc.property(steps16Arb(MAX_STEPS), fc.nat(), (steps, clockSeed) => {
          const dir = runDir();
          const start = clockStart(clockSeed);
          const reference = runPi16(dir, steps, start);
          const { core, outcomes } = runCore(steps, start, !reference.flushed);
          expect(outcomes).toEqual(reference.outcomes);

          const coreApi = asApi(core);
          const refApi = api(reference.ref);
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

          const refEntries = refApi.getEntries();
          const coreEntries = coreApi.getEntries();
          const positions = leavesToCheck(refApi, refApi.getLeafId()).map((id) =>
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

  test(
    'pi 1.6 continues from what session-core wrote, and session-core from what pi 1.6 wrote',
    () => {
      const seed = interopSeed('continue each other (pi 1.6)');
      fc.assert(
        fc.property(steps16Arb(30), steps16Arb(30), fc.nat(), (before, after, clockSeed) => {
          const dir = runDir();
          const start = clockStart(clockSeed);
          // session-core writes, pi 1.6 opens and goes on, session-core reads the result.
          const { file: written } = runCore(before, start, true);
          const path = join(dir, 'core-then-pi16.jsonl');
          writeFileSync(path, written);
          const clock = fakeClock(start + 10_000_000);
          const ref = openPi16(path, dir);
          applySteps16(api(ref), after, clock);
          ensurePi16File(ref, clock);
          restoreClock();
          const continued = readFileSync(ref.getSessionFile() as string, 'utf8');
          const core = loadIn('all', continued);
          expect(core.issues).toEqual([]);
          expectSameSession(api(ref), asApi(core));

          // pi 1.6 writes, session-core opens and goes on (through its storage), pi 1.6 reads the result.
          const other = runPi16(runDir(), before, start);
          const text = readFileSync(other.file, 'utf8');
          const storage = new MemoryStorage(text, 'pi16-then-core.jsonl');
          const provider = new MemoryStorageProvider('continued');
          const coreClock = fakeClock(start + 10_000_000);
          const session = SessionManager.fromStorage(storage, { storageProvider: provider });
          applySteps16(api(session), after, coreClock);
          restoreClock();
          const current = session.getSessionFile();
          const out =
            current === storage.path
              ? storage.read()
              : (provider.get(current ?? '')?.read() ?? session.toJsonl());
          const outPath = join(dir, 'pi16-then-core.jsonl');
          writeFileSync(outPath, out);
          expectSameSession(asApi(session), api(openPi16(outPath, dir)));
        }),
        { seed, numRuns: Math.max(20, Math.floor(RUNS / 2)) },
      );
    },
    TIMEOUT,
  );
});
