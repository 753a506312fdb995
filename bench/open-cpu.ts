// Where the CPU of a fresh open goes, thread by thread: the built server and page over one cached
// synthetic session, Debian's Chromium, a fresh server per run, `goto` until every node is in. Reads
// each thread's CPU time from /proc before and after the open (the server's threads by name and id,
// Chromium's by process type and thread name) and prints, per run, the first rows, every node in,
// the page's longest tasks while opening, the CPU of every thread in all, and the threads that used
// at least 50 ms.
// On two cores, a sum near twice the wall means the machine was saturated: moving work to another
// thread cannot shorten that open, only less work can (bench/log/2026-history.md, the round of stop 35).
//
//   node .tools/node_modules/pnpm/bin/pnpm.cjs exec tsx bench/open-cpu.ts [--size 500k] [--runs 3]
//
// Needs the built server and web app (`npm run bench` builds both). Linux only (/proc). Nothing here
// is asserted; it is a tool for reading where the seconds go.
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { cleanup, startCanopy } from '../e2e/support/server';
import {
  launchBrowser,
  listedSessionId,
  loaded,
  BENCH_PAGE_SCRIPT,
  rowSelector,
  shown,
  takeLongTaskList,
} from './browser';
import { sessionFile, SIZES } from './sessions';

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const sizeName = option('--size') ?? '500k';
const runs = Number(option('--runs') ?? 1);

/** Milliseconds per clock tick of /proc's CPU times (USER_HZ is 100 on Linux). */
const MS_PER_TICK = 10;
/** Threads that used less than this are left out of a run's list. */
const MIN_MS = 50;

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // The process or thread ended between the listing and the read.
    return '';
  }
}

/**
 * Who a process is: `server` (the Canopy bundle, pid `serverPid`), Chromium by its process type
 * (`renderer`, `gpu-process`, …; the browser process has none), or null for anything else.
 */
function processKind(pid: string, serverPid: number): string | null {
  if (Number(pid) === serverPid) return 'server';
  // Chromium's child processes rewrite their title: the whole command line as one string.
  const commandLine = readOr(`/proc/${pid}/cmdline`).split('\0').join(' ');
  if (!commandLine.split(' ')[0]?.includes('chromium')) return null;
  const type = /--type=(\S+)/.exec(commandLine)?.[1] ?? 'browser';
  const subType = /--utility-sub-type=(\w+)/.exec(commandLine)?.[1];
  return subType ? `${type} ${subType}` : type;
}

/** CPU milliseconds so far of every thread of the server and of Chromium, by a readable key. */
function threadTimes(serverPid: number): Map<string, number> {
  const times = new Map<string, number>();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const kind = processKind(pid, serverPid);
    if (kind === null) continue;
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      const stat = readOr(`/proc/${pid}/task/${tid}/stat`);
      if (!stat) continue;
      // The name is in parentheses and may hold spaces; the fields after it are space-separated.
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime, the 14th and 15th fields of the whole line.
      const ticks = Number(fields[11]) + Number(fields[12]);
      const thread = tid === pid ? 'main' : kind === 'server' ? `${name} ${tid}` : name;
      const key = `${kind}: ${thread}`;
      times.set(key, (times.get(key) ?? 0) + ticks * MS_PER_TICK);
    }
  }
  return times;
}

interface Run {
  firstRows: number;
  everyNode: number;
  longTasks: number[];
  threads: Map<string, number>;
}

async function oneOpen(file: string): Promise<Run> {
  const canopy = await startCanopy({
    prepare: (dir) => copyFileSync(file, join(dir, basename(file))),
    readyTimeoutMs: 600_000,
  });
  const browser = await launchBrowser();
  try {
    const serverPid = canopy.pid() as number;
    const id = await listedSessionId(canopy);
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.addInitScript(BENCH_PAGE_SCRIPT);
    const before = threadTimes(serverPid);
    const start = performance.now();
    await page.goto(`${canopy.url}&session=${encodeURIComponent(id)}`, { waitUntil: 'commit' });
    await shown(page, rowSelector, 600_000);
    const firstRows = performance.now() - start;
    await loaded(page);
    const everyNode = performance.now() - start;
    const after = threadTimes(serverPid);
    const longTasks = await takeLongTaskList(page);
    const threads = new Map<string, number>();
    for (const [key, ms] of after) threads.set(key, ms - (before.get(key) ?? 0));
    return { firstRows, everyNode, longTasks: longTasks.sort((a, b) => b - a), threads };
  } finally {
    await browser.close();
    await cleanup(canopy);
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

async function main(): Promise<void> {
  const size = SIZES[sizeName];
  if (!size) throw new Error(`unknown size ${sizeName}; one of ${Object.keys(SIZES).join(', ')}`);
  const file = await sessionFile(size);
  for (let run = 1; run <= runs; run++) {
    const result = await oneOpen(file);
    const busy = [...result.threads].filter(([, ms]) => ms >= MIN_MS).sort((a, b) => b[1] - a[1]);
    const total = [...result.threads.values()].reduce((sum, ms) => sum + ms, 0);
    console.log(
      `\nrun ${run}/${runs}, ${sizeName}: first rows ${seconds(result.firstRows)}, every node in ` +
        `${seconds(result.everyNode)}, CPU ${seconds(total)} in all; longest tasks while opening ` +
        `${result.longTasks.slice(0, 5).join(', ') || 'none'} ms`,
    );
    for (const [key, ms] of busy) console.log(`${String(ms).padStart(8)} ms  ${key}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
