/// <reference lib="dom" />
// The server and browser half of `npm run bench`: the built server bundle started over a temporary
// root holding one session (as a user runs it), its RSS read from /proc before and after the session
// is opened, and Debian's Chromium (headless) timing Canopy and pi's own HTML export of the same file.
// Every timing is taken from Node around one user action and a wait for its visible result (the
// wait polls once per animation frame), so each includes a CDP round trip of a few milliseconds.
// Never `waitForSelector` or a locator's `waitFor` for a timing: Playwright polls those at 0, 20, 70,
// 170, 270 and then every 500 ms, which measured its back-off instead of the app (live append).
// One file: the browser half of the benchmark is one script of timed steps against one started server.
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import { cleanup, repoRoot, startCanopy, type RunningCanopy } from '../e2e/support/server';

const CHROMIUM = '/usr/bin/chromium';
const WAIT_MS = 120_000;
/** Navigation returns once the response starts; the timing then waits for the first rows. */
const GOTO = { waitUntil: 'commit', timeout: 5 * WAIT_MS } as const;

/** One measured number (ms or bytes); NaN when the step failed or does not apply. */
export type Sample = Record<string, number>;

/** The "User" filter button shows as pressed (run in the page). */
const userOnlyPressed = () =>
  document.querySelector('[data-testid="filter.user-only"]')?.getAttribute('aria-pressed') === 'true';

/** Resolves once the "User" filter button shows as pressed, checked every animation frame. */
export async function userOnlyFilterPressed(page: Page, timeout?: number): Promise<void> {
  await page.waitForFunction(userOnlyPressed, undefined, {
    polling: 'raf',
    ...(timeout !== undefined ? { timeout } : {}),
  });
}

/** A user message under `parentId` with a fresh id, as one JSONL line: what a live-append step writes. */
export function appendedUserLine(idPrefix: string, parentId: string | null, text: string) {
  const id = `${idPrefix}${Date.now().toString(36)}`;
  const line = JSON.stringify({
    type: 'message',
    id,
    parentId,
    timestamp: new Date().toISOString(),
    message: { role: 'user', content: text, timestamp: Date.now() },
  });
  return { id, line };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}

function vmKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : NaN;
}

