// The first full rows pass after an open, in a fresh process each time: what the page does when a
// session opens (rows prepared in steps, each step with its idle callback's own clock, then the
// filter classes and search masks), then a live append and a jump to a neighbouring row, then two
// search keystrokes and a filter change. bench/tree-view.bench.ts drops its first run to measure
// warmed-up code; this one measures only that first run, which is what a person meets after an open.
//
//   node .tools/node_modules/pnpm/bin/pnpm.cjs exec tsx bench/first-pass.ts [--size 200k] [--runs 5]
//   node --import tsx --trace-deopt bench/first-pass.ts --runs 1   (V8 flags reach every run)

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  SessionManager,
  ViewTree,
  computeRows,
  prepareRows,
  prepareRowsAhead,
  prepareSearchMasks,
  toViewEntries,
} from '../packages/session-core/src/index';
import { syntheticJsonl } from './synthetic';

const SIZES: Record<string, { entries: number; sizeScale: number }> = {
  '50k': { entries: 50_000, sizeScale: 1 },
  '200k': { entries: 200_000, sizeScale: 0.4 },
};
const STEPS = [
  'live append',
  'jump',
  'search keystroke 1',
  'clear search',
  'search keystroke 2',
  'clear search 2',
  'filter change 1',
  'filter back',
  'filter change 2',
] as const;

/** A fresh clock per call, as each idle callback makes its own: true after `checks` looks. */
const stepClock = (checks: number) => {
  let looked = 0;
  return () => ++looked > checks;
};

function oneRun(size: string): Record<string, number> {
  const { entries, sizeScale } = SIZES[size]!;
  const session = SessionManager.fromJsonl(syntheticJsonl({ entries, sizeScale, seed: 2 }));
  const views = toViewEntries(session.getEntries(), (id) => session.getLabel(id));
  const tree = new ViewTree(views.slice(0, -1));
  let leafId = views.at(-2)!.id;
  const preparation = prepareRows(tree, { leafId });
  while (!preparation.step(stepClock(2)));
  computeRows(tree, { leafId });
  while (!prepareRowsAhead(tree, leafId, undefined, stepClock(3)));
  while (!prepareSearchMasks(tree, stepClock(3)));
  const times: Record<string, number> = {};
  const time = <T>(step: (typeof STEPS)[number], run: () => T): T => {
    const start = performance.now();
    const value = run();
    times[step] = performance.now() - start;
    return value;
  };
  // What the page does for a session_changed with one entry: the tree grows, the leaf moves onto it.
  leafId = views.at(-1)!.id;
  const appended = time('live append', () => {
    tree.append([views.at(-1)!]);
    return computeRows(tree, { leafId });
  });
  const target = appended.rows[Math.max(0, appended.leafIndex - 10)]!.id;
  time('jump', () => computeRows(tree, { leafId: target }));
  time('search keystroke 1', () => computeRows(tree, { leafId: target, query: 'e' }));
  time('clear search', () => computeRows(tree, { leafId: target }));
  time('search keystroke 2', () => computeRows(tree, { leafId: target, query: 'e' }));
  time('clear search 2', () => computeRows(tree, { leafId: target }));
  time('filter change 1', () => computeRows(tree, { leafId: target, mode: 'user-only' }));
  time('filter back', () => computeRows(tree, { leafId: target }));
  time('filter change 2', () => computeRows(tree, { leafId: target, mode: 'user-only' }));
  return times;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function main(): void {
  const args = process.argv.slice(2);
  const size = args.includes('--size') ? args[args.indexOf('--size') + 1]! : '200k';
  if (!(size in SIZES)) throw new Error(`unknown size ${size}`);
  if (process.env.FIRST_PASS_CHILD) {
    // On a line of its own, last: V8 flags such as --trace-gc print to the same stdout.
    process.stdout.write(`\n${JSON.stringify(oneRun(size))}\n`);
    return;
  }
  const runs = args.includes('--runs') ? Math.max(1, Number(args[args.indexOf('--runs') + 1])) : 5;
  const samples = new Map<string, number[]>(STEPS.map((step) => [step, []]));
  for (let run = 0; run < runs; run++) {
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), ...args],
      {
        env: { ...process.env, FIRST_PASS_CHILD: '1' },
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      },
    );
    if (child.status !== 0) throw new Error(`run ${run} failed: ${child.stderr}`);
    const result = child.stdout.trimEnd().split('\n').at(-1)!;
    const times = JSON.parse(result) as Record<string, number>;
    for (const step of STEPS) samples.get(step)!.push(times[step]!);
  }
  console.log(`first actions after an open, ${size}, ${runs} fresh processes (ms, wall)`);
  for (const [step, values] of samples)
    console.log(
      `${step.padEnd(20)} median ${median(values).toFixed(1).padStart(6)}   ${values.map((v) => v.toFixed(1)).join(' ')}`,
    );
}

main();
