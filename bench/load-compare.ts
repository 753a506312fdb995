// A quick, interleaved comparison of the load contenders on one file: a bare JSON.parse of every line,
// the reference's open + getTree + buildSessionContext, and session-core loading as the server does
// (`serverLoad` in load.bench.ts). `--core-from DIR` adds the same server load with the SessionManager
// of another checkout's session-core (e.g. main's, extracted with `git archive`), for a before/after
// on one machine in one process.
//
//   node .tools/node_modules/pnpm/bin/pnpm.cjs exec tsx bench/load-compare.ts bench/.cache/synthetic-50k.jsonl [--runs 3] [--core-from DIR]
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SessionManager } from '../packages/session-core/src/index';
import { collectGarbage, jsonParseLines, median, referenceLoad, serverLoad } from './load.bench';

/**
 * Wall and CPU (user + system, every thread of the process) milliseconds of `run`, after a full
 * collection, so one contender's garbage is not collected in the next one's time.
 */
async function timed(run: () => unknown): Promise<{ wall: number; cpu: number }> {
  collectGarbage();
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  await run();
  const wall = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const file = args[0];
  if (!file) throw new Error('usage: load-compare.ts FILE [--runs N] [--core-from DIR]');
  const runsAt = args.indexOf('--runs');
  const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 3;
  const fromAt = args.indexOf('--core-from');
  const other =
    fromAt >= 0
      ? ((await import(
          pathToFileURL(resolve(args[fromAt + 1]!, 'packages/session-core/src/index.ts')).href
        )) as {
          SessionManager: typeof SessionManager;
        })
      : undefined;
  const samples: Record<string, { wall: number[]; cpu: number[] }> = {};
  const add = (name: string, sample: { wall: number; cpu: number }) => {
    const entry = (samples[name] ??= { wall: [], cpu: [] });
    entry.wall.push(sample.wall);
    entry.cpu.push(sample.cpu);
  };
  const workDir = join(process.cwd(), 'bench', '.cache');
  // One warm-up round, not recorded.
  for (let run = -1; run < runs; run++) {
    const round: Record<string, { wall: number; cpu: number }> = {
      'JSON.parse': await timed(() => jsonParseLines(file)),
      reference: await timed(() => referenceLoad(file, workDir)),
    };
    // The two session-core loads take turns going first.
    const loads: Array<[string, () => Promise<void>]> = [
      ['core', async () => (await serverLoad(file)).close()],
    ];
    if (other) {
      const otherLoad: [string, () => Promise<void>] = [
        'core (other checkout)',
        async () => (await serverLoad(file, other.SessionManager)).close(),
      ];
      if (run % 2 === 0) loads.unshift(otherLoad);
      else loads.push(otherLoad);
    }
    for (const [name, load] of loads) round[name] = await timed(load);
    if (run < 0) continue;
    for (const [name, sample] of Object.entries(round)) add(name, sample);
    console.log(
      `run ${run + 1} (load ${loadavg()[0]!.toFixed(1)}): ${Object.entries(round)
        .map(([name, sample]) => `${name} ${sample.wall.toFixed(0)} ms (cpu ${sample.cpu.toFixed(0)})`)
        .join(', ')}`,
    );
  }
  const m = (name: string, kind: 'wall' | 'cpu') => median(samples[name]?.[kind] ?? [Number.NaN]);
  console.log('medians: wall ms [cpu ms]; ratios of wall medians [of cpu medians]');
  for (const name of Object.keys(samples)) {
    const ratio = (base: string) =>
      `${(m(name, 'wall') / m(base, 'wall')).toFixed(2)}× [${(m(name, 'cpu') / m(base, 'cpu')).toFixed(2)}×]`;
    console.log(
      `${name.padEnd(24)} ${m(name, 'wall').toFixed(0).padStart(6)} ms [${m(name, 'cpu').toFixed(0)}]   ÷ reference ${ratio('reference')}   ÷ JSON.parse ${ratio('JSON.parse')}`,
    );
  }
}

await main();
