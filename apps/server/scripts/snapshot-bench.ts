// Times GET /api/sessions/:id over real HTTP on localhost: the first request (which opens the
// session) and warm repeats, plus the first open's steps. Usage (from the repo root):
//   pnpm exec tsx apps/server/scripts/snapshot-bench.ts <folder with one session> [--runs N]
// Make a folder with bench/synthetic.ts (see bench/README.md). No test asserts these timings.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app';
import { nodeChunkLines } from '../src/live/tree-model';

const args = process.argv.slice(2);
const folder = args.find((arg) => !arg.startsWith('--'));
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 6;
if (!folder) {
  console.error('usage: snapshot-bench.ts <folder with one session> [--runs N]');
  process.exit(2);
}

const TOKEN = 'snapshot-bench-token';
const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-snapshot-bench-'));
const ms = (value: number) => `${value.toFixed(0)} ms`;

async function firstOpenSteps(): Promise<void> {
  const app = await buildApp({ roots: [folder!], stateDir, token: TOKEN, port: 4999 });
  const store = app.canopy.store;
  const id = store.list()[0]?.id;
  if (!id) throw new Error(`no session in ${folder}`);
  let start = performance.now();
  const session = await store.open(id);
  // Opening builds the tree model (the nodes) along with the manager.
  const open = performance.now() - start;
  start = performance.now();
  let chars = 0;
  let chunks = 0;
  for (const chunk of nodeChunkLines(session.snapshotNodes())) {
    chars += chunk.length;
    chunks++;
  }
  const serialize = performance.now() - start;
  console.log(
    `first open: load and nodes ${ms(open)}, JSON ${ms(serialize)} ` +
      `(${(chars / 1e6).toFixed(1)} M chars in ${chunks} chunks, encoded one at a time)`,
  );
  await app.close();
}

async function overHttp(): Promise<void> {
  const app = await buildApp({ roots: [folder!], stateDir, token: TOKEN });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const base = `http://127.0.0.1:${port}`;
  const headers = { authorization: `Bearer ${TOKEN}` };
  const list = (await (await fetch(`${base}/api/sessions`, { headers })).json()) as {
    sessions: Array<{ id: string }>;
  };
  const id = list.sessions[0]!.id;
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    const response = await fetch(`${base}/api/sessions/${id}`, { headers });
    const headersAt = performance.now();
    const text = await response.text();
    const end = performance.now();
    console.log(
      `${run === 0 ? 'first' : 'again'}: ${ms(end - start)} (headers after ${ms(headersAt - start)}), ` +
        `${(Buffer.byteLength(text) / 1e6).toFixed(1)} MB`,
    );
  }
  await app.close();
}

await firstOpenSteps();
await overHttp();
fs.rmSync(stateDir, { recursive: true, force: true });