/** The body of a GET, as text (a snapshot is NDJSON). */
async function apiText(canopy: RunningCanopy, path: string): Promise<string> {
  const response = await fetch(`${canopy.origin}${path}`, {
    headers: { authorization: `Bearer ${canopy.token}` },
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${text.slice(0, 300)}`);
  return text;
}

/**
 * The session's id, once the server has read the folder: it listens before that, and a "fresh
 * server" here means one that has listed its sessions, as before it listened first.
 */
export async function listedSessionId(canopy: RunningCanopy): Promise<string> {
  for (;;) {
    const list = JSON.parse(await apiText(canopy, '/api/sessions')) as {
      sessions: Array<{ id: string }>;
      listing?: unknown;
    };
    if (!list.listing && list.sessions[0]) return list.sessions[0].id;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Collects the page's long tasks from its start (`page.addInitScript`); read with takeLongTaskList. */
export const BENCH_PAGE_SCRIPT = `
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
  }).observe({ type: 'longtask', buffered: true });
`;

/**
 * In the page: the time of the first animation frame in which `selector` matches (checked once per
 * frame: the frame that paints it). Plain JavaScript, evaluated as it is.
 */
const SHOWN_IN_PAGE = `(selector, timeout) => new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(selector + ' not seen within ' + timeout + ' ms')), timeout);
  const check = () => {
    if (document.querySelector(selector) === null) return requestAnimationFrame(check);
    clearTimeout(timer);
    resolve(performance.now());
  };
  check();
})`;

const bareSessions = new WeakMap<Page, Promise<CDPSession>>();

/**
 * Evaluates `expression` in the page over a CDP session of its own (awaiting a promise it answers).
 * Not through Playwright: its first `waitForSelector` or `evaluate` after a navigation compiles
 * Playwright's scripts into the page (one task of 40–100 ms while a session opens, traced), which a
 * user's browser never runs; the open's timings and long tasks are the app's only this way.
 */
async function evaluateBare<T>(page: Page, expression: string): Promise<T> {
  let session = bareSessions.get(page);
  if (!session) bareSessions.set(page, (session = page.context().newCDPSession(page)));
  const { result, exceptionDetails } = await (
    await session
  ).send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
  if (exceptionDetails)
    throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text ?? 'evaluation failed');
  return result.value as T;
}

/**
 * Resolves in the first animation frame in which `selector` matches, with that frame's time in the
 * page (ms since its navigation started). Neither `waitForSelector`
 * (it polls 0, 20, 50, 100, 100 ms apart and then every 500 ms: an open was timed at Playwright's
 * next poll, up to half a second late) nor `waitForFunction` (see evaluateBare).
 */
export async function shown(page: Page, selector: string, timeout = WAIT_MS): Promise<number> {
  return evaluateBare<number>(page, `(${SHOWN_IN_PAGE})(${JSON.stringify(selector)}, ${timeout})`);
}

/** The durations (ms) of the long tasks since the last take, and forgets them. */
export async function takeLongTaskList(page: Page): Promise<number[]> {
  return evaluateBare<number[]>(
    page,
    '(() => { const taken = window.__longTasks; window.__longTasks = []; return taken; })()',
  );
}

/** The longest task since the last take (0 for none), and forgets them. */
async function takeLongTasks(page: Page): Promise<number> {
  const tasks = await takeLongTaskList(page);
  return tasks.length === 0 ? 0 : Math.max(...tasks);
}

/**
 * Sets up what Playwright needs in the page to poll for a timing. Its first `waitForFunction` after
 * a navigation installs Playwright's injected script in the page's main world, 20–80 ms on this
 * machine with a 200k session just opened (measured against a MutationObserver's time for the
 * appended row); done before the first timed step, so that it is not counted as the app's.
 */
export async function readyToTime(page: Page): Promise<void> {
  await page.waitForFunction(() => true, undefined, { polling: 'raf' });
}

/**
 * From a navigation to the first frame that shows `selector` in the page it opened. The frame's time
 * counts from the new document's start, which is after this timing's: a larger one was seen in the
 * document before the navigation (a reload's old rows), and the timing fails instead of lying.
 */
async function timedOpen(
  page: Page,
  navigate: () => Promise<unknown>,
  selector: string,
  timeout?: number,
): Promise<number> {
  const start = performance.now();
  await navigate();
  const inPage = await shown(page, selector, timeout);
  const wall = performance.now() - start;
  if (inPage > wall) throw new Error(`${selector} was seen before the navigation's document started`);
  return wall;
}

async function timed(action: () => Promise<unknown>, until: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await action();
  await until();
  return performance.now() - start;
}

/**
 * The page's half of an in-page timing, as plain JavaScript (code compiled by tsx may call helpers
 * that the page does not have): from the first `type` event's timeStamp to the first animation
 * frame callback in which `shows(arg)` holds, the frame that paints the result.
 */
const IN_PAGE_TIMER = `(type, shows, arg) => new Promise((resolve) => {
  let start = -1;
  const onInput = (event) => { if (start < 0) start = event.timeStamp; };
  window.addEventListener(type, onInput, true);
  const frame = () => {
    if (start >= 0 && shows(arg)) {
      window.removeEventListener(type, onInput, true);
      resolve(performance.now() - start);
    } else requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})`;

let inPageTimings = 0;

/**
 * Arms a timing in the page before an action (`type`: the click or the key that starts it), when
 * one is wanted (`tell`): the time from that input event to the frame that shows `shows(arg)`,
 * what a user sees, without the CDP round trips of the action and the poll that the wall from
 * Node includes. `shows` is a self-contained function, as for `waitForFunction`. Answers a
 * function that, once the wall's wait has seen the result, reads the timing and tells it (NaN if
 * the page has not answered within 10 s).
 */
