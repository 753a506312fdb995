import { SessionManager, ViewTree, computeRows, prepareRowsAhead, toViewEntries, FILTER_MODES } from '../packages/session-core/src/index';
import { syntheticJsonl } from '../bench/synthetic';
const n = Number(process.argv[2] ?? 200000);
const session = SessionManager.fromJsonl(syntheticJsonl({ entries: n, sizeScale: 0.4, seed: 1 }));
const views = toViewEntries(session.getEntries(), (id) => session.getLabel(id));
const leafId = session.getLeafId();
const tree = new ViewTree(views);
const ids = views.filter((v) => v.type === 'message').map((v) => v.id);
const t = (label: string, f: () => void) => { const s = performance.now(); f(); console.log(label, (performance.now() - s).toFixed(1)); };
computeRows(tree, { leafId });
for (let r = 0; r < 4; r++) {
  const target = ids[(r * 7919) % ids.length]!;
  t('jump rows', () => computeRows(tree, { leafId: target }));
  t('  traversal only', () => prepareRowsAhead(tree, target, []));
  t('  filter bits', () => prepareRowsAhead(tree, target, FILTER_MODES));
  t('  search e', () => computeRows(tree, { leafId: target, query: 'e' }));
}
