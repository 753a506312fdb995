// Server memory per open session, without a browser (the web app need not be built): starts the
// built server bundle over a temp root holding a copy of each session, opens it with
// `GET /api/sessions/:id` (the snapshot, timed: the whole body read, from a freshly started server),
// and reports VmRSS growth right after it, after the server has been idle for SETTLE_MS (the
// session still open), after the session was released (CANOPY_IDLE_CLOSE_MS=IDLE_CLOSE_MS, read
// at RELEASED_MS), and the peak (VmHWM) growth, over the server's RSS before the open, relative to
// the file size. One fresh server per sample.
//
//   node .tools/node_modules/pnpm/bin/pnpm.cjs --filter @canopy/server run build
//   node .tools/node_modules/pnpm/bin/pnpm.cjs exec tsx bench/server-rss.ts [--sizes 50k,200k] [--runs 1] [--bundle FILE]
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { serverBundle } from '../e2e/support/server';
import { median } from './load.bench';
import { sessionFile, SIZES } from './sessions';

/**
 * How long the started server is left idle before the RSS the growth is measured from is read: the
 * start-up listing of the sessions leaves garbage that V8 collects once idle, which would otherwise
 * count against the open (and make the later readings fall below the baseline).
 */
const BASELINE_SETTLE_MS = 15_000;
/** How long the server is left idle before the settled RSS is read. */
const SETTLE_MS = 15_000;
/** The server releases a session nobody follows after this long (its sweep looks 4× per period). */
const IDLE_CLOSE_MS = 20_000;
/** When (after the open) the released RSS is read: past the release, with time for V8 to shrink. */
const RELEASED_MS = 45_000;

function vmKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

/** Starts the server bundle over a temp root holding a copy of `file`; resolves with its URL. */
async function sample(
  file: string,
  web: string,
  bundle: string,
): Promise<{ growth: number; settled: number; released: number; peak: number; openMs: number }> {
  const base = mkdtempSync(join(tmpdir(), 'canopy-rss-'));
  const sessions = join(base, 'sessions');
  mkdirSync(sessions);
  copyFileSync(file, join(sessions, basename(file)));
  const child = spawn(process.execPath, [bundle, sessions, '--port', '0'], {
    env: {
      ...process.env,
      CANOPY_STATE_DIR: join(base, 'state'),
      HOME: base,
      CANOPY_WEB_DIST: web,
      CANOPY_IDLE_CLOSE_MS: String(IDLE_CLOSE_MS),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const url = await new Promise<URL>((resolve, reject) => {
      let output = '';
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /(http:\/\/[^\s]+\?token=[A-Za-z0-9_-]+)/.exec(output);
        if (match?.[1]) resolve(new URL(match[1]));
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
    });
    const headers = { authorization: `Bearer ${url.searchParams.get('token')}` };
    // The server answers before its first scan of the folder is done: ask until the session is listed.
    let id: string | undefined;
    while (id === undefined) {
      const list = (await (await fetch(`${url.origin}/api/sessions`, { headers })).json()) as {
        sessions: Array<{ id: string }>;
      };
      id = list.sessions[0]?.id;
      if (id === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const pid = child.pid as number;
    await new Promise((resolve) => setTimeout(resolve, BASELINE_SETTLE_MS));
    const before = vmKb(pid, 'VmRSS');
    // The peak counts from here: writing 5 to clear_refs resets VmHWM to the current RSS (Linux ≥ 4.0).
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    const start = performance.now();
    const response = await fetch(`${url.origin}/api/sessions/${encodeURIComponent(id)}`, { headers });
    await response.arrayBuffer();
    const openMs = performance.now() - start;
    if (!response.ok) throw new Error(`open failed: ${response.status}`);
    const bytes = statSync(file).size;
    const growth = (vmKb(pid, 'VmRSS') - before) / bytes;
    // Once idle, V8's memory reducer collects the load's garbage and gives pages back: what is left
    // is what the open session keeps.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const settled = (vmKb(pid, 'VmRSS') - before) / bytes;
    await new Promise((resolve) => setTimeout(resolve, RELEASED_MS - SETTLE_MS));
    const released = (vmKb(pid, 'VmRSS') - before) / bytes;
    return { growth, settled, released, peak: (vmKb(pid, 'VmHWM') - before) / bytes, openMs };
  } finally {
    child.kill('SIGKILL');
    rmSync(base, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const sizes = (args.includes('--sizes') ? args[args.indexOf('--sizes') + 1]! : '50k,200k').split(',');
  // Another build of the server (an earlier commit's, to compare), else apps/server/dist's.
  const bundle = args.includes('--bundle') ? args[args.indexOf('--bundle') + 1]! : serverBundle;
  const runs = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : 1;
  // The server serves a web app folder; these samples never load a page.
  const web = mkdtempSync(join(tmpdir(), 'canopy-rss-web-'));
  mkdirSync(web, { recursive: true });
  writeFileSync(join(web, 'index.html'), '<!doctype html><title>Canopy</title>');
  process.once('exit', () => rmSync(web, { recursive: true, force: true }));
  for (const name of sizes) {
    const file = await sessionFile(SIZES[name]!);
    const samples: Array<Awaited<ReturnType<typeof sample>>> = [];
    for (let run = 0; run < runs; run++) samples.push(await sample(file, web, bundle));
    const mb = (statSync(file).size / 1e6).toFixed(0);
    const of = (key: 'growth' | 'settled' | 'released' | 'peak') =>
      median(samples.map((s) => s[key])).toFixed(2);
    console.log(
      `${name} (${mb} MB): first snapshot ${(median(samples.map((s) => s.openMs)) / 1000).toFixed(2)} s; ` +
        `RSS growth ${of('growth')}×, ${SETTLE_MS / 1000} s later ${of('settled')}×, ` +
        `released (${RELEASED_MS / 1000} s) ${of('released')}× (peak ${of('peak')}×)`,
    );
  }
}

await main();
