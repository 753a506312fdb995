// The next filter change or search keystroke after a jump or a live append runs session-core's full
// pass over every entry, and it used to start with two O(tree) steps that neither the filter nor
// the query decides: the depth-first order for the new leaf and the filter scans. They are done here,
// in idle callbacks, while the user reads the result of the last action (prepareRowsAhead; see
// docs/architecture.md, the path of an event, step 9): the order in the first, the filter classes
// in as many as they take (at 200,000 entries the scans of the five modes were one callback of
// ~100 ms, and a key pressed meanwhile waited for it). The search masks that let the first search
// keystroke skip reading most entries' text follow the same way, where the snapshot worker did not
// make them already (prepareSearchMasks stops when the callback's time is up).

import { FILTER_MODES, prepareRowsAhead, prepareSearchMasks, type ViewTree } from '@canopy/session-core';
import { useEffect } from 'react';
import { useApp } from '../store/context';
import { leafIdOf, treeOf, treeVersionOf } from '../store/selectors';

/** Idle callbacks (injected in tests); `setTimeout` where the browser has none. */
export interface IdleClock {
  /** Runs `callback` when the page is idle; `timeLeft()` says how many ms of that idle time are left. */
  request(callback: (timeLeft: () => number) => void): number;
  cancel(handle: number): void;
}

/** Idle time a callback takes when the browser has no idle callbacks, or was forced to run one. */
const FALLBACK_IDLE_MS = 8;

/**
 * The most a callback takes of an idle period. The browser grants up to 50 ms when nothing is
 * scheduled, but a key pressed meanwhile waits for the callback to end: at 200k entries the first
 * search keystroke after a jump waited up to 49 ms for the filter scans prepared ahead.
 */
export const MAX_IDLE_SLICE_MS = 10;

/** The time left of `ms` from now. */
function timeLeftOf(ms: number): () => number {
  const end = performance.now() + ms;
  return () => end - performance.now();
}

/** The time left of an idle callback: its deadline's, at most MAX_IDLE_SLICE_MS from now. */
export function idleSlice(deadline: Pick<IdleDeadline, 'timeRemaining'>): () => number {
  const slice = timeLeftOf(MAX_IDLE_SLICE_MS);
  return () => Math.min(deadline.timeRemaining(), slice());
}

export const browserIdleClock: IdleClock =
  typeof requestIdleCallback === 'function'
    ? {
        // Within a second even on a page that never idles, so the work is still off the next action.
        request: (callback) =>
          requestIdleCallback(
            (deadline) => callback(deadline.didTimeout ? timeLeftOf(FALLBACK_IDLE_MS) : idleSlice(deadline)),
            { timeout: 1000 },
          ),
        cancel: (handle) => cancelIdleCallback(handle),
      }
    : {
        request: (callback) => window.setTimeout(() => callback(timeLeftOf(FALLBACK_IDLE_MS)), 50),
        cancel: (handle) => window.clearTimeout(handle),
      };

/**
 * Prepares the rows of `tree` for `leafId`, then its search masks, each in as many idle callbacks
 * as it takes; the function returned stops whatever is still to come.
 */
export function prepareWhenIdle(clock: IdleClock, tree: ViewTree, leafId: string | null): () => void {
  const masks = (timeLeft: () => number) => {
    if (!prepareSearchMasks(tree, () => timeLeft() <= 1)) handle = clock.request(masks);
  };
  const rows = (timeLeft: () => number) => {
    const done = prepareRowsAhead(tree, leafId, FILTER_MODES, () => timeLeft() <= 1);
    handle = clock.request(done ? masks : rows);
  };
  let handle = clock.request(rows);
  return () => clock.cancel(handle);
}

export function usePrepareRowsWhenIdle(clock: IdleClock = browserIdleClock): void {
  const tree = useApp(treeOf);
  const version = useApp(treeVersionOf);
  const leafId = useApp(leafIdOf);
  // While a snapshot streams in, every part changes the tree: wait for the last one.
  const streaming = useApp((s) => s.snapshot !== null);
  useEffect(() => {
    if (!tree || streaming) return;
    return prepareWhenIdle(clock, tree, leafId);
  }, [clock, tree, version, leafId, streaming]);
}
