/// <reference lib="dom" />
// Where the time of each interaction goes: the built server over one cached synthetic session,
// Debian's Chromium, and for each action of `npm run bench` (click, jump, search keystroke, filter
// change, live append) a Performance trace and a CPU profile of the page around the same action and
// wait as bench/browser.ts times. Prints, per action, the wall time, the main thread's busy time by
// trace event (script, style, layout, paint, GC) and the page's top functions by self time.
//
//   pnpm exec tsx bench/profile-actions.ts [--size 2.7k] [--top 12] [--out DIR]
//   pnpm exec tsx bench/profile-actions.ts --size 50k --no-trace [--repeat 5]   # wall times only, medians
//
// With --out, each action's trace (.json, for the Performance panel) and profile (.cpuprofile) are
// written there. Nothing here is asserted; it is a tool for reading where the milliseconds go.
import { appendFileSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { cleanup, startCanopy } from '../e2e/support/server';
import { appendedUserLine, launchBrowser, listedSessionId, loaded, userOnlyFilterPressed } from './browser';
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
const rowSelector = '[data-testid="tree.outline"] [data-testid="tree.node"]';
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
    categories: 'devtools.timeline,v8.execute',
    transferMode: 'ReportEvents',
  } as never);
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  const wall = await run();
  const { profile } = (await cdp.send('Profiler.stop')) as {
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
  const tasks = onMain.filter((e) => e.name === 'RunTask' && (e.dur ?? 0) > 1000);
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

async function timed(action: () => Promise<unknown>, until: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await action();
  await until();
  return performance.now() - start;
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
    await page.goto(url);
    // Until the whole snapshot is in there is no leaf yet, and the append below would go under the
    // last row streamed so far, off the screen once the tree is whole: start on the whole tree.
    await loaded(page);
    // The selected entry's detail loads after the rows: let it land before the first measured action.
    await page.getByTestId('detail.content').waitFor({ timeout: 60_000 });
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 100))));
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    const liveFile = join(canopy.sessionsDir, basename(file));
    const rows = page.locator(rowSelector);
    const raf = { polling: 'raf' as const, timeout: 60_000 };

    const rounds = tracing ? 1 : Number(option('--repeat') ?? 5);
    for (let round = 0; round < rounds; round++) {
      await traced(cdp, 'live-append', async () => {
        // After a jump to a user message the leaf is its parent, which may be out of view (the
        // jumped-to row stays where it was): append under the selected row then.
        const leaf =
          (await page.$(`${rowSelector}[data-leaf]`)) !== null
            ? await page.getAttribute(`${rowSelector}[data-leaf]`, 'data-entry-id')
            : await page.getAttribute(`${rowSelector}[aria-selected="true"]`, 'data-entry-id');
        const { id, line } = appendedUserLine('prof', leaf, 'appended by the profiler');
        return timed(
          async () => appendFileSync(liveFile, `${line}\n`),
          () => page.waitForSelector(`${rowSelector}[data-entry-id="${id}"]`),
        );
      });
      await traced(cdp, 'click', async () => {
        const target = rows.nth(2);
        const handle = await target.elementHandle();
        return timed(
          () => target.click(),
          () => page.waitForFunction((el) => el?.getAttribute('aria-selected') === 'true', handle, raf),
        );
      });
      await traced(cdp, 'click-at-point', async () => {
        // A row in view that is not selected: the outline keeps rows above and below the view in the DOM.
        const point = await page.evaluate((selector) => {
          const outline = document.querySelector('[data-testid="tree.outline"]')!.getBoundingClientRect();
          const row = Array.from(document.querySelectorAll(selector))
            .map((el) => ({ el, box: el.getBoundingClientRect() }))
            .filter(
              ({ el, box }) =>
                box.top >= outline.top + 44 &&
                box.bottom <= outline.bottom &&
                el.getAttribute('aria-selected') !== 'true',
            )[0]!;
          return { x: row.box.left + 200, y: row.box.top + row.box.height / 2 };
        }, rowSelector);
        return timed(
          () => page.mouse.click(point.x, point.y),
          () =>
            page.waitForFunction(
              ({ x, y }) =>
                document
                  .elementFromPoint(x, y)
                  ?.closest('[role="treeitem"]')
                  ?.getAttribute('aria-selected') === 'true',
              point,
              raf,
            ),
        );
      });
      await traced(cdp, 'jump', async () => {
        const before = await page
          .getAttribute(`${rowSelector}[data-leaf]`, 'data-entry-id', { timeout: 2000 })
          .catch(() => null);
        return timed(
          () => page.keyboard.press('Enter'),
          () =>
            page.waitForFunction(
              ({ selector, old }) =>
                document.querySelector(`${selector}[data-leaf]`)?.getAttribute('data-entry-id') !== old,
              { selector: rowSelector, old: before },
              raf,
            ),
        );
      });
      await page.getByTestId('tree.outline').focus();
      await traced(cdp, 'search-key', async () =>
        timed(
          () => page.keyboard.press('e'),
          () => page.getByTestId('search.count').waitFor(),
        ),
      );
      await page.keyboard.press('Escape');
      await traced(cdp, 'filter', async () =>
        timed(
          () => page.getByTestId('filter.user-only').click(),
          () => userOnlyFilterPressed(page, raf.timeout),
        ),
      );
      // (Esc was pressed after the search; a second one would close the session.)
      await page.getByTestId('filter.default').click();
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