async function armInPage<A>(
  page: Page,
  tell: ((ms: number) => void) | undefined,
  type: 'click' | 'keydown',
  shows: (arg: A) => boolean,
  arg: A,
): Promise<() => Promise<void>> {
  if (!tell) return async () => undefined;
  const key = `__canopyBenchTiming${++inPageTimings}`;
  const timer = `(${IN_PAGE_TIMER})(${JSON.stringify(type)}, ${shows.toString()}, ${JSON.stringify(arg)})`;
  // The expression's value is 0, not the promise, which `evaluate` would wait for.
  await page.evaluate(`(window.${key} = ${timer}), 0`);
  return async () => {
    const late = new Promise<number>((resolve) => setTimeout(() => resolve(NaN), 10_000).unref());
    tell(await Promise.race([page.evaluate(`window.${key}`) as Promise<number>, late]));
  };
}

/**
 * Presses `key` and answers the wall time until `shows(arg)` holds in the page (polled every frame);
 * given `inPage`, also tells the time from the keydown to the frame that shows it (`armInPage`).
 */
async function pressUntil<A>(
  page: Page,
  key: string,
  shows: (arg: A) => boolean,
  arg: A,
  inPage: ((ms: number) => void) | undefined,
): Promise<number> {
  const told = await armInPage(page, inPage, 'keydown', shows, arg);
  // Playwright's overloads cannot tell an unconstrained `A` apart from their no-argument form.
  const wall = await timed(
    () => page.keyboard.press(key),
    () =>
      page.waitForFunction(shows as (arg: unknown) => boolean, arg as unknown, {
        polling: 'raf',
        timeout: WAIT_MS,
      }),
  );
  await told();
  return wall;
}

/** Runs `step`; a failure is reported and gives NaN, so one broken step does not lose the run. */
async function attempt(name: string, step: () => Promise<number>): Promise<number> {
  try {
    return await step();
  } catch (error) {
    console.warn(`  ${name} failed: ${(error as Error).message.split('\n')[0]}`);
    return NaN;
  }
}

/** An outline row: the first one on screen is "interactive". */
export const rowSelector = '[data-testid="tree.outline"] [data-testid="tree.node"]';
/** The first rows show before the last part of a large snapshot; the tree area is busy until then. */
const loadedSelector = '[data-testid="tree.area"][aria-busy="false"]';

/**
 * Waits until the whole snapshot is in (the frame that shows the tree area no longer busy), then
 * two frames more (the deferred renders it starts: the graph layout, the session totals), so that
 * their long tasks count as the open's.
 */
export async function loaded(page: Page): Promise<void> {
  await shown(page, loadedSelector, 5 * WAIT_MS);
  await evaluateBare(
    page,
    'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0))))',
  );
}

/**
 * One Canopy run over `file`: a fresh server, RSS before and after the open, cold and warm open to
 * the first rows, then click, jump, search, filter, a live append and long tasks while scrolling.
 */
