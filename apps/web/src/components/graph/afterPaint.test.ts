import { describe, expect, it } from 'vitest';
import { createStore } from 'zustand/vanilla';
import { AfterPaint, followAfterPaint, type PaintClock } from './afterPaint';

/** Frames and tasks that run only when the test says so, in the browser's order. */
function fakeClock() {
  let next = 1;
  const frames = new Map<number, () => void>();
  const tasks = new Map<number, () => void>();
  const clock: PaintClock = {
    requestFrame: (callback) => (frames.set(next, callback), next++),
    cancelFrame: (handle) => void frames.delete(handle),
    queueTask: (callback) => (tasks.set(next, callback), next++),
    cancelTask: (handle) => void tasks.delete(handle),
  };
  const runAll = (queue: Map<number, () => void>) => {
    const due = [...queue.values()];
    queue.clear();
    for (const callback of due) callback();
  };
  return {
    clock,
    /** The browser renders a frame: animation frame callbacks run, then it paints. */
    frame: () => runAll(frames),
    /** The tasks queued so far run. */
    tasks: () => runAll(tasks),
    idle: () => frames.size === 0 && tasks.size === 0,
  };
}

describe('AfterPaint', () => {
  it('delivers an offered value only in a task after the next frame, not before it paints', () => {
    const fake = fakeClock();
    const delivered: string[] = [];
    const afterPaint = new AfterPaint<string>(fake.clock, (value) => delivered.push(value));
    afterPaint.offer('a');
    fake.tasks();
    expect(delivered).toEqual([]);
    fake.frame();
    expect(delivered).toEqual([]);
    fake.tasks();
    expect(delivered).toEqual(['a']);
    expect(fake.idle()).toBe(true);
  });

  it('delivers once per frame, the latest of several offers', () => {
    const fake = fakeClock();
    const delivered: number[] = [];
    const afterPaint = new AfterPaint<number>(fake.clock, (value) => delivered.push(value));
    afterPaint.offer(1);
    afterPaint.offer(2);
    fake.frame();
    afterPaint.offer(3);
    fake.tasks();
    expect(delivered).toEqual([3]);
    afterPaint.offer(4);
    fake.frame();
    fake.tasks();
    expect(delivered).toEqual([3, 4]);
  });

  it('delivers nothing after cancel, and a later offer is delivered', () => {
    const fake = fakeClock();
    const delivered: string[] = [];
    const afterPaint = new AfterPaint<string>(fake.clock, (value) => delivered.push(value));
    afterPaint.offer('stale');
    fake.frame();
    afterPaint.cancel();
    fake.tasks();
    expect(delivered).toEqual([]);
    expect(afterPaint.pending).toBe(false);
    afterPaint.offer('fresh');
    fake.frame();
    fake.tasks();
    expect(delivered).toEqual(['fresh']);
  });
});

describe('followAfterPaint', () => {
  const pick = (state: { picked: string; other: number }) => state.picked;

  it('delivers a change of the selected value after the next frame, and nothing for other changes', () => {
    const fake = fakeClock();
    const store = createStore(() => ({ picked: 'a', other: 0 }));
    const delivered: string[] = [];
    const stop = followAfterPaint(store, pick, 'a', fake.clock, (value) => delivered.push(value));
    store.setState({ other: 1 });
    expect(fake.idle()).toBe(true);
    store.setState({ picked: 'b' });
    fake.tasks();
    expect(delivered).toEqual([]);
    fake.frame();
    fake.tasks();
    expect(delivered).toEqual(['b']);
    stop();
  });

  it('delivers a change made before it subscribed (between the render and its effect)', () => {
    const fake = fakeClock();
    const store = createStore(() => ({ picked: 'new', other: 0 }));
    const delivered: string[] = [];
    followAfterPaint(store, pick, 'shown', fake.clock, (value) => delivered.push(value));
    fake.frame();
    fake.tasks();
    expect(delivered).toEqual(['new']);
  });

  it('delivers the last of several changes within a frame, and nothing once stopped', () => {
    const fake = fakeClock();
    const store = createStore(() => ({ picked: 'a', other: 0 }));
    const delivered: string[] = [];
    const stop = followAfterPaint(store, pick, 'a', fake.clock, (value) => delivered.push(value));
    store.setState({ picked: 'b' });
    store.setState({ picked: 'c' });
    fake.frame();
    fake.tasks();
    expect(delivered).toEqual(['c']);
    store.setState({ picked: 'd' });
    stop();
    fake.frame();
    fake.tasks();
    store.setState({ picked: 'e' });
    expect(fake.idle()).toBe(true);
    expect(delivered).toEqual(['c']);
  });
});
