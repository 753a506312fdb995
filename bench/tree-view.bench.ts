// The browser's tree work without the browser: session-core's tree view (ViewTree build, chunked
// append, rows per filter mode, the selector's search keystroke, filter change, jump and move) and
// the web app's graph source and layout, on synthetic sessions of 50k and 200k entries. Each step
// is what one user action costs on the main thread before React renders; medians of several runs.
//
//   node .tools/node_modules/pnpm/bin/pnpm.cjs exec tsx bench/tree-view.bench.ts [--sizes 50k,200k] [--runs 5]

import { loadavg } from 'node:os';
import {
  SessionManager,
  ViewTree,
  computeRows,
  createTreeSelectorState,
  findNearestVisible,
  prepareSearchMasks,
  toViewEntries,
  treeSelectorReducer,
  FILTER_MODES,
  type TreeSelectorState,
  type ViewEntry,
} from '../packages/session-core/src/index';
import { computeGraphLayout, GraphLayouter } from '../apps/web/src/layout/graphLayout';
import { createDerived, graphSourceFromRows } from '../apps/web/src/store/derived';
import { syntheticJsonl } from './synthetic';

/** The same shapes as `npm run bench` (bench/run.ts), so the numbers compare. */
const SIZES: Record<string, { entries: number; sizeScale: number }> = {
  '2.7k': { entries: 2_720, sizeScale: 0.25 },
  '50k': { entries: 50_000, sizeScale: 1 },
  '200k': { entries: 200_000, sizeScale: 0.4 },
};

/** Nodes per chunk when the tree is built as a streamed snapshot would deliver it. */
const CHUNK = 5_000;

interface Options {
  sizes: string[];
  runs: number;
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { sizes: ['50k', '200k'], runs: 5 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--sizes') options.sizes = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (arg === '--runs') options.runs = Math.max(1, Number(argv[++i]));
    else throw new Error(`unknown option ${arg}`);
  }
  for (const size of options.sizes) if (!(size in SIZES)) throw new Error(`unknown size ${size}`);
  return options;
}

/**
 * Records the CPU time (user + system, all threads of this process) of a step: on a machine shared
 * with other work, wall time measures the other work as much as ours.
 */
