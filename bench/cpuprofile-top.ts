// The functions that took the most time in a V8 CPU profile (`node --cpu-prof`, or a Chromium
// Performance trace's profile saved as .cpuprofile): self time, and total time of each function
// including what it called, grouped by function name and file. Used to find what bounds the open.
//
//   pnpm exec tsx bench/cpuprofile-top.ts <file.cpuprofile> [--top 25]
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const file = args.find((arg) => !arg.startsWith('--'));
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
if (!file) {
  console.error('usage: cpuprofile-top.ts <file.cpuprofile> [--top N]');
  process.exit(2);
}

const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const keyOf = (node: ProfileNode) =>
  `${node.callFrame.functionName || '(anonymous)'} ${basename(node.callFrame.url) || '(native)'}:${node.callFrame.lineNumber + 1}`;

const self = new Map<string, number>();
const total = new Map<string, number>();
let all = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const micros = profile.timeDeltas[i] ?? 0;
  all += micros;
  let node = byId.get(profile.samples[i] as number);
  if (!node) continue;
  const leaf = keyOf(node);
  self.set(leaf, (self.get(leaf) ?? 0) + micros);
  // Each function counts once per sample, however deep its recursion.
  const seen = new Set<string>();
  while (node) {
    const key = keyOf(node);
    if (!seen.has(key)) {
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + micros);
    }
    const up = parent.get(node.id);
    node = up === undefined ? undefined : byId.get(up);
  }
}

const ms = (micros: number) => `${(micros / 1000).toFixed(0).padStart(7)} ms`;
const print = (title: string, values: Map<string, number>) => {
  console.log(`\n${title}`);
  const sorted = [...values].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [key, micros] of sorted)
    console.log(`${ms(micros)} ${((100 * micros) / all).toFixed(1).padStart(5)}%  ${key}`);
};
console.log(`${file}: ${ms(all)} sampled`);
print('self time', self);
print('total time (with callees)', total);
