import { ViewTree, computeRows, type ViewEntry } from '@canopy/session-core';
import { describe, expect, it } from 'vitest';
import { prepareWhenIdle, type IdleClock } from './usePrepareRowsWhenIdle';

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

/** A chain of user messages whose search texts count their reads. */
function entriesWithText(count: number, needleAt: number) {
  const reads = { count: 0 };
  const entries: ViewEntry[] = [];
  for (let n = 0; n < count; n++) {
    const text = n === needleAt ? 'the needle' : 'hay';
    const entry = {
      id: `e${n}`,
      parentId: n === 0 ? null : `e${n - 1}`,
      type: 'message',
      role: 'user',
      timestamp: '2026-01-01T00:00:00.000Z',
      text,
      flags: 0,
    } as ViewEntry;
    Object.defineProperty(entry, 'search', {
      enumerable: true,
      get: () => {
        reads.count++;
        return text;
      },
    });
    entries.push(entry);
  }
  return { entries, reads };
}

describe('prepareWhenIdle', () => {
  it('prepares the rows in one idle callback, then the search masks over as many as they take', () => {
    const { entries, reads } = entriesWithText(5000, 4321);
    const tree = new ViewTree(entries);
    const idle = manualIdleClock(3);
    prepareWhenIdle(idle.clock, tree, 'e4999');
    expect(idle.runOne()).toBe(true);
    expect(reads.count).toBe(0);
    let callbacks = 0;
    while (idle.runOne()) callbacks++;
    // 5,000 entries, a look at the time every 1,024 and three looks per callback: several callbacks.
    expect(callbacks).toBeGreaterThan(1);
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
    const tree = new ViewTree(entriesWithText(5000, 1).entries);
    const idle = manualIdleClock(3);
    const stop = prepareWhenIdle(idle.clock, tree, null);
    idle.runOne();
    idle.runOne();
    stop();
    expect(idle.pending()).toBe(0);
  });
});
