import { ViewTree, computeRows } from '@canopy/session-core';
import { readCountedChain } from '@canopy/session-core/testing';
import { describe, expect, it } from 'vitest';
import { idleSlice, MAX_IDLE_SLICE_MS, prepareWhenIdle, type IdleClock } from './usePrepareRowsWhenIdle';

/** Idle callbacks run by hand; each gets `idleMs` of idle time, spent by its own reads of the time. */
function manualIdleClock(idleMs: number) {
  const queue = new Map<number, (timeLeft: () => number) => void>();
  let next = 1;
  const clock: IdleClock = {
    request(callback) {
      queue.set(next, callback);
      return next++;
    },
    cancel(handle) {
      queue.delete(handle);
    },
  };
  const runOne = (): boolean => {
    const first = queue.entries().next();
    if (first.done) return false;
    const [handle, callback] = first.value;
    queue.delete(handle);
    let left = idleMs;
    // Every look at the time spends one ms of the idle period.
    callback(() => left--);
    return true;
  };
  return { clock, runOne, pending: () => queue.size };
}

/** A chain of 5,000 user messages "hay", one of them "the needle", whose search texts count their reads. */
function entriesWithText(needleAt: number) {
  return readCountedChain(
    Array.from({ length: 5000 }, (_, n) => (n === needleAt ? 'the needle' : 'hay')),
    'e',
  );
}

describe('prepareWhenIdle', () => {
  it('prepares the rows, then the search masks, each over as many idle callbacks as they take', () => {
    const { entries, reads } = entriesWithText(4321);
    const tree = new ViewTree(entries);
    // Every look at the time finds it up: each callback does the least it can.
    const idle = manualIdleClock(1);
    prepareWhenIdle(idle.clock, tree, 'e4999');
    // The traversal at once and the filter classes of 4,096 entries, then the other 904 and the
    // modes' bits, then the masks, 1,024 entries per callback: five callbacks.
    let callbacks = 0;
    let firstReading = -1;
    while (idle.runOne()) {
      callbacks++;
      if (firstReading < 0 && reads.count > 0) firstReading = callbacks;
    }
    expect(firstReading).toBe(3);
    expect(callbacks).toBe(2 + 5);
    expect(idle.pending()).toBe(0);
    expect(reads.count).toBe(5000);
    // With the masks complete, a one-letter query reads the text of the leaf only (the leaf is
    // always tested on its own: session-core's flatten.ts) and finds the same rows.
    reads.count = 0;
    const rows = computeRows(tree, { leafId: 'e4999', mode: 'all', query: 'n' });
    expect(rows.rows.map((row) => row.id)).toEqual(['e4321']);
    expect(reads.count).toBe(1);
  });

  it('stops when cancelled: nothing more is requested or run', () => {
    const tree = new ViewTree(entriesWithText(1).entries);
    const idle = manualIdleClock(3);
    const stop = prepareWhenIdle(idle.clock, tree, null);
    idle.runOne();
    idle.runOne();
    stop();
    expect(idle.pending()).toBe(0);
  });
});

describe('idleSlice', () => {
  it('takes at most MAX_IDLE_SLICE_MS of a long idle period, and no more than a short one grants', () => {
    const long = idleSlice({ timeRemaining: () => 50 });
    expect(long()).toBeLessThanOrEqual(MAX_IDLE_SLICE_MS);
    expect(long()).toBeGreaterThan(0);
    const short = idleSlice({ timeRemaining: () => 3 });
    expect(short()).toBe(3);
  });
});
