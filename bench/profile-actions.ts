/// <reference lib="dom" />
// Where the time of each interaction goes: the built server over one cached synthetic session,
// Debian's Chromium, and for each action of `npm run bench` (live append, click, jump, search
// keystroke, filter change: bench/browser.ts's own steps, in its order, right after a warm open) a
// Performance trace and a CPU profile of the page around the action and its wait. Prints, per
// action, the wall time, the main thread's busy time by trace event (script, style, layout, paint,
// GC) and the page's top functions by self time.
//
//   pnpm exec tsx bench/profile-actions.ts [--size 2.7k] [--top 12] [--out DIR]
//   pnpm exec tsx bench/profile-actions.ts --size 50k --no-trace [--repeat 5]   # wall times only, medians
//   ... --settle   # first let the detail panel load and the page go idle (the bench does not wait)
//   ... --no-heap  # skip the bench's heap reading (a full collection) before the actions
//   ... --no-cpu   # the trace alone, without the CPU profiler's overhead
//
// With --out, each action's trace (.json, for the Performance panel) and profile (.cpuprofile) are
// written there. Nothing here is asserted; it is a tool for reading where the milliseconds go.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { cleanup, startCanopy } from '../e2e/support/server';
import { CANOPY_ACTIONS, launchBrowser, listedSessionId, loaded, readyToTime, usedHeap } from './browser';
import { sessionFile, SIZES } from './sessions';

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const size = option('--size') ?? '2.7k';
const top = Number(option('--top') ?? 12);
const outDir = option('--out');
/** Trace events whose time is summed (the main thread's work by kind). */
const KINDS = [
  'RunTask',
  'EventDispatch',
  'FunctionCall',
  'TimerFire',
  'FireAnimationFrame',
  'v8.run',
  'UpdateLayoutTree',
  'Layout',
  'PrePaint',
  'Paint',
  'Layerize',
  'HitTest',
  'MajorGC',
  'MinorGC',
  'ParseHTML',
];

const tracing = !args.includes('--no-trace');

/** With --no-trace: the wall times of each action over the --repeat rounds, in ms. */
const samples = new Map<string, number[]>();

async function traced(cdp: CDPSession, name: string, run: () => Promise<number>): Promise<void> {
  if (!tracing) {
    const wall = await run().catch((error: unknown) => {
      console.error(`${name}: ${String(error).split('\n')[0]}`);
      return NaN;
    });
    samples.set(name, [...(samples.get(name) ?? []), wall]);
    return;
  }
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (data) => {
    events.push(...(data.value as unknown as TraceEvent[]));
  });
  await cdp.send('Tracing.start', {
    categories: 'toplevel,devtools.timeline,v8.execute',
    transferMode: 'ReportEvents',
  } as never);
  const sampling = !args.includes('--no-cpu');
  if (sampling) {
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
  }
  const wall = await run();
  const { profile } = (
    sampling ? await cdp.send('Profiler.stop') : { profile: { nodes: [], samples: [], timeDeltas: [] } }
  ) as {
    profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  };
  const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.end');
  await done;
  if (outDir) {
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, `${size}-${name}.json`), JSON.stringify({ traceEvents: events }));
    writeFileSync(join(outDir, `${size}-${name}.cpuprofile`), JSON.stringify(profile));
  }
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const onMain = events.filter((e) => main && e.pid === main.pid && e.tid === main.tid && e.ph === 'X');
  const sums = new Map<string, number>();
  for (const e of onMain)
    if (KINDS.includes(e.name)) sums.set(e.name, (sums.get(e.name) ?? 0) + (e.dur ?? 0) / 1000);
  console.log(`\n== ${name}: ${wall.toFixed(1)} ms wall`);
  console.log(
    '   main thread: ' +
      [...sums]
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(', '),
  );
  const tasks = onMain.filter(
    (e) => (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') && (e.dur ?? 0) > 1000,
  );
  const first = tasks[0]?.ts ?? 0;
  console.log(
    '   tasks >1 ms (start+dur): ' +
      tasks.map((t) => `${((t.ts - first) / 1000).toFixed(0)}+${((t.dur ?? 0) / 1000).toFixed(1)}`).join(' '),
  );
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]!);
    if (!node) continue;
    const f = node.callFrame;
    const key = `${f.functionName || '(anon)'} ${basename(f.url) || ''}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  }
  const busy = [...self].filter(([k]) => !k.startsWith('(idle)') && !k.startsWith('(program)'));
  console.log(
    '   top self: ' +
      busy
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([k, v]) => `\n     ${v.toFixed(1).padStart(6)}  ${k}`)
        .join(''),
  );
}

async function main(): Promise<void> {
  const file = await sessionFile(SIZES[size]!);
  const canopy = await startCanopy({
    prepare: (dir) => copyFileSync(file, join(dir, basename(file))),
    readyTimeoutMs: 600_000,
  });
  // Launched inside the try: a browser that fails to start must not leave the server running.
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  try {
    browser = await launchBrowser();
    const url = `${canopy.url}&session=${encodeURIComponent(await listedSessionId(canopy))}`;
    const page: Page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    // As the bench: a first open on the fresh server, then the measured page's open of the session
    // the server already holds (the warm open), its actions right after every node is in.
    await page.goto(url);
    await loaded(page);
    await page.goto(url);
    // Until the whole snapshot is in there is no leaf yet, and the append below would go under the
    // last row streamed so far, off the screen once the tree is whole: start on the whole tree.
    await loaded(page);
    if (args.includes('--settle')) {
      // The selected entry's detail loads after the rows: let it land before the first action.
      await page.getByTestId('detail.content').waitFor({ timeout: 60_000 });
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 100))));
    }
    // The bench takes the page's heap (a full collection) before its actions: so does this, unless told.
    if (!args.includes('--no-heap')) await usedHeap(page);
    await readyToTime(page);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    const liveFile = join(canopy.sessionsDir, basename(file));
    const rounds = tracing ? 1 : Number(option('--repeat') ?? 5);
    for (let round = 0; round < rounds; round++) {
      // The bench's own steps, in its order (bench/browser.ts), each traced or timed.
      for (const action of CANOPY_ACTIONS) await traced(cdp, action.key, () => action.run(page, liveFile));
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 200))));
    }
    for (const [name, walls] of samples) {
      const sorted = walls.filter((wall) => !Number.isNaN(wall)).sort((a, b) => a - b);
      const median = sorted[sorted.length >> 1] ?? NaN;
      console.log(
        `${name}: median ${median.toFixed(1)} ms of ${walls.map((wall) => wall.toFixed(0)).join(', ')}`,
      );
    }
    await page.close();
  } finally {
    await browser?.close();
    await cleanup(canopy);
  }
}

void main();