export async function canopyRun(
  browser: Browser | undefined,
  file: string,
  fileBytes: number,
  profileDir?: string,
): Promise<Sample> {
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const canopy = await startCanopy({
    // A copy: the live-append step writes to it, and the cached file must stay as generated.
    prepare: (dir) => copyFileSync(file, join(dir, basename(file))),
    readyTimeoutMs: 600_000,
    // With a profile folder the server writes a V8 CPU profile there when it stops.
    ...(profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}),
  });
  const sample: Sample = {};
  try {
    const pid = canopy.pid() as number;
    const id = await listedSessionId(canopy);
    const rssBefore = vmKb(pid, 'VmRSS');
    const url = `${canopy.url}&session=${encodeURIComponent(id)}`;
    let page: Page | undefined;
    if (browser) {
      page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      await page.addInitScript(BENCH_PAGE_SCRIPT);
      const cdp = profileDir ? await page.context().newCDPSession(page) : undefined;
      if (cdp) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.start');
      }
      const coldStart = performance.now();
      sample.coldOpen = await attempt('cold open', () =>
        timedOpen(page!, () => page!.goto(url, GOTO), rowSelector),
      );
      sample.coldLoaded = await attempt('cold load', async () => {
        await loaded(page!);
        return performance.now() - coldStart;
      });
      if (cdp && profileDir) {
        // The page's main thread during the cold open, for bench/cpuprofile-top.ts.
        const { profile } = await cdp.send('Profiler.stop');
        writeFileSync(join(profileDir, `browser-${basename(file)}.cpuprofile`), JSON.stringify(profile));
      }
      sample.openLongTask = await attempt('long tasks', () => takeLongTasks(page!));
    } else {
      const start = performance.now();
      await apiText(canopy, `/api/sessions/${encodeURIComponent(id)}`);
      sample.restOpen = performance.now() - start;
    }
    const rssAfter = vmKb(pid, 'VmRSS');
    sample.rssGrowth = rssAfter - rssBefore;
    sample.rssGrowthPerFile = (rssAfter - rssBefore) / fileBytes;
    sample.rssPeakPerFile = (vmKb(pid, 'VmHWM') - rssBefore) / fileBytes;
    if (page)
      Object.assign(sample, await canopyInteractions(page, url, join(canopy.sessionsDir, basename(file))));
  } finally {
    await cleanup(canopy);
  }
  return sample;
}

/** The page's JavaScript heap after a full collection, in bytes (what the open session holds). */
export async function usedHeap(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize } = await cdp.send('Runtime.getHeapUsage');
    return usedSize;
  } finally {
    await cdp.detach();
  }
}

/** One timed action after an open: its key in the sample, and the step (ms; NaN when not possible). */
export interface CanopyAction {
  key: 'liveAppend' | 'click' | 'jump' | 'searchKey' | 'filter' | 'archive' | 'restore' | 'compare';
  name: string;
  /**
   * Runs the step and answers its wall from Node. Given `inPage`, an action a user starts (all but
   * the live append, which starts in the file) is also timed in the page (`armInPage`) and told.
   */
  run: (page: Page, file: string, inPage?: (ms: number) => void) => Promise<number>;
}

/** In the page: the row under (x, y) is the selected one. */
const rowSelectedAt = ({ x, y }: { x: number; y: number }) =>
  document.elementFromPoint(x, y)?.closest('[role="treeitem"]')?.getAttribute('aria-selected') === 'true';

/** In the page: the leaf's row is another entry than `before`. */
const leafMovedFrom = ({ selector, before }: { selector: string; before: string | null }) =>
  document.querySelector(`${selector}[data-leaf]`)?.getAttribute('data-entry-id') !== before;

/** In the page: the search shows its match count. */
const searchCountShown = () => document.querySelector('[data-testid="search.count"]') !== null;

/**
 * The actions timed after the warm open, in the order they run. Each leaves the page as the next
 * expects (the search is cleared, the filter set back), so bench/profile-actions.ts runs the same
 * steps in rounds, traced.
 */
