// pi 1.6.0's SessionManager (test/pi16.ts) beside session-core's, for the lockstep suite against
// today's pi. The fake clock, run counts, seeds and timeouts are the 0.73.1 suite's (../../interop).
import { SessionManager as Pi16SessionManager } from '../../pi16';
import { DEMO_CWD } from '../../interop/support/drivers';

export {
  asApi,
  clockStart,
  DEMO_CWD,
  fakeClock,
  interopRuns,
  interopSeed,
  interopTimeout,
  MemoryStorage,
  MemoryStorageProvider,
  restoreClock,
  SessionManager,
} from '../../interop/support/drivers';
export { Pi16SessionManager };

/** A pi 1.6 session that persists to `dir` (lazily, from the first user or assistant message on). */
export function createPi16(dir: string, cwd = DEMO_CWD): Pi16SessionManager {
  return Pi16SessionManager.create(cwd, dir);
}

/** pi 1.6 opening a file; `dir` is where it would put branched sessions. */
export function openPi16(path: string, dir: string): Pi16SessionManager {
  return Pi16SessionManager.open(path, dir);
}
