// The two implementations behind the shared API: session-core's SessionManager and the reference
// package's, plus a fake clock that both read through Date.
import { SessionManager as RefSessionManager } from '@mariozechner/pi-coding-agent';
import { vi } from 'vitest';
import { MemoryStorage, MemoryStorageProvider, SessionManager } from '../../../src/index';
import type { TreeSessionApi } from './projection';

export { MemoryStorage, MemoryStorageProvider, RefSessionManager, SessionManager };

export const DEMO_CWD = '/home/dev/projects/interop';

/** session-core as the shared API (the casts only widen parameter types the API shares). */
export function asApi(session: SessionManager | RefSessionManager): TreeSessionApi {
  return session as unknown as TreeSessionApi;
}

/** A reference session that persists to `dir` (lazily, from the first assistant message on). */
export function createReference(dir: string, cwd = DEMO_CWD): RefSessionManager {
  return RefSessionManager.create(cwd, dir);
}

/** The reference opening a file; `dir` is where it would put branched sessions. */
export function openReference(path: string, dir: string): RefSessionManager {
  return RefSessionManager.open(path, dir);
}

/** A controllable clock: every Date the two implementations create reads `now`. */
export interface FakeClock {
  now: number;
  set(ms: number): void;
}

/** Starts faking Date only (timers stay real); call `restoreClock` afterwards. */
export function fakeClock(startMs: number): FakeClock {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(startMs);
  return {
    now: startMs,
    set(ms: number) {
      vi.setSystemTime(ms);
    },
  };
}

export function restoreClock(): void {
  vi.useRealTimers();
}

/** A random start for the fake clock, so that runs differ in their timestamps too. */
export function clockStart(seedValue: number): number {
  return Date.parse('2026-01-01T00:00:00.000Z') + (Math.abs(seedValue) % 100_000_000);
}

/** Runs in one property; the default keeps the suite fast, CANOPY_INTEROP_RUNS asks for more. */
export function interopRuns(defaultRuns: number): number {
  const fromEnv = Number(process.env.CANOPY_INTEROP_RUNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : defaultRuns;
}

/**
 * A test timeout that grows with the number of runs asked for, never below the suite's default
 * (vitest.config.ts): a failure bound for a busy machine, not an expected duration.
 */
export function interopTimeout(runs: number, msPerRun: number): number {
  return Math.max(300_000, 30_000 + runs * msPerRun);
}

/** The seed of a property run: CANOPY_INTEROP_SEED to replay one, otherwise random (and logged). */
export function interopSeed(name: string): number {
  const fromEnv = Number(process.env.CANOPY_INTEROP_SEED);
  const seed =
    Number.isInteger(fromEnv) && process.env.CANOPY_INTEROP_SEED ? fromEnv : (Math.random() * 2 ** 31) | 0;
  console.info(`[interop] ${name}: seed ${seed} (replay with CANOPY_INTEROP_SEED=${seed})`);
  return seed;
}
