// The load benchmark (docs/architecture.md#budgets): on the same files, in one run, time JSON.parse of every line,
// the reference package's SessionManager.open (+ getTree + buildSessionContext), session-core's
// SessionManager.fromJsonl (+ getTree + buildSessionContext) and the tree-view pipeline (toViewEntries,
// ViewTree, computeRows in every filter mode); report medians, ratios and heap after load.
//
//   pnpm exec tsx bench/load.bench.ts [--entries 50000] [--runs 5] [--seed 1] [--stress] [--no-fixtures]
//
// --stress adds a 200,000-entry linear chain and a 200,000-entry fan-out (small entries).
// One file: one table of measurements, each a few lines, that must run in the same process to be
// comparable.
import {
  closeSync,
  copyFileSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SessionManager as RefSessionManager } from '@mariozechner/pi-coding-agent';
import { TreeModel } from '../apps/server/src/live/tree-model';
import { ensureFixtures } from '../packages/fixtures/src/index';
import {
  computeRows,
  FILTER_MODES,
  SessionManager,
  toViewEntries,
  ViewTree,
  type FilterMode,
} from '../packages/session-core/src/index';
import { writeSyntheticSession, type SyntheticShape } from './synthetic';

// ---------------------------------------------------------------- options

interface Options {
  entries: number;
  runs: number;
  seed: number;
  stress: boolean;
  fixtures: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { entries: 50_000, runs: 5, seed: 1, stress: false, fixtures: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = () => {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value <= 0) throw new Error(`${arg} needs a positive integer`);
      return value;
    };
    if (arg === '--entries') options.entries = next();
    else if (arg === '--runs') options.runs = next();
    else if (arg === '--seed') options.seed = next();
    else if (arg === '--stress') options.stress = true;
    else if (arg === '--no-fixtures') options.fixtures = false;
    else throw new Error(`unknown argument ${arg}`);
  }
  return options;
}

// ---------------------------------------------------------------- measuring

// gc() is used around heap measurements, and by `npm run bench` before each contender's load of a
// large file (`collectGarbage`), so that none is timed collecting the garbage of the one before. This
// file's own loop over the fixtures does not force it before every timed step: V8 ages and flushes the
// bytecode of functions a collection finds idle, so each step would start from cold code (measured:
// session-core's load twice as slow on the 1 MB fixtures).
setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

/** A full collection, so that the next timed step does not collect what came before it. */
export function collectGarbage(): void {
  gc();
}