export const CANOPY_ACTIONS: CanopyAction[] = [
  {
    key: 'liveAppend',
    name: 'live append',
    run: async (page, file) => {
      // After a jump to a user message the leaf is its parent, which may be out of view (the
      // jumped-to row stays where it was): a later round appends under the selected row then.
      const leaf = await page
        .getAttribute(`${rowSelector}[data-leaf]`, 'data-entry-id', { timeout: 5000 })
        .catch(() => page.getAttribute(`${rowSelector}[aria-selected="true"]`, 'data-entry-id'));
      const { id, line } = appendedUserLine('bench', leaf, 'appended by the benchmark');
      return timed(
        async () => appendFileSync(file, `${line}\n`),
        () =>
          page.waitForFunction(
            (selector) => document.querySelector(selector) !== null,
            `${rowSelector}[data-entry-id="${id}"]`,
            { polling: 'raf', timeout: WAIT_MS },
          ),
      );
    },
  },
  {
    key: 'click',
    name: 'click',
    run: async (page, _file, inPage) => {
      // A row in view, not selected, clicked where it is: the outline keeps rows above and below the
      // view in the DOM, and Playwright's locator click would scroll to one and wait for it to stand
      // still over animation frames first (about 100 ms that was timed as the app's).
      const point = await page.evaluate((selector) => {
        const view = document.querySelector('[data-testid="tree.outline"]')?.getBoundingClientRect();
        const row = Array.from(document.querySelectorAll(selector)).find((el) => {
          const box = el.getBoundingClientRect();
          return (
            view &&
            box.top >= view.top &&
            box.bottom <= view.bottom &&
            el.getAttribute('aria-selected') !== 'true'
          );
        });
        const box = row?.getBoundingClientRect();
        return box ? { x: box.left + Math.min(200, box.width / 2), y: box.top + box.height / 2 } : null;
      }, rowSelector);
      if (!point) return NaN;
      const told = await armInPage(page, inPage, 'click', rowSelectedAt, point);
      const wall = await timed(
        () => page.mouse.click(point.x, point.y),
        () => page.waitForFunction(rowSelectedAt, point, { polling: 'raf', timeout: WAIT_MS }),
      );
      await told();
      return wall;
    },
  },
  {
    key: 'jump',
    name: 'jump',
    run: async (page, _file, inPage) => {
      const before = await page.getAttribute(`${rowSelector}[data-leaf]`, 'data-entry-id').catch(() => null);
      const leaf = { selector: rowSelector, before };
      const wall = await pressUntil(page, 'Enter', leafMovedFrom, leaf, inPage);
      return wall;
    },
  },
  {
    key: 'searchKey',
    name: 'search keystroke',
    run: async (page, _file, inPage) => {
      await page.getByTestId('tree.outline').focus();
      const wall = await pressUntil(page, 'e', searchCountShown, undefined, inPage);
      // Clears the search (a second Escape would close the session).
      await page.keyboard.press('Escape').catch(() => undefined);
      return wall;
    },
  },
  {
    key: 'filter',
    name: 'filter change',
    run: async (page, _file, inPage) => {
      // Clicked where it is, like the row above (no actionability waits in the timing).
      const box = await page.getByTestId('filter.user-only').boundingBox();
      if (!box) return NaN;
      const told = await armInPage(page, inPage, 'click', userOnlyPressed, undefined);
      const wall = await timed(
        () => page.mouse.click(box.x + box.width / 2, box.y + box.height / 2),
        () => userOnlyFilterPressed(page),
      );
      await told();
      await page
        .getByTestId('filter.default')
        .click()
        .catch(() => undefined);
      return wall;
    },
  },
  {
    key: 'archive',
    name: 'archive a branch',
    run: async (page, _file, inPage) => {
      // Canopy refuses to write while another writer is active (the live append above, for 3 s).
      await page.getByTestId('writer.active').waitFor({ state: 'detached', timeout: WAIT_MS });
      // A row off the active path (its branch never holds the leaf, so it may be archived).
      const id = await page.evaluate((selector) => {
        const row = Array.from(document.querySelectorAll(selector)).find(
          (el) => !el.hasAttribute('data-active') && !el.hasAttribute('data-archive-stub'),
        );
        return row?.getAttribute('data-entry-id') ?? null;
      }, rowSelector);
      if (!id) return NaN;
      await page.locator(`${rowSelector}[data-entry-id="${id}"]`).click();
      const stub = `${rowSelector}[data-entry-id="${id}"][data-archive-stub]`;
      const stubShown = (selector: string) => document.querySelector(selector) !== null;
      const wall = await pressUntil(page, 'Shift+A', stubShown, stub, inPage);
      return wall;
    },
  },
  {
    key: 'restore',
    name: 'restore the branch',
    run: async (page, _file, inPage) => {
      // The archived branch's stub is still selected (the archive above).
      const selected = `${rowSelector}[aria-selected="true"][data-archive-stub]`;
      const id = await page.getAttribute(selected, 'data-entry-id', { timeout: 5000 }).catch(() => null);
      if (!id) return NaN;
      const stub = `${rowSelector}[data-entry-id="${id}"][data-archive-stub]`;
      const stubGone = (selector: string) => document.querySelector(selector) === null;
      const wall = await pressUntil(page, 'Shift+A', stubGone, stub, inPage);
      return wall;
    },
  },
  {
    key: 'compare',
    name: 'compare with the leaf',
    run: async (page, _file, inPage) => {
      // A row off the active path, compared with the leaf from its right-click menu (docs/branches.md).
      const row = page.locator(`${rowSelector}:not([data-active]):not([data-archive-stub])`).first();
      if ((await row.count()) === 0) return NaN;
      await row.click({ button: 'right' });
      const item = await page.getByTestId('entry-menu.compare-leaf').boundingBox({ timeout: 5000 });
      if (!item) return NaN;
      const point = { x: item.x + item.width / 2, y: item.y + item.height / 2 };
      const compareShown = () => document.querySelector('[data-testid="compare.stats"]') !== null;
      const told = await armInPage(page, inPage, 'click', compareShown, undefined);
      const wall = await timed(
        () => page.mouse.click(point.x, point.y),
        () => page.waitForFunction(compareShown, undefined, { polling: 'raf', timeout: WAIT_MS }),
      );
      await told();
      await page.keyboard.press('Escape');
      await page.getByTestId('compare.stats').waitFor({ state: 'detached', timeout: WAIT_MS });
      return wall;
    },
  },
];

