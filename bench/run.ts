// `npm run bench`: the one benchmark command. Generates the sessions (cached in bench/.cache), then in
// one run, interleaved across sizes and contenders, measures: load time of session-core, the reference
// and a bare JSON.parse of the same bytes; the server's RSS growth for one open session; and in
// Chromium, Canopy against pi's own HTML export of the same file. Prints one table, writes JSON.
//
//   npm run bench                          # 2.7k, 50k, 200k and 500k (~1 GB) entries, 3 runs
//   npm run bench -- --quick               # 2.7k and 50k, 1 run (a couple of minutes)
//   npm run bench -- --no-huge             # without the 500k-entry, ~1 GB session (its disk and minutes)
//   npm run bench -- --sizes 50k,200k --runs 5 --no-browser --no-export --json out.json
//   npm run bench -- --sizes 50k --profile /tmp/prof   # CPU profiles of the server and the page
import { statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { branchesBench } from './branches.bench';
import { callSiteBench, familyBench } from './family.bench';
import { canopyRun, exportRun, launchBrowser, piExport, type Sample } from './browser';
import { collectGarbage, jsonParseLines, median, referenceLoad, serverLoad, time } from './load.bench';
import { sessionFile, SIZES, type Size } from './sessions';
import { repoRoot } from '../e2e/support/server';

interface Options {
  sizes: Size[];
  runs: number;
  browser: boolean;
  export: boolean;
  json: string;
  /** Where the server's and the page's CPU profiles of each cold open go (none without it). */
  profile: string | undefined;
}

function parseOptions(argv: readonly string[]): Options {
  // Every size, the 1 GB session included: one table for all of them from one run.
  let names = ['2.7k', '50k', '200k', '500k'];
  let runs = 3;
  const options = {
    browser: true,
    export: true,
    json: join(repoRoot, 'bench', '.cache', 'last-run.json'),
    profile: undefined as string | undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') {
      names = ['2.7k', '50k'];
      runs = 1;
    } else if (arg === '--no-huge') names = names.filter((name) => name !== '500k');
    // The 1 GB session is in by default now; the old flag still asks for it.
    else if (arg === '--huge') names = names.includes('500k') ? names : [...names, '500k'];
    else if (arg === '--sizes') names = (argv[++i] ?? '').split(',');
    else if (arg === '--runs') runs = Number(argv[++i]);
    else if (arg === '--no-browser') options.browser = false;
    else if (arg === '--no-export') options.export = false;
    else if (arg === '--profile') options.profile = argv[++i];
    else if (arg === '--json') options.json = argv[++i] || options.json;
    else throw new Error(`unknown argument ${arg} (see bench/README.md)`);
  }
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs needs a positive integer');
  const sizes = names.map((name) => {
    const size = SIZES[name];
    if (!size) throw new Error(`unknown size ${name}; one of ${Object.keys(SIZES).join(', ')}`);
    return size;
  });
  return { sizes, runs, ...options };
}

/** session-core as the server loads a session (see `serverLoad` in load.bench.ts). */
async function coreLoad(path: string): Promise<number> {
  const start = performance.now();
  const loaded = await serverLoad(path);
  const ms = performance.now() - start;
  loaded.close();
  return ms;
}

function syncMs(run: () => unknown): number {
  try {
    return time(run).ms;
  } catch (error) {
    console.warn(`  fails: ${(error as Error).message.split('\n')[0]}`);
    return NaN;
  }
}

type Samples = Record<string, Record<string, Sample[]>>;

/** The actions also timed in the page (bench/browser.ts `armInPage`): input event → the frame showing it. */
const IN_PAGE_KEYS: ReadonlySet<string> = new Set([
  'click',
  'jump',
  'searchKey',
  'filter',
  'archive',
  'restore',
  'compare',
]);

function add(samples: Samples, size: string, contender: string, sample: Sample): void {
  ((samples[size] ??= {})[contender] ??= []).push(sample);
}

function medianOf(list: readonly Sample[] | undefined, key: string): number {
  const values = (list ?? []).map((sample) => sample[key]).filter((v): v is number => Number.isFinite(v));
  return values.length === 0 ? NaN : median(values);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const files = new Map<string, string>();
  for (const size of options.sizes) files.set(size.name, await sessionFile(size));
  const browser = options.browser ? await launchBrowser() : undefined;
  const exports = new Map<string, string>();
  if (browser && options.export) {
    for (const size of options.sizes) {
      try {
        exports.set(size.name, await piExport(files.get(size.name)!));
      } catch (error) {
        console.warn(`pi export of ${size.name} fails: ${(error as Error).message.split('\n')[0]}`);
      }
    }
  }
  const samples: Samples = {};
  try {
    // Interleaved: every run visits every size and contender, so drift on a busy machine hits all alike.
    for (let run = 1; run <= options.runs; run++) {
      for (const size of options.sizes) {
        const file = files.get(size.name)!;
        const bytes = statSync(file).size;
        console.log(`run ${run}/${options.runs}, ${size.name}`);
        // Each load after a full collection: the one before leaves up to a few hundred MB of garbage
        // (the reference's whole entries), which the next would otherwise be timed collecting.
        collectGarbage();
        const json = syncMs(() => jsonParseLines(file));
        collectGarbage();
        const reference = syncMs(() => referenceLoad(file, join(repoRoot, 'bench', '.cache')));
        collectGarbage();
        const core = await coreLoad(file).catch(() => NaN);
        add(samples, size.name, 'load', { json, reference, core });
        // The loads' garbage (the whole session, several hundred MB) collected now, not by a major
        // collection of this process in the middle of the page's timed actions, where it held up
        // Playwright's input (the Shift and the A of one shortcut arrived apart) and took a core.
        collectGarbage();
        add(
          samples,
          size.name,
          'canopy',
          await canopyRun(
            browser,
            file,
            bytes,
            options.profile && join(options.profile, `${size.name}-run${run}`),
          ),
        );
        const html = exports.get(size.name);
        if (browser && html) add(samples, size.name, 'export', await exportRun(browser, html));
      }
    }
  } finally {
    await browser?.close();
  }
  await report(options, files, samples);
}

