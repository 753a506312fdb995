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
import { jsonParseLines, median, referenceLoad, serverLoad, time } from './load.bench';

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
  const samples: Record<string, number[]> = {};
  const add = (name: string, ms: number) => (samples[name] ??= []).push(ms);
  // One warm-up round, not recorded.
  for (let run = -1; run < runs; run++) {
    const keep = run >= 0;
    const json = time(() => jsonParseLines(file)).ms;
    const reference = time(() => referenceLoad(file, join(process.cwd(), 'bench', '.cache'))).ms;
    let start = performance.now();
    const loaded = await serverLoad(file);
    const core = performance.now() - start;
    loaded.close();
    let before = Number.NaN;
    if (other) {
      start = performance.now();
      const previous = await serverLoad(file, other.SessionManager);
      before = performance.now() - start;
      previous.close();
    }
    if (keep) {
      add('JSON.parse', json);
      add('reference', reference);
      add('core', core);
      if (other) add('core (other checkout)', before);
      console.log(
        `run ${run + 1}: JSON.parse ${json.toFixed(0)} ms, reference ${reference.toFixed(0)} ms, core ${core.toFixed(0)} ms${other ? `, other ${before.toFixed(0)} ms` : ''}  (load ${loadavg()[0]!.toFixed(1)})`,
      );
    }
  }
  const m = (name: string) => median(samples[name] ?? [Number.NaN]);
  for (const name of Object.keys(samples)) {
    console.log(
      `${name.padEnd(24)} ${m(name).toFixed(0).padStart(6)} ms   ÷ reference ${(m(name) / m('reference')).toFixed(2)}×   ÷ JSON.parse ${(m(name) / m('JSON.parse')).toFixed(2)}×`,
    );
  }
}

await main();