async function canopyInteractions(page: Page, url: string, file: string): Promise<Sample> {
  const sample: Sample = {};
  const warmStart = performance.now();
  sample.warmOpen = await attempt('warm open', () =>
    timedOpen(page, () => page.goto(url, GOTO), rowSelector),
  );
  sample.warmLoaded = await attempt('warm load', async () => {
    await loaded(page);
    return performance.now() - warmStart;
  });
  await takeLongTasks(page);
  sample.heapUsed = await attempt('heap', () => usedHeap(page));
  await readyToTime(page);
  for (const action of CANOPY_ACTIONS)
    sample[action.key] = await attempt(action.name, () =>
      action.run(page, file, (ms) => (sample[`${action.key}InPage`] = ms)),
    );
  await takeLongTasks(page);
  sample.scrollLongTask = await attempt('scroll', async () => {
    const box = await page.getByTestId('tree.outline').boundingBox();
    if (!box) return NaN;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let i = 0; i < 20; i++) await page.mouse.wheel(0, i < 10 ? -2000 : 2000);
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0))));
    return takeLongTasks(page);
  });
  sample.panLongTask = await attempt('pan', async () => {
    await page.getByTestId('view.graph').click();
    const graph = page.getByTestId('tree.graph');
    const box = await graph.boundingBox({ timeout: 10_000 });
    if (!box) return NaN;
    await takeLongTasks(page);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    for (let i = 0; i < 20; i++)
      await page.mouse.move(box.x + box.width / 2 + (i % 2 ? 200 : -200), box.y + box.height / 2 + i * 5);
    await page.mouse.up();
    return takeLongTasks(page);
  });
  await page.close();
  return sample;
}

/** pi's `--export` of `file` to HTML, made once and kept beside it. */
export async function piExport(file: string): Promise<string> {
  const html = `${file}.pi-export.html`;
  if (!existsSync(html)) {
    // The package does not export its HTML export; the CLI's `--export` calls this module.
    const module = join(
      repoRoot,
      'node_modules/@mariozechner/pi-coding-agent/dist/core/export-html/index.js',
    );
    const { exportFromFile } = (await import(pathToFileURL(module).href)) as {
      exportFromFile: (input: string, options: { outputPath: string }) => Promise<string>;
    };
    await exportFromFile(file, { outputPath: html });
  }
  return html;
}

