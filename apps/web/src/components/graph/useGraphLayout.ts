// The graph's layout without a long task: a layout from scratch of a large tree (after a snapshot's
// last part, a filter change, a new fork) runs in slices of a few ms, one task each, so input and
// paints get in between; meanwhile the graph shows the last layout of the same tree and says it is
// laying out. Cheap layouts (kept, brought up to date after an append, small trees) come at once
// (store/derived.ts `graphLayoutSoon`).

import type { ViewTree } from '@canopy/session-core';
import { startTransition, useEffect, useState } from 'react';
import type { GraphLayout } from '../../layout/graphLayout';
import type { Derived, SoonLayout, VisibleRows } from '../../store/derived';

/** Time and the task queue (injected in tests). */
export interface SliceClock {
  now(): number;
  queueTask(callback: () => void): number;
  cancelTask(handle: number): void;
}

/** The Prioritized Task Scheduling API (Chromium, Firefox), where the browser has it. */
export interface TaskScheduler {
  postTask(callback: () => void, options: { priority: 'background'; signal: AbortSignal }): Promise<unknown>;
}

const taskScheduler = (globalThis as { scheduler?: Partial<TaskScheduler> }).scheduler;

/**
 * Slices as background tasks where the browser can: every other task goes first, the input, the
 * server's next event, the frame that shows it (a slice queued with setTimeout took its turn with
 * them: an archive's relayout held up a restore pressed right after it by 10–30 ms at 200k). The
 * work still runs whenever nothing else waits, which is most of the time.
 */
export function backgroundSliceClock(scheduler: TaskScheduler): SliceClock {
  const pending = new Map<number, AbortController>();
  let next = 0;
  return {
    now: () => performance.now(),
    queueTask(callback) {
      const handle = ++next;
      const controller = new AbortController();
      pending.set(handle, controller);
      scheduler
        .postTask(
          () => {
            pending.delete(handle);
            callback();
          },
          { priority: 'background', signal: controller.signal },
        )
        // A cancelled task rejects with the abort; a slice's own error is thrown again, uncaught,
        // as from the timer it replaces.
        .catch((error: unknown) => {
          if (!controller.signal.aborted)
            queueMicrotask(() => {
              throw error;
            });
        });
      return handle;
    },
    cancelTask(handle) {
      pending.get(handle)?.abort();
      pending.delete(handle);
    },
  };
}

export const browserSliceClock: SliceClock =
  typeof taskScheduler?.postTask === 'function'
    ? backgroundSliceClock(taskScheduler as TaskScheduler)
    : {
        now: () => performance.now(),
        queueTask: (callback) => window.setTimeout(callback, 0),
        cancelTask: (handle) => window.clearTimeout(handle),
      };

/** Work per task: well under the 100 ms of a long task even on a loaded machine, a frame's worth. */
export const SLICE_MS = 8;

type Job = NonNullable<SoonLayout['job']>;

/** Runs one job at a time, a slice per task, until it is done or replaced. */
export class SliceRunner {
  private handle: number | undefined;
  private job: Job | null = null;

  constructor(
    private readonly clock: SliceClock,
    private readonly budgetMs = SLICE_MS,
  ) {}

  get running(): boolean {
    return this.handle !== undefined;
  }

  /** Starts `job` in the next task (replacing any other); `done` runs once it has finished. */
  run(job: Job, done: () => void): void {
    if (this.job === job && this.running) return;
    this.cancel();
    this.job = job;
    const slice = () => {
      this.handle = undefined;
      const deadline = this.clock.now() + this.budgetMs;
      if (job(() => this.clock.now() >= deadline)) {
        this.job = null;
        done();
      } else this.handle = this.clock.queueTask(slice);
    };
    this.handle = this.clock.queueTask(slice);
  }

  cancel(): void {
    if (this.handle !== undefined) this.clock.cancelTask(this.handle);
    this.handle = undefined;
    this.job = null;
  }
}

/** The layout to draw, and whether a newer one is being made. */
export function useGraphLayout(
  derived: Derived,
  tree: ViewTree | null,
  rows: VisibleRows,
  expanded: ReadonlySet<string>,
  clock: SliceClock = browserSliceClock,
): { layout: GraphLayout | null; pending: boolean } {
  const [, setFinished] = useState(0);
  const [runner] = useState(() => new SliceRunner(clock));
  const { layout, job } = derived.graphLayoutSoon(tree, rows, expanded);
  useEffect(() => {
    if (job === null) runner.cancel();
    // Done: render again, and the store answers the finished layout.
    else runner.run(job, () => startTransition(() => setFinished((n) => n + 1)));
  }, [job, runner]);
  useEffect(() => () => runner.cancel(), [runner]);
  return { layout, pending: job !== null };
}
