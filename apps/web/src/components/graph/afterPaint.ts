// Hands a value on only after the browser has painted a frame. The graph's layout of a large tree
// is one long piece of work that React cannot split (one component's render), and a deferred
// render (useDeferredValue) may still run before the browser paints the outline's update: a live
// append, a filter change or a keystroke then reached the screen only after the graph was done.
// Taking the new value in a task queued from an animation frame callback puts that frame's paint
// in between, so the outline shows first and the graph follows.

import { startTransition, useEffect, useState } from 'react';
import type { StoreApi } from 'zustand/vanilla';

/** The browser's frame and task queues (injected in tests). */
export interface PaintClock {
  /** Runs `callback` before the next frame is painted. */
  requestFrame(callback: () => void): number;
  cancelFrame(handle: number): void;
  /** Runs `callback` in a task of its own, after whatever is running (and a frame it requested) is done. */
  queueTask(callback: () => void): number;
  cancelTask(handle: number): void;
}

export const browserPaintClock: PaintClock = {
  requestFrame: (callback) => requestAnimationFrame(callback),
  cancelFrame: (handle) => cancelAnimationFrame(handle),
  queueTask: (callback) => window.setTimeout(callback, 0),
  cancelTask: (handle) => window.clearTimeout(handle),
};

/**
 * Delivers the latest offered value once per painted frame: offers made while one is pending only
 * replace the value it will deliver, so a burst of changes (a held key, a stream of appends) costs
 * one delivery per frame, and the last value always arrives.
 */
export class AfterPaint<T> {
  private latest: T | undefined;
  private frame: number | undefined;
  private task: number | undefined;

  constructor(
    private readonly clock: PaintClock,
    private readonly deliver: (value: T) => void,
  ) {}

  get pending(): boolean {
    return this.frame !== undefined || this.task !== undefined;
  }

  offer(value: T): void {
    this.latest = value;
    if (this.pending) return;
    this.frame = this.clock.requestFrame(() => {
      this.frame = undefined;
      this.task = this.clock.queueTask(() => {
        this.task = undefined;
        this.deliver(this.latest as T);
      });
    });
  }

  /** Drops what is pending (the value already shown is current again, or the component is gone). */
  cancel(): void {
    if (this.frame !== undefined) this.clock.cancelFrame(this.frame);
    if (this.task !== undefined) this.clock.cancelTask(this.task);
    this.frame = undefined;
    this.task = undefined;
    this.latest = undefined;
  }
}

/**
 * Follows what `select` answers of `store`'s state, from `shown` (the value delivered last): each
 * change is offered to an AfterPaint, which delivers it after the next painted frame. Answers the
 * unsubscribe. The store is read outside React, so the change itself renders nothing.
 */
export function followAfterPaint<S, T>(
  store: StoreApi<S>,
  select: (state: S) => T,
  shown: T,
  clock: PaintClock,
  deliver: (value: T) => void,
): () => void {
  const afterPaint = new AfterPaint<T>(clock, deliver);
  let last = shown;
  const check = (state: S) => {
    const value = select(state);
    if (Object.is(value, last)) return;
    last = value;
    afterPaint.offer(value);
  };
  // The state may have changed between the render that showed `shown` and this subscription.
  check(store.getState());
  const unsubscribe = store.subscribe(check);
  return () => {
    unsubscribe();
    afterPaint.cancel();
  };
}

/**
 * `select(store's state)` as of the last painted frame: a new value arrives after the frame that
 * showed the rest. The component is not subscribed to the store: reading the state with `useApp`
 * and holding it back would render it in the task of every change only to hand on the old value,
 * and for the graph that render (its layout lookups, viewport and follow hooks) was 4-5 ms of a
 * click or a filter change before their frame. `select` must be a stable function.
 */
export function useStoreValueAfterPaint<S, T>(
  store: StoreApi<S>,
  select: (state: S) => T,
  clock: PaintClock = browserPaintClock,
): T {
  const [shown, setShown] = useState(() => select(store.getState()));
  useEffect(
    () =>
      followAfterPaint(store, select, shown, clock, (next) => startTransition(() => setShown(() => next))),
    [store, select, shown, clock],
  );
  return shown;
}

/**
 * False until the browser has painted a frame while `ready` held, then true for good. A pane whose
 * first render is long (the graph: its layout, canvas and cards) renders a placeholder until then,
 * so that what `ready` waits for (a session's first rows) reaches the screen in a task without it.
 */
export function usePaintedOnceReady(ready: boolean, clock: PaintClock = browserPaintClock): boolean {
  const [painted, setPainted] = useState(false);
  const [scheduler] = useState(() => new AfterPaint<true>(clock, () => setPainted(true)));
  useEffect(() => {
    if (ready && !painted) scheduler.offer(true);
    return () => scheduler.cancel();
  }, [ready, painted, scheduler]);
  return painted;
}
