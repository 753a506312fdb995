// Server memory per open session, without a browser (the web app need not be built): starts the
// built server bundle over a temp root holding a copy of each session, opens it with
// `GET /api/sessions/:id` (the snapshot), and reports VmRSS growth right after it and after the
// server has been idle for SETTLE_MS, and the peak (VmHWM) growth, over the server's RSS before the
// open, relative to the file size. One fresh server per sample.
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

/** How long the server is left idle before the settled RSS is read. */
const SETTLE_MS = 30_000;

function vmKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

/** Starts the server bundle over a temp root holding a copy of `file`; resolves with its URL. */
async function sample(
  file: string,
  web: string,
  bundle: string,
): Promise<{ growth: number; settled: number; peak: number }> {
  const base = mkdtempSync(join(tmpdir(), 'canopy-rss-'));
  const sessions = join(base, 'sessions');
  mkdirSync(sessions);
  copyFileSync(file, join(sessions, basename(file)));
  const child = spawn(process.execPath, [bundle, sessions, '--port', '0'], {
    env: { ...process.env, CANOPY_STATE_DIR: join(base, 'state'), HOME: base, CANOPY_WEB_DIST: web },
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
    const list = (await (await fetch(`${url.origin}/api/sessions`, { headers })).json()) as {
      sessions: Array<{ id: string }>;
    };
    const id = list.sessions[0]?.id as string;
    const pid = child.pid as number;
    const before = vmKb(pid, 'VmRSS');
    const response = await fetch(`${url.origin}/api/sessions/${encodeURIComponent(id)}`, { headers });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`open failed: ${response.status}`);
    const bytes = statSync(file).size;
    const growth = (vmKb(pid, 'VmRSS') - before) / bytes;
    // Once idle, V8's memory reducer collects the load's garbage and gives pages back: what is left
    // is what the open session keeps.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const settled = (vmKb(pid, 'VmRSS') - before) / bytes;
    return { growth, settled, peak: (vmKb(pid, 'VmHWM') - before) / bytes };
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
  for (const name of sizes) {
    const file = await sessionFile(SIZES[name]!);
    const samples = [];
    for (let run = 0; run < runs; run++) samples.push(await sample(file, web, bundle));
    const mb = (statSync(file).size / 1e6).toFixed(0);
    console.log(
      `${name} (${mb} MB): RSS growth ${median(samples.map((s) => s.growth)).toFixed(2)}×, ${SETTLE_MS / 1000} s later ${median(samples.map((s) => s.settled)).toFixed(2)}× (peak ${median(samples.map((s) => s.peak)).toFixed(2)}×)`,
    );
  }
}

await main();