const fmtMs = (value: number) =>
  Number.isNaN(value) ? '—' : value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(0)} ms`;
const fmtX = (value: number) => (Number.isNaN(value) ? '—' : `${value.toFixed(2)}×`);

async function report(options: Options, files: Map<string, string>, samples: Samples): Promise<void> {
  const rows: string[][] = [];
  const summary: Record<string, unknown> = {};
  for (const size of options.sizes) {
    const bytes = statSync(files.get(size.name)!).size;
    const load = samples[size.name]?.load;
    const canopy = samples[size.name]?.canopy;
    const pi = samples[size.name]?.export;
    const m = (list: Sample[] | undefined, key: string) => medianOf(list, key);
    const core = m(load, 'core');
    const reference = m(load, 'reference');
    const json = m(load, 'json');
    const label = `${size.name} (${(bytes / 1e6).toFixed(0)} MB)`;
    const both = (key: string): [string, string] => [fmtMs(m(canopy, key)), fmtMs(m(pi, key))];
    rows.push([
      label,
      'load: core / reference / JSON.parse',
      `${fmtMs(core)} / ${fmtMs(reference)} / ${fmtMs(json)}`,
      `core÷ref ${fmtX(core / reference)}, core÷JSON ${fmtX(core / json)}`,
    ]);
    rows.push([
      label,
      'server RSS growth (peak) ÷ file',
      `${fmtX(m(canopy, 'rssGrowthPerFile'))} (${fmtX(m(canopy, 'rssPeakPerFile'))})`,
      '',
    ]);
    if (options.browser) {
      rows.push([
        label,
        'interactive: fresh server / warm',
        `${fmtMs(m(canopy, 'coldOpen'))} / ${fmtMs(m(canopy, 'warmOpen'))}`,
        `export ${both('coldOpen')[1]} / ${both('warmOpen')[1]}`,
      ]);
      rows.push([
        label,
        'every node in: fresh server / warm',
        `${fmtMs(m(canopy, 'coldLoaded'))} / ${fmtMs(m(canopy, 'warmLoaded'))}`,
        '',
      ]);
      const heap = m(canopy, 'heapUsed');
      rows.push([
        label,
        'browser JS heap after open (÷ file)',
        `${Number.isFinite(heap) ? `${(heap / 1e6).toFixed(0)} MB` : '—'} (${fmtX(heap / bytes)})`,
        '',
      ]);
      for (const [key, what] of [
        ['click', 'click'],
        ['jump', 'jump (Enter → leaf moved)'],
        ['searchKey', 'first search keystroke'],
        ['filter', 'filter change'],
        ['liveAppend', 'live append to screen'],
        ['archive', 'archive a branch (Shift+A → stub)'],
        ['restore', 'restore it (Shift+A → rows)'],
        ['compare', 'compare with the leaf (menu → view)'],
        ['openLongTask', 'longest task while opening'],
        ['scrollLongTask', 'longest task while scrolling'],
        ['panLongTask', 'longest task while panning the graph'],
      ] as const) {
        const [ours, theirs] = both(key);
        if (IN_PAGE_KEYS.has(key)) {
          // The wall from Node, then (in brackets) the input event to the frame that shows it.
          const [oursInPage, theirsInPage] = both(`${key}InPage`);
          rows.push([label, what, `${ours} (page ${oursInPage})`, `export ${theirs} (page ${theirsInPage})`]);
        } else rows.push([label, what, ours, `export ${theirs}`]);
      }
    }
    summary[size.name] = { bytes, entries: size.entries, samples: samples[size.name] };
  }
  // docs/branches.md: session-core's compare and file reconstruction (bench/branches.bench.ts).
  const branches = branchesBench(options.runs);
  rows.push(['200k, two 10k lanes', 'compare (session-core)', fmtMs(branches.compareMs), 'goal 300 ms']);
  rows.push(['50k path', 'files reconstructed (session-core)', fmtMs(branches.filesMs), 'goal 1 s']);
  summary.branches = branches;
  // docs/archive-and-family.md: the family of a session from head reads (bench/family.bench.ts),
  // after a full collection: the compare bench above leaves its lanes' garbage behind.
  collectGarbage();
  const family = await familyBench(options.runs);
  rows.push([
    `${family.files} files, ${family.entries / 1000}k entries`,
    'family (head reads + forest)',
    fmtMs(family.familyMs),
    'goal 1 s',
  ]);
  summary.family = family;
  // docs/archive-and-family.md#subagent-lanes: subagent call sites in a parent past the scan cap.
  const callSites = await callSiteBench(options.runs);
  rows.push([
    `${(callSites.parentBytes / 2 ** 20).toFixed(0)} MB parent, ${callSites.subagents} subagents`,
    'call sites (64 MB scan, not open)',
    fmtMs(callSites.callSitesMs),
    'family goal 1 s',
  ]);
  summary.callSites = callSites;
  const header = ['session', 'what', 'Canopy (median)', 'anchor'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(
    `\nnode ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? '?'}, load average ${loadavg()
      .map((v) => v.toFixed(1))
      .join(' ')}, ${options.runs} run(s), ${new Date().toISOString()}\n`,
  );
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    loadavg: loadavg(),
    runs: options.runs,
    sizes: summary,
  };
  writeFileSync(options.json, JSON.stringify(result, null, 2));
  console.log(`\nJSON: ${options.json}`);
}

await main();