/** In pi's export: its tree status line says something else than `before`. */
const statusIsNot = (before: string | null) => document.getElementById('tree-status')?.textContent !== before;

/** In pi's export: the node the benchmark marked is the active one. */
const markedNodeActive = () =>
  document.querySelector('[data-bench-target]')?.classList.contains('active') === true;

/** One run of pi's HTML export in the browser: open to the first tree node, click, search, filter. */
export async function exportRun(browser: Browser, html: string): Promise<Sample> {
  const sample: Sample = {};
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  // The export keeps its main thread busy for a minute or more on large files.
  page.setDefaultTimeout(5 * WAIT_MS);
  await page.addInitScript(BENCH_PAGE_SCRIPT);
  try {
    const treeNode = '#tree-container .tree-node';
    const status = () => page.textContent('#tree-status');
    const statusChanges = async (before: string | null) =>
      page.waitForFunction(statusIsNot, before, { polling: 'raf', timeout: WAIT_MS * 5 });
    const inPage = (key: string) => (ms: number) => (sample[`${key}InPage`] = ms);
    sample.coldOpen = await attempt('export open', () =>
      timedOpen(page, () => page.goto(`file://${html}`, GOTO), treeNode, WAIT_MS * 5),
    );
    sample.openLongTask = await takeLongTasks(page);
    sample.warmOpen = await attempt('export reopen', () =>
      timedOpen(page, () => page.reload(GOTO), treeNode, WAIT_MS * 5),
    );
    await readyToTime(page);
    sample.click = await attempt('export click', async () => {
      const target = page.locator('#tree-container .tree-node:not(.active)').nth(2);
      // Marked, so that the in-page timing finds it too (the export keeps its nodes across a click).
      await target.evaluate((node) => node.setAttribute('data-bench-target', ''));
      // Clicked where it is, as Canopy's row is: scrolled into view before the timing starts.
      await target.scrollIntoViewIfNeeded();
      const box = await target.boundingBox();
      if (!box) return NaN;
      const told = await armInPage(page, inPage('click'), 'click', markedNodeActive, undefined);
      const wall = await timed(
        () => page.mouse.click(box.x + Math.min(100, box.width / 2), box.y + box.height / 2),
        () =>
          page.waitForFunction(markedNodeActive, undefined, {
            polling: 'raf',
            timeout: WAIT_MS * 5,
          }),
      );
      await told();
      return wall;
    });
    // The export's click is its jump: it moves the shown path.
    sample.jump = sample.click;
    sample.jumpInPage = sample.clickInPage ?? NaN;
    sample.searchKey = await attempt('export search', async () => {
      const before = await status();
      const told = await armInPage(page, inPage('searchKey'), 'keydown', statusIsNot, before);
      const wall = await timed(
        () => page.locator('#tree-search').press('e'),
        () => statusChanges(before),
      );
      await told();
      return wall;
    });
    await page
      .locator('#tree-search')
      .fill('')
      .catch(() => undefined);
    sample.filter = await attempt('export filter', async () => {
      const before = await status();
      const box = await page.locator('.filter-btn[data-filter="user-only"]').boundingBox();
      if (!box) return NaN;
      const told = await armInPage(page, inPage('filter'), 'click', statusIsNot, before);
      const wall = await timed(
        () => page.mouse.click(box.x + box.width / 2, box.y + box.height / 2),
        () => statusChanges(before),
      );
      await told();
      return wall;
    });
    await takeLongTasks(page);
    sample.scrollLongTask = await attempt('export scroll', async () => {
      const box = await page.locator('#tree-container').boundingBox();
      if (!box) return NaN;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      for (let i = 0; i < 20; i++) await page.mouse.wheel(0, i < 10 ? -2000 : 2000);
      return takeLongTasks(page);
    });
  } finally {
    await page.close();
  }
  return sample;
}