export function time<T>(run: () => T): { ms: number; value: T } {
  const start = performance.now();
  const value = run();
  return { ms: performance.now() - start, value };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Heap still used by what `load` returns, after collection (the value is kept alive until measured). */
function retainedHeap(load: () => unknown): number {
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = load();
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  // Reading the value after the measurement keeps it reachable during it.
  if (kept === Symbol.for('never')) console.log(kept);
  return after - before;
}

// ---------------------------------------------------------------- the contenders

export function jsonParseLines(path: string): unknown[] {
  const text = readFileSync(path, 'utf8');
  const values: unknown[] = [];
  for (const line of text.split('\n')) if (line.length > 0) values.push(JSON.parse(line));
  return values;
}

/** The reference migrates and rewrites legacy files on open: each run gets a fresh copy (not timed). */
function freshReferenceCopy(file: BenchFile, workDir: string): string {
  if (!file.legacy) return file.path;
  const copy = join(workDir, `ref-copy-${basename(file.path)}`);
  copyFileSync(file.path, copy);
  return copy;
}

export function referenceLoad(path: string, workDir: string) {
  const sm = RefSessionManager.open(path, workDir);
  const tree = sm.getTree();
  const context = sm.buildSessionContext();
  return { sm, tree, context };
}

const PIECE = 4 << 20;
const SERVER_LOAD = 'session-core as the server: index, TreeModel, context';
const CORE_ALL_LOAD = 'session-core retain all: + getTree + context';

/**
 * session-core loading a file as the server opens a session: keeping only its index, the file read
 * through one descriptor in 4 MB pieces (into one reused buffer, as the server does) into
 * `fromJsonlChunks`, entries read back with `readSync`, every batch rendered by the server's own `TreeModel` from `onEntries` (view entries, usage, the
 * tool-call lookup), then the model's first `sync` and the leaf's context. No `getTree`: the server
 * never asks for it (with retain 'index' it reads every entry back; see bench/README.md).
 */
export async function serverLoad(
  path: string,
  Manager: typeof SessionManager = SessionManager,
): Promise<{ sm: SessionManager; model: TreeModel; close: () => void }> {
  const fd = openSync(path, 'r');
  const size = fstatSync(fd).size;
  const readRange = (offset: number, length: number): Uint8Array => {
    const buffer = Buffer.allocUnsafe(length);
    return buffer.subarray(0, readSync(fd, buffer, 0, length, offset));
  };
  function* pieces(): Generator<Uint8Array> {
    const buffer = Buffer.allocUnsafe(Math.min(PIECE, size));
    for (let at = 0; at < size; at += PIECE) {
      yield buffer.subarray(0, readSync(fd, buffer, 0, Math.min(PIECE, size - at), at));
    }
  }
  const model = new TreeModel('/home/bench');
  const sm = await Manager.fromJsonlChunks(pieces(), {
    retain: 'index',
    readRange,
    onEntries: (entries, firstIndex) => model.receive(entries, firstIndex),
  });
  model.sync(sm);
  sm.buildSessionContext();
  // The descriptor stays open while the session may read entries back.
  return { sm, model, close: () => closeSync(fd) };
}

function coreLoad(path: string) {
  const sm = SessionManager.fromJsonl(readFileSync(path));
  const tree = sm.getTree();
  const context = sm.buildSessionContext();
  return { sm, tree, context };
}

function viewEntriesOf(sm: SessionManager) {
  return toViewEntries(sm.getEntries(), (id) => sm.getLabel(id));
}

// ---------------------------------------------------------------- files

interface BenchFile {
  name: string;
  path: string;
  bytes: number;
  legacy: boolean;
  note: string;
}

async function prepareFiles(options: Options, workDir: string): Promise<BenchFile[]> {
  const files: BenchFile[] = [];
  const synthetic = async (shape: SyntheticShape, entries: number, note: string) => {
    const path = join(workDir, `synthetic-${shape}-${entries}.jsonl`);
    const stats = await writeSyntheticSession(path, { entries, seed: options.seed, shape });
    files.push({ name: basename(path), path, bytes: stats.bytes, legacy: false, note });
  };
  await synthetic(
    'realistic',
    options.entries,
    'synthetic coding session: tools, branches, summaries, compactions',
  );
  if (options.fixtures) {
    const fixturesDir = ensureFixtures();
    for (const [name, legacy, note] of [
      ['many-branches.jsonl', false, 'fixture, written by the reference: ~2,700 entries, random tree'],
      [
        'legacy-v1-before-compaction.jsonl',
        true,
        'fixture, v1 (migrated on load; the reference also rewrites it)',
      ],
      [
        'legacy-v1-large-session.jsonl',
        true,
        'fixture, v1 (migrated on load; the reference also rewrites it)',
      ],
    ] as const) {
      const path = join(workDir, name);
      copyFileSync(join(fixturesDir, name), path);
      files.push({ name, path, bytes: statSync(path).size, legacy, note });
    }
  }
  if (options.stress) {
    await synthetic('chain', 200_000, 'stress: one linear path of small messages');
    await synthetic('fanout', 200_000, 'stress: every entry a child of the first');
  }
  return files;
}

// ---------------------------------------------------------------- one file

interface Row {
  step: string;
  samples: number[];
}

interface FileResult {
  file: BenchFile;
  entries: number;
  rows: Row[];
  heap: { json: number; reference: number; core: number; views: number };
  check: string;
}

/** Small files take milliseconds, where one GC pause or JIT tier-up skews a median: run them more. */
function runsFor(file: BenchFile, runs: number): number {
  return file.bytes < 10e6 ? runs * 4 : runs;
}

async function benchFile(file: BenchFile, runs: number, workDir: string): Promise<FileResult> {
  const rows = new Map<string, number[]>();
  // The first round (run -1) warms up the JIT on this file's shapes and is not recorded.
  let warmingUp = true;
  const record = (step: string, ms: number) => {
    if (warmingUp) return;
    const samples = rows.get(step) ?? [];
    samples.push(ms);
    rows.set(step, samples);
  };

  let entries = 0;
  let check = '';
  // The reference cannot load some files at all (its getTree spreads every child list into one call,
  // which overflows the stack on a 200,000-child fan-out): then it is reported as failed, not timed.
  let referenceFailure: string | undefined;
  // Runs interleave the contenders, so that drift on a busy machine hits them alike.
  for (let run = -1; run < runs; run++) {
    warmingUp = run < 0;
    record('JSON.parse every line', time(() => jsonParseLines(file.path)).ms);

    let refCounts: { entries: number; messages: number } | undefined;
    if (referenceFailure === undefined) {
      try {
        const refPath = freshReferenceCopy(file, workDir);
        const ref = time(() => RefSessionManager.open(refPath, workDir));
        const refTree = time(() => ref.value.getTree());
        const refContext = time(() => ref.value.buildSessionContext());
        record('reference open', ref.ms);
        record('reference open + getTree + context', ref.ms + refTree.ms + refContext.ms);
        refCounts = { entries: ref.value.getEntries().length, messages: refContext.value.messages.length };
      } catch (error) {
        referenceFailure = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
    }

    const serverStart = performance.now();
    const server = await serverLoad(file.path);
    record(SERVER_LOAD, performance.now() - serverStart);
    // getTree is not on the server's path: with retain 'index' it reads every entry back.
    record('  then getTree (reads every entry back)', time(() => server.sm.getTree()).ms);
    server.close();

    const core = time(() => SessionManager.fromJsonl(readFileSync(file.path)));
    const coreTree = time(() => core.value.getTree());
    const coreContext = time(() => core.value.buildSessionContext());
    record('session-core retain all: fromJsonl', core.ms);
    record(CORE_ALL_LOAD, core.ms + coreTree.ms + coreContext.ms);

    const sm = core.value;
    const views = time(() => viewEntriesOf(sm));
    const tree = time(() => new ViewTree(views.value));
    record('tree-view toViewEntries', views.ms);
    record('tree-view ViewTree', tree.ms);
    let rowsTotal = 0;
    for (const mode of FILTER_MODES as readonly FilterMode[]) {
      const rowsResult = time(() => computeRows(tree.value, { leafId: sm.getLeafId(), mode }));
      record(`tree-view computeRows ${mode}`, rowsResult.ms);
      rowsTotal += rowsResult.ms;
    }
    record('tree-view total (entries + tree + 5 modes)', views.ms + tree.ms + rowsTotal);

    entries = sm.getEntries().length;
    const coreMessages = coreContext.value.messages.length;
    // The two implementations must agree, or the timings compare different work.
    if (referenceFailure !== undefined) {
      check = `reference FAILED (${referenceFailure}); session-core: ${entries} entries, ${coreMessages} context messages`;
    } else if (refCounts) {
      check =
        refCounts.messages === coreMessages && refCounts.entries === entries
          ? `agree: ${entries} entries, ${coreMessages} context messages`
          : `DISAGREE: reference ${refCounts.entries} entries / ${refCounts.messages} messages, session-core ${entries} / ${coreMessages}`;
    }
  }

  const heap = {
    json: retainedHeap(() => jsonParseLines(file.path)),
    reference:
      referenceFailure === undefined
        ? retainedHeap(() => referenceLoad(freshReferenceCopy(file, workDir), workDir))
        : Number.NaN,
    core: retainedHeap(() => coreLoad(file.path)),
    views: 0,
  };
  const loaded = coreLoad(file.path);
  heap.views = retainedHeap(() => {
    const views = viewEntriesOf(loaded.sm);
    return { views, tree: new ViewTree(views) };
  });

  return { file, entries, rows: [...rows].map(([step, samples]) => ({ step, samples })), heap, check };
}

// ---------------------------------------------------------------- printing

const ms = (value: number) =>
  Number.isNaN(value)
    ? 'n/a'
    : value >= 100
      ? value.toFixed(0)
      : value >= 10
        ? value.toFixed(1)
        : value.toFixed(2);
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const ratio = (value: number, base: number | undefined) =>
  base && Number.isFinite(base) ? `${(value / base).toFixed(2)}×` : 'n/a';
const pad = (text: string, width: number) => text.padEnd(width);
const padLeft = (text: string, width: number) => text.padStart(width);

/** Which rows get a ratio, and against what. */
const COMPARISONS: Record<string, { vsJson: boolean; vsReference?: string }> = {
  'reference open': { vsJson: true },
  'reference open + getTree + context': { vsJson: true },
  [SERVER_LOAD]: { vsJson: true, vsReference: 'reference open + getTree + context' },
  'session-core retain all: fromJsonl': { vsJson: true, vsReference: 'reference open' },
  [CORE_ALL_LOAD]: {
    vsJson: true,
    vsReference: 'reference open + getTree + context',
  },
  'tree-view total (entries + tree + 5 modes)': { vsJson: true },
};

function printFile(result: FileResult, runs: number): void {
  const { file } = result;
  console.log(
    `\n== ${file.name}  ${mb(file.bytes)}, ${result.entries.toLocaleString('en')} entries — ${file.note}`,
  );
  console.log(`   ${result.check}`);
  const medianOf = (step: string) => {
    const row = result.rows.find((candidate) => candidate.step === step);
    return row ? median(row.samples) : undefined;
  };
  const json = medianOf('JSON.parse every line');
  console.log(
    `   ${pad('step', 56)}${padLeft('median ms', 10)}${padLeft('min', 9)}${padLeft('max', 9)}${padLeft('÷ JSON.parse', 14)}${padLeft('÷ reference', 13)}`,
  );
  for (const row of result.rows) {
    const m = median(row.samples);
    const comparison = COMPARISONS[row.step];
    const vsJson = comparison?.vsJson ? ratio(m, json) : '';
    const vsReference = comparison?.vsReference ? ratio(m, medianOf(comparison.vsReference)) : '';
    console.log(
      `   ${pad(row.step, 56)}${padLeft(ms(m), 10)}${padLeft(ms(Math.min(...row.samples)), 9)}${padLeft(ms(Math.max(...row.samples)), 9)}${padLeft(vsJson, 14)}${padLeft(vsReference, 13)}`,
    );
  }
  const heap = result.heap;
  const perFile = (bytes: number) =>
    Number.isNaN(bytes) ? 'n/a' : `${mb(bytes)} (${(bytes / file.bytes).toFixed(2)}× file)`;
  console.log(
    `   heap after load: JSON.parse ${perFile(heap.json)}, reference ${perFile(heap.reference)}, session-core ${perFile(heap.core)}, + tree-view ${perFile(heap.views)}`,
  );
  console.log(`   (${runs} runs after one warm-up run; medians)`);
}

function printSummary(results: readonly FileResult[]): void {
  console.log(
    "\n== summary (reference: open + getTree + buildSessionContext; session-core: the server's load, see serverLoad;",
  );
  console.log('   median ms, ratios of medians');
  console.log('   and, in brackets, of the fastest runs, which a busy machine disturbs least)');
  console.log(
    `   ${pad('file', 36)}${padLeft('size', 10)}${padLeft('JSON.parse', 12)}${padLeft('reference', 11)}${padLeft('session-core', 14)}${padLeft('core÷ref', 17)}${padLeft('core÷JSON', 17)}${padLeft('views+rows', 12)}${padLeft('core heap', 11)}`,
  );
  for (const result of results) {
    const samples = (step: string) => result.rows.find((row) => row.step === step)?.samples ?? [Number.NaN];
    const both = (step: string) => ({ median: median(samples(step)), min: Math.min(...samples(step)) });
    const json = both('JSON.parse every line');
    const reference = both('reference open + getTree + context');
    const core = both(SERVER_LOAD);
    const views = both('tree-view total (entries + tree + 5 modes)');
    const ratios = (a: typeof core, b: typeof core) =>
      `${ratio(a.median, b.median)} [${ratio(a.min, b.min)}]`;
    console.log(
      `   ${pad(result.file.name, 36)}${padLeft(mb(result.file.bytes), 10)}${padLeft(ms(json.median), 12)}${padLeft(ms(reference.median), 11)}${padLeft(ms(core.median), 14)}${padLeft(ratios(core, reference), 17)}${padLeft(ratios(core, json), 17)}${padLeft(ms(views.median), 12)}${padLeft(`${(result.heap.core / result.file.bytes).toFixed(2)}×`, 11)}`,
    );
  }
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const workDir = mkdtempSync(join(tmpdir(), 'canopy-bench-'));
  mkdirSync(workDir, { recursive: true });
  try {
    console.log(
      `canopy load benchmark — node ${process.version}, ${options.runs} runs, ${options.entries.toLocaleString('en')} synthetic entries (seed ${options.seed})`,
    );
    const files = await prepareFiles(options, workDir);
    const results: FileResult[] = [];
    for (const file of files) {
      const runs = runsFor(file, options.runs);
      const result = await benchFile(file, runs, workDir);
      printFile(result, runs);
      results.push(result);
    }
    printSummary(results);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

// Run only as a script: bench/run.ts imports the contenders above.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href)
  await main();
