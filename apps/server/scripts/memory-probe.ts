// What an open session keeps on the heap, split into the manager's index and the tree model's
// nodes, after forced collections; then what is left once the store released it as idle. Usage (from the repo root):
//   node --expose-gc node_modules/.bin/tsx apps/server/scripts/memory-probe.ts <folder with one session>
// (or `pnpm --filter ./apps/server exec node --expose-gc …`). No test asserts these numbers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app';

const folder = process.argv[2];
if (!folder) {
  console.error('usage: memory-probe.ts <folder with one session>');
  process.exit(2);
}
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run node with --expose-gc');
  process.exit(2);
}

/** Heap in use after collections (twice: the first can leave weakly held garbage). */
function heap(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-memory-probe-'));
// The store's clock: moved past the idle period to release the session.
let now = 0;
const clock = { now: () => now, sleep: async () => undefined };
const app = await buildApp({ roots: [folder], stateDir, token: 'memory-probe-token', port: 4999, clock });
const store = app.canopy.store;
const id = store.list()[0]?.id;
if (!id) throw new Error(`no session in ${folder}`);
const file = store.index.get(id)!.file;
const size = fs.statSync(file).size;

/**
 * Opens the session and measures it; a function, so that no reference to the session outlives it
 * (an awaited value at the top level of a module stays reachable from the module's frame).
 */
async function measure(sessionId: string): Promise<{ nodes: number; open: number; tree: number }> {
  const empty = heap();
  const session = await store.open(sessionId);
  const open = heap() - empty;
  // What the session holds without its tree model's nodes, maps and tool-call index.
  const nodes = session.tree.all.length;
  session.tree.clear();
  return { nodes, open, tree: open - (heap() - empty) };
}

const empty = heap();
const { nodes, open, tree } = await measure(id);
const withoutTree = open - tree;
now += 24 * 3600_000;
const released = store.releaseIdle().includes(id);
// Promise jobs and timers of the closed session still hold it until they have run.
await new Promise((resolve) => setTimeout(resolve, 100));
const afterRelease = heap() - empty;
console.log(
  `${path.basename(file)} (${mb(size)}, ${nodes} entries): open session ${mb(open)} (${(open / size).toFixed(2)}× the file); ` +
    `tree model ${mb(tree)} (${Math.round(tree / nodes)} bytes per node), manager and the rest ${mb(withoutTree)} ` +
    `(${Math.round(withoutTree / nodes)} bytes per entry); ` +
    `${released ? 'released' : 'NOT released'}: ${mb(afterRelease)} left`,
);
await app.close();
fs.rmSync(stateDir, { recursive: true, force: true });
