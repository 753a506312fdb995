// Archiving and restoring a branch at 200,000 entries (docs/archive-and-family.md): the work from
// the record to the rows, without the browser's paint. Server: the record appended and the tree
// model's sync (the branch's nodes re-flagged). Page: the event's nodes put in the view tree and
// the selector's rows recomputed. Also the reveal switch (Alt+R). Medians of several runs.
//
//   node .tools/node_modules/pnpm/bin/pnpm.cjs exec tsx bench/archive.bench.ts [--entries 200000] [--runs 5] [--small]

import {
  ARCHIVE_CUSTOM_TYPE,
  SessionManager,
  ViewTree,
  createTreeSelectorState,
  treeSelectorReducer,
  type TreeSelectorState,
} from '../packages/session-core/src/index';
import type { TreeDelta } from '../apps/server/src/live/tree-model';
import { TreeModel } from '../apps/server/src/live/tree-model';
import { syntheticJsonl } from './synthetic';

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
};
const entries = arg('entries', 200_000);
const runs = arg('runs', 5);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const text = syntheticJsonl({ entries, sizeScale: 0.4, seed: 1 });
const model = new TreeModel('/home/dev');
const sm = SessionManager.fromJsonl(text, { onEntries: (batch, first) => model.receive(batch, first) });
model.sync(sm);
let selector: TreeSelectorState = createTreeSelectorState(new ViewTree(model.all.map((n) => ({ ...n }))), {
  leafId: sm.getLeafId(),
  pageSize: 20,
});
selector = treeSelectorReducer(selector, { type: 'refresh' });

// A branch off the active path (a child, not on the path, of an entry on it): the largest, or with
// --small the largest of at most 1,000 entries (the usual abandoned branch).
const small = process.argv.includes('--small');
const onPath = new Set(sm.getBranchShapes().map((shape) => shape.id));
let target: string | undefined;
let targetSize = 0;
for (const id of onPath) {
  for (const child of sm.getChildShapes(id)) {
    if (onPath.has(child.id)) continue;
    let size = 0;
    const stack = [child.id];
    while (stack.length > 0) {
      size++;
      for (const c of sm.getChildShapes(stack.pop()!)) stack.push(c.id);
    }
    if (size > targetSize && (!small || size <= 1_000)) [target, targetSize] = [child.id, size];
  }
}
if (!target) throw new Error('the synthetic session has no branch off the active path');

/** One record, from the append to the rows: [server ms, page ms]. */
function step(archived: boolean): [number, number] {
  const t0 = performance.now();
  sm.appendCustomEntry(ARCHIVE_CUSTOM_TYPE, { targetId: target, archived });
  const delta: TreeDelta = model.sync(sm);
  const t1 = performance.now();
  const tree = selector.tree;
  tree.append(delta.added);
  for (const node of delta.changed) tree.replace(node);
  selector = treeSelectorReducer(selector, { type: 'setLeaf', leafId: sm.getLeafId() });
  const t2 = performance.now();
  return [t1 - t0, t2 - t1];
}

const samples: Record<string, number[]> = {};
const add = (name: string, ms: number) => (samples[name] ??= []).push(ms);
for (let run = 0; run < runs; run++) {
  const [serverA, pageA] = step(true);
  add('archive: server (append + tree model sync)', serverA);
  add('archive: page (nodes + rows)', pageA);
  add('archive: total', serverA + pageA);
  const t0 = performance.now();
  selector.tree.setArchivedRevealed(true);
  selector = treeSelectorReducer(selector, { type: 'refresh' });
  add('reveal (Alt+R): rows', performance.now() - t0);
  selector.tree.setArchivedRevealed(false);
  selector = treeSelectorReducer(selector, { type: 'refresh' });
  const [serverR, pageR] = step(false);
  add('restore: server (append + tree model sync)', serverR);
  add('restore: page (nodes + rows)', pageR);
  add('restore: total', serverR + pageR);
}
console.log(
  `${entries.toLocaleString()} entries, branch of ${targetSize.toLocaleString()} archived, ${runs} runs`,
);
for (const [name, values] of Object.entries(samples))
  console.log(`${name.padEnd(44)} ${median(values).toFixed(1)} ms`);