function timed<T>(samples: Map<string, number[]>, step: string, run: () => T): T {
  const start = process.cpuUsage();
  const value = run();
  record(samples, step, cpuMs(start));
  return value;
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

function record(samples: Map<string, number[]>, step: string, ms: number): void {
  const list = samples.get(step);
  if (list === undefined) samples.set(step, [ms]);
  else list.push(ms);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** An entry off the active path: the last user message off it in the first half of the file. */
function jumpTarget(tree: ViewTree, leafId: string | null): string {
  const active = new Set<string>();
  for (let id = leafId; id !== null; id = tree.parentOf(id)) active.add(id);
  const entries = tree.allEntries();
  let target: string | null = null;
  for (let i = 0; i < entries.length / 2; i++) {
    const entry = entries[i]!;
    if (!active.has(entry.id) && entry.type === 'message' && entry.role === 'user') target = entry.id;
  }
  return target ?? entries[0]!.id;
}

/** The view entries and leaf of a synthetic session; the full entries are dropped (the browser never has them). */
function viewsOf(name: string): { views: ViewEntry[]; leafId: string | null } {
  const { entries, sizeScale } = SIZES[name]!;
  const session = SessionManager.fromJsonl(syntheticJsonl({ entries, sizeScale, seed: 1 }));
  return {
    views: toViewEntries(session.getEntries(), (id) => session.getLabel(id)),
    leafId: session.getLeafId(),
  };
}

function measureSize(name: string, runs: number): Map<string, number[]> {
  const { views, leafId } = viewsOf(name);
  const samples = new Map<string, number[]>();
  for (let run = 0; run <= runs; run++) {
    // Run 0 warms the JIT up; its samples are dropped below.
    const tree = timed(samples, 'ViewTree build (all at once)', () => new ViewTree(views));
    let chunkMax = 0;
    timed(samples, `ViewTree append in ${CHUNK}-node chunks (total)`, () => {
      const streamed = new ViewTree();
      for (let at = 0; at < views.length; at += CHUNK) {
        const chunk = views.slice(at, at + CHUNK);
        const start = process.cpuUsage();
        streamed.append(chunk);
        chunkMax = Math.max(chunkMax, cpuMs(start));
      }
      return streamed;
    });
    record(samples, 'ViewTree append: slowest chunk', chunkMax);

    timed(samples, 'computeRows default, first (traversal)', () => computeRows(tree, { leafId }));
    for (const mode of FILTER_MODES)
      timed(samples, `computeRows ${mode}`, () => computeRows(tree, { leafId, mode }));

    let state: TreeSelectorState = timed(samples, 'selector: create', () =>
      createTreeSelectorState(tree, { leafId, pageSize: 20 }),
    );
    // What the web app reads after every action: the selected row by id (findNearestVisible).
    const settle = (s: TreeSelectorState) => findNearestVisible(tree, s.indexById, s.lastSelectedId);
    timed(samples, 'selector: id map, first read', () => settle(state));
    state = timed(samples, 'selector: move down', () =>
      treeSelectorReducer(state, { type: 'move', delta: 1 }),
    );
    // What the page does when idle after the open (components/usePrepareRowsWhenIdle.ts).
    timed(samples, 'search masks (made when idle)', () => prepareSearchMasks(tree, () => false));
    state = timed(samples, 'selector: search keystroke 1 ("e")', () => {
      const next = treeSelectorReducer(state, { type: 'typeQuery', text: 'e' });
      settle(next);
      return next;
    });
    state = timed(samples, 'selector: search keystroke 2 ("er")', () => {
      const next = treeSelectorReducer(state, { type: 'typeQuery', text: 'r' });
      settle(next);
      return next;
    });
    state = treeSelectorReducer(state, { type: 'clearQuery' });
    state = timed(samples, 'selector: filter change (user-only)', () => {
      const next = treeSelectorReducer(state, { type: 'setFilter', mode: 'user-only' });
      settle(next);
      return next;
    });
    state = treeSelectorReducer(state, { type: 'setFilter', mode: 'default' });
    const before = timed(samples, 'graph: source from rows', () => graphSourceFromRows(tree, state));
    timed(samples, 'graph: layout from scratch (d3-hierarchy)', () => computeGraphLayout(before));
    // One graph view's layouter, which keeps its last layout to answer the same structure again.
    const layouter = new GraphLayouter();
    layouter.layout(before);
    // The web store's own path (store/derived.ts), which keeps the layout of an unchanged visible tree.
    const derived = createDerived();
    const expanded = new Set<string>();
    derived.graphLayoutFor(tree, derived.graphRows(state), expanded);
    const target = jumpTarget(tree, leafId);
    state = timed(samples, 'selector: jump (leaf moves to another branch)', () => {
      const next = treeSelectorReducer(state, { type: 'setLeaf', leafId: target, select: true });
      settle(next);
      return next;
    });
    state = timed(samples, 'selector: jump back', () => {
      const next = treeSelectorReducer(state, { type: 'setLeaf', leafId, select: true });
      settle(next);
      return next;
    });
    // What the graph redoes after a jump: the rows are new, the visible tree is the same.
    const after = timed(samples, 'graph: source from rows after the jumps', () =>
      graphSourceFromRows(tree, state),
    );
    timed(samples, 'graph: layout after the jumps (reused)', () => layouter.layout(after));
    timed(samples, "graph: the store's rows and layout after the jumps (kept)", () =>
      derived.graphLayoutFor(tree, derived.graphRows(state), expanded),
    );
    // A live append (what store/live.ts does for session_changed): one entry, a child of the leaf,
    // added to the tree, and the leaf moved onto it.
    const parent = state.leafId;
    const appended: ViewEntry = { ...views[views.length - 1]!, id: `live-${run}`, parentId: parent };
    state = timed(samples, 'live append: tree + selector (leaf moves onto it)', () => {
      tree.append([appended]);
      const next = treeSelectorReducer(state, { type: 'setLeaf', leafId: appended.id, select: true });
      settle(next);
      return next;
    });
    // The same keystroke as above, after the append: the cached queries catch up with one entry.
    state = timed(samples, 'selector: search keystroke ("e") after the live append', () => {
      const next = treeSelectorReducer(state, { type: 'typeQuery', text: 'e' });
      settle(next);
      return next;
    });
    state = treeSelectorReducer(state, { type: 'clearQuery' });
  }
  for (const list of samples.values()) list.shift();
  return samples;
}

function main(): void {
  const options = parseArgs(process.argv.slice(2));
  const load = loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');
  console.log(
    `tree-view bench — node ${process.version}, ${options.runs} runs (CPU time of this process, median (min–max), ms), load average ${load}`,
  );
  for (const size of options.sizes) {
    const samples = measureSize(size, options.runs);
    console.log(`\n${size} (${SIZES[size]!.entries.toLocaleString('en')} entries)`);
    const width = Math.max(...[...samples.keys()].map((k) => k.length));
    for (const [step, values] of samples) {
      const min = Math.min(...values);
      const max = Math.max(...values);
      console.log(
        `  ${step.padEnd(width)}  ${median(values).toFixed(1).padStart(8)}  (${min.toFixed(1)}–${max.toFixed(1)})`,
      );
    }
  }
}

main();
