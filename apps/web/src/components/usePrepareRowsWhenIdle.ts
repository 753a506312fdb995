// The next filter change or search keystroke after a jump or a live append runs session-core's full
// pass over every entry, and it used to start with two O(tree) steps that neither the filter nor
// the query decides: the depth-first order for the new leaf and the filter scans. They are done here,
// in an idle callback, while the user reads the result of the last action (prepareRowsAhead; see
// docs/architecture.md, the path of an event, step 9).

import { prepareRowsAhead } from '@canopy/session-core';
import { useEffect } from 'react';
import { useApp } from '../store/context';
import { leafIdOf, treeOf, treeVersionOf } from '../store/selectors';

/** Idle callbacks (injected in tests); `setTimeout` where the browser has none. */
export interface IdleClock {
  request(callback: () => void): number;
  cancel(handle: number): void;
}

export const browserIdleClock: IdleClock =
  typeof requestIdleCallback === 'function'
    ? {
        // Within a second even on a page that never idles, so the work is still off the next action.
        request: (callback) => requestIdleCallback(callback, { timeout: 1000 }),
        cancel: (handle) => cancelIdleCallback(handle),
      }
    : {
        request: (callback) => window.setTimeout(callback, 50),
        cancel: (handle) => window.clearTimeout(handle),
      };

export function usePrepareRowsWhenIdle(clock: IdleClock = browserIdleClock): void {
  const tree = useApp(treeOf);
  const version = useApp(treeVersionOf);
  const leafId = useApp(leafIdOf);
  // While a snapshot streams in, every part changes the tree: wait for the last one.
  const streaming = useApp((s) => s.snapshot !== null);
  useEffect(() => {
    if (!tree || streaming) return;
    const handle = clock.request(() => prepareRowsAhead(tree, leafId));
    return () => clock.cancel(handle);
  }, [clock, tree, version, leafId, streaming]);
}
