// Memory and load time of one open session in each retention mode of SessionManager ('all': every
// parsed entry kept; 'index': the index plus entries read back by byte range). Each measurement runs in
// a fresh child process, which loads the file as the server does (4 MB pieces through
// fromJsonlChunks, an onEntries listener, then the leaf's context and branch) and reports its heap and
// RSS growth over its own baseline and its peak RSS (VmHWM).
//
//   node .tools/node_modules/pnpm/bin/pnpm.cjs exec tsx bench/retention.bench.ts [--sizes 50k,200k] [--runs 3]
import { execFileSync } from 'node:child_process';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SessionManager } from '../packages/session-core/src/index';
import type { EntryRetention } from '../packages/session-core/src/index';
import { median } from './load.bench';
import { sessionFile, SIZES } from './sessions';

const PIECE = 4 << 20;
const MODES: readonly EntryRetention[] = ['all', 'index'];

interface Sample {
  loadMs: number;
  heapGrowth: number;
  rssGrowth: number;
  peakRssGrowth: number;
  bytes: number;
  entries: number;
}

/** VmHWM (peak resident set) of this process in bytes. */
function peakRss(): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

/** The child: loads `path` keeping `retention` and prints one JSON sample. */
async function child(retention: EntryRetention, path: string): Promise<void> {
  setFlagsFromString('--expose_gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const rssBefore = process.memoryUsage().rss;
  const peakBefore = peakRss();

  const fd = openSync(path, 'r');
  const bytes = fstatSync(fd).size;
  const readRange = (offset: number, length: number): Uint8Array => {
    const buffer = Buffer.allocUnsafe(length);
    const read = readSync(fd, buffer, 0, length, offset);
    return buffer.subarray(0, read);
  };
  function* pieces(): Generator<Uint8Array> {
    for (let at = 0; at < bytes; at += PIECE) yield readRange(at, Math.min(PIECE, bytes - at));
  }
  let seen = 0;
  const start = performance.now();
  const session = await SessionManager.fromJsonlChunks(pieces(), {
    retain: retention,
    readRange,
    onEntries: (entries) => {
      seen += entries.length;
    },
  });
  const context = session.buildSessionContext();
  const branch = session.getBranch();
  const loadMs = performance.now() - start;

  gc();
  gc();
  const sample: Sample = {
    loadMs,
    heapGrowth: process.memoryUsage().heapUsed - heapBefore,
    rssGrowth: process.memoryUsage().rss - rssBefore,
    peakRssGrowth: peakRss() - peakBefore,
    bytes,
    entries: seen,
  };
  // Keep the session alive until it was measured.
  if (context.messages.length + branch.length < 0) console.log(session.getLeafId());
  closeSync(fd);
  console.log(JSON.stringify(sample));
}

async function main(argv: readonly string[]): Promise<void> {
  let names = ['50k', '200k'];
  let runs = 3;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--sizes') names = (argv[++i] ?? '').split(',');
    else if (arg === '--runs') runs = Number(argv[++i]);
    else throw new Error(`unknown argument ${arg} (see bench/README.md)`);
  }
  const sizes = names.map((name) => {
    const size = SIZES[name];
    if (!size) throw new Error(`unknown size ${name}; one of ${Object.keys(SIZES).join(', ')}`);
    return size;
  });
  const files = new Map<string, string>();
  for (const size of sizes) files.set(size.name, await sessionFile(size));

  const samples = new Map<string, Sample[]>();
  const self = fileURLToPath(import.meta.url);
  for (let run = 0; run < runs; run++) {
    // Interleaved, so drift on a busy machine hits every size and mode alike.
    for (const size of sizes) {
      for (const mode of MODES) {
        const output = execFileSync(
          process.execPath,
          [...process.execArgv, self, '--child', mode, files.get(size.name) as string],
          { encoding: 'utf8', maxBuffer: 1 << 20 },
        );
        const sample = JSON.parse(output.trim().split('\n').at(-1) as string) as Sample;
        const key = `${size.name} ${mode}`;
        samples.set(key, [...(samples.get(key) ?? []), sample]);
        console.log(`run ${run + 1}: ${key}: ${JSON.stringify(sample)}`);
      }
    }
  }

  console.log(
    `\nnode ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? '?'}, load average ${loadavg()
      .map((v) => v.toFixed(1))
      .join(' ')}, ${runs} run(s), medians\n`,
  );
  console.log(
    '| session | retain | load | heap growth ÷ file | RSS growth ÷ file | peak RSS growth ÷ file |',
  );
  console.log(
    '| ------- | ------ | ---: | -----------------: | ----------------: | ---------------------: |',
  );
  for (const size of sizes) {
    for (const mode of MODES) {
      const list = samples.get(`${size.name} ${mode}`) ?? [];
      const bytes = list[0]?.bytes ?? Number.NaN;
      const ratio = (pick: (sample: Sample) => number) => `${(median(list.map(pick)) / bytes).toFixed(2)}×`;
      console.log(
        `| ${size.name} (${Math.round(bytes / 1e6)} MB) | ${mode} | ${(median(list.map((s) => s.loadMs)) / 1000).toFixed(2)} s | ${ratio((s) => s.heapGrowth)} | ${ratio((s) => s.rssGrowth)} | ${ratio((s) => s.peakRssGrowth)} |`,
      );
    }
  }
}

const argv = process.argv.slice(2);
if (argv[0] === '--child') await child(argv[1] as EntryRetention, argv[2] as string);
else await main(argv);
