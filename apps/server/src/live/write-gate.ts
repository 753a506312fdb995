// When Canopy may append to an open session (docs/safety.md#appends): its last line complete, no
// growth by another writer within the quiet window, and oh-my-pi's lock not held. The open session
// asks before each write and waits (up to midWriteWaitMs) while a blocker stands.
import { AppError } from '../errors';
import { FileSafetyError, lockStateOf } from '../files/confined';
import { fileErrorToAppError } from '../files/file-errors';

/** Time for the write path's waits, injectable so tests do not depend on timing. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const REAL_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Why a write must wait now (a held lock in its own words). */
export interface WriteBlocker {
  reason: 'mid-write' | 'busy' | 'locked';
  message: string;
}

export interface WriteGateOptions {
  file: string;
  clock: Clock;
  /** A write waits until the file has not grown for this long (another writer may be mid-burst). */
  quietWindowMs: number;
  /** How long a write waits for a blocker to go away. */
  midWriteWaitMs: number;
}

export class WriteGate {
  /** When (by the clock) the file was last seen growing by another writer. */
  private lastGrowthAt = Number.NEGATIVE_INFINITY;
  /** The lock file last reported as ignored (reported once per lock file as it is). */
  private ignoredLock: string | undefined;

  constructor(private readonly options: WriteGateOptions) {}

  /** Another writer's bytes arrived (or the file was read again whole) now. */
  grew(): void {
    this.lastGrowthAt = this.options.clock.now();
  }

  /** The time by which a write starting now gives up waiting. */
  deadline(): number {
    return this.options.clock.now() + this.options.midWriteWaitMs;
  }

  /**
   * Why a write must wait now, if it must; and a lock file ignored (too old, or of a dead process)
   * that was not reported before, in its own words, for the caller to report.
   */
  check(pendingBytes: number): { blocker?: WriteBlocker; ignoredLock?: string } {
    const now = this.options.clock.now();
    if (pendingBytes > 0) return { blocker: { reason: 'mid-write', message: 'mid-write' } };
    if (now - this.lastGrowthAt < this.options.quietWindowMs) {
      return { blocker: { reason: 'busy', message: 'busy' } };
    }
    const lock = lockStateOf(this.options.file, now);
    if (lock.held) return { blocker: { reason: 'locked', message: lock.message } };
    if (lock.ignored && this.ignoredLock !== lock.key) {
      this.ignoredLock = lock.key;
      return { ignoredLock: lock.ignored };
    }
    return {};
  }

  /** The refusal of a write whose blocker outlasted the wait. */
  refusal(blocker: WriteBlocker): AppError {
    if (blocker.reason === 'busy') {
      return new AppError(
        'FILE_BUSY',
        'Another program keeps appending to the session file; nothing was written. Try again when it pauses.',
      );
    }
    const waited = `Canopy waited ${(this.options.midWriteWaitMs / 1000).toFixed(1)} s for it.`;
    return fileErrorToAppError(new FileSafetyError(blocker.reason, `${blocker.message}. ${waited}`));
  }
}
