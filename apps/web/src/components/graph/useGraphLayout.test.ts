import { describe, expect, it } from 'vitest';
import { backgroundSliceClock, SliceRunner, type SliceClock, type TaskScheduler } from './useGraphLayout';

/** A clock whose time moves only when a job works, and whose tasks run when the test says so. */
function fakeClock() {
  let time = 0;
  let next = 1;
  const tasks = new Map<number, () => void>();
  const clock: SliceClock = {
    now: () => time,
    queueTask: (callback) => (tasks.set(next, callback), next++),
    cancelTask: (handle) => void tasks.delete(handle),
  };
  return {
    clock,
    work: (ms: number) => (time += ms),
    /** Runs the tasks queued so far; answers how many ran. */
    tasks: () => {
      const due = [...tasks.values()];
      tasks.clear();
      for (const callback of due) callback();
      return due.length;
    },
  };
}

/** A job of `units` slices of 3 ms each that records the slices run per task. */
function countingJob(fake: ReturnType<typeof fakeClock>, units: number) {
  let left = units;
  const perTask: number[] = [];
  const job = (shouldYield: () => boolean) => {
    let ran = 0;
    while (left > 0) {
      fake.work(3);
      left--;
      ran++;
      if (left > 0 && shouldYield()) break;
    }
    perTask.push(ran);
    return left === 0;
  };
  return { job, perTask };
}

describe('SliceRunner', () => {
  it('runs a job a budget per task, nothing in the calling task, and reports when it is done', () => {
    const fake = fakeClock();
    const runner = new SliceRunner(fake.clock, 8);
    const { job, perTask } = countingJob(fake, 7);
    let done = 0;
    runner.run(job, () => done++);
    expect(perTask).toEqual([]);
    fake.tasks();
    expect(perTask).toEqual([3]);
    expect(done).toBe(0);
    fake.tasks();
    fake.tasks();
    expect(perTask).toEqual([3, 3, 1]);
    expect(done).toBe(1);
    expect(runner.running).toBe(false);
    expect(fake.tasks()).toBe(0);
  });

  it('drops a job that is replaced or cancelled', () => {
    const fake = fakeClock();
    const runner = new SliceRunner(fake.clock, 8);
    const first = countingJob(fake, 7);
    const second = countingJob(fake, 2);
    const done: string[] = [];
    runner.run(first.job, () => done.push('first'));
    fake.tasks();
    runner.run(second.job, () => done.push('second'));
    while (fake.tasks() > 0);
    expect(first.perTask).toEqual([3]);
    expect(done).toEqual(['second']);
    runner.run(first.job, () => done.push('first'));
    runner.cancel();
    expect(fake.tasks()).toBe(0);
    expect(done).toEqual(['second']);
  });

  it('keeps going when asked to run the job it is already running', () => {
    const fake = fakeClock();
    const runner = new SliceRunner(fake.clock, 8);
    const { job, perTask } = countingJob(fake, 4);
    runner.run(job, () => {});
    runner.run(job, () => {});
    expect(fake.tasks()).toBe(1);
    expect(perTask).toEqual([3]);
  });
});

describe('backgroundSliceClock', () => {
  /** A scheduler that keeps the tasks posted, with their priority, until the test runs them. */
  function fakeScheduler() {
    const posted: { priority: string; signal: AbortSignal; run: () => Promise<void> }[] = [];
    const scheduler: TaskScheduler = {
      postTask: (callback, { priority, signal }) =>
        new Promise((resolve, reject) => {
          const run = async () => {
            if (signal.aborted) return reject(signal.reason);
            try {
              resolve(callback());
            } catch (error) {
              reject(error);
            }
          };
          signal.addEventListener('abort', () => reject(signal.reason));
          posted.push({ priority, signal, run });
        }),
    };
    return { scheduler, posted };
  }

  it('queues slices as background tasks, and a cancelled one never runs', async () => {
    const { scheduler, posted } = fakeScheduler();
    const clock = backgroundSliceClock(scheduler);
    const ran: string[] = [];
    const first = clock.queueTask(() => ran.push('first'));
    const second = clock.queueTask(() => ran.push('second'));
    expect(first).not.toBe(second);
    expect(posted.map((task) => task.priority)).toEqual(['background', 'background']);
    clock.cancelTask(first);
    expect(posted[0]!.signal.aborted).toBe(true);
    await Promise.all(posted.map((task) => task.run()));
    await Promise.resolve();
    expect(ran).toEqual(['second']);
  });

  it('runs a whole job in background slices through SliceRunner', async () => {
    const { scheduler, posted } = fakeScheduler();
    const runner = new SliceRunner(backgroundSliceClock(scheduler), 0);
    let left = 3;
    let done = false;
    runner.run(
      () => --left === 0,
      () => (done = true),
    );
    while (!done && posted.length > 0) await posted.shift()!.run();
    expect(left).toBe(0);
    expect(done).toBe(true);
  });
});
