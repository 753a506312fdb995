// Profiles the server's first open of a session alone (not the start-up index scan): builds the app,
// then records a V8 CPU profile of `store.open` only. Usage (from the repo root):
//   pnpm exec tsx apps/server/scripts/open-profile.ts <folder with one session> <out.cpuprofile>
// Summarise it with bench/cpuprofile-top.ts. No test asserts these timings.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import { buildApp } from '../src/app';

const [folder, out] = process.argv.slice(2);
if (!folder || !out) {
  console.error('usage: open-profile.ts <folder with one session> <out.cpuprofile>');
  process.exit(2);
}
const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-open-profile-'));
const app = await buildApp({ roots: [folder], stateDir, token: 'open-profile-token', port: 4999 });
const store = app.canopy.store;
const id = store.list()[0]?.id;
if (!id) throw new Error(`no session in ${folder}`);
const inspector = new Session();
inspector.connect();
await inspector.post('Profiler.enable');
await inspector.post('Profiler.start');
const start = performance.now();
await store.open(id);
const ms = performance.now() - start;
const { profile } = await inspector.post('Profiler.stop');
fs.writeFileSync(out, JSON.stringify(profile));
console.log(`first open: ${ms.toFixed(0)} ms, profile in ${out}`);
await app.close();
fs.rmSync(stateDir, { recursive: true, force: true });
