// The graph layout brought up to date after an append, without laying the tree out again.
//
// A live append usually puts a chain of new entries under the tip of a branch. When that tip is
// drawn right under a run node (the usual case on a long branch), the tip and the new entries
// above the last one join the run and the last one takes the tip's place: the drawn tree has the
// same shape, so every position, depth, connector and spatial index is what a full layout gives,
// and only two nodes and a few id lookups change. An append of entries the filter hides changes
// nothing drawn at all. Anything else (a new fork, a short chain that becomes a run, a label on a
// visible entry, an entry whose parent arrives late) answers null, and the caller lays the tree
// out again. O(new entries + drawn nodes): the nodes array is copied, never walked by id.

import type { FilterMode, ViewTree } from '@canopy/session-core';
import type { EntryNodeLookup, GraphLayout, GraphNode } from '../layout/graphLayout';
import type { VisibleRows } from './derived';

/** A layout with what it was computed from. */
export interface LaidOutRows {
  readonly tree: ViewTree;
  /** The tree's version and size when `rows` were computed (the tree object keeps growing); size -1 if not known. */
  readonly treeVersion: number;
  readonly treeSize: number;
  readonly leafId: string | null;
  readonly mode: FilterMode;
  readonly rows: VisibleRows;
  readonly layout: GraphLayout;
  /** Lookups changed by earlier appends since the layout was computed, over `base`. */
  readonly overrides: ReadonlyMap<string, number>;
  readonly base: EntryNodeLookup;
}

/** Past this many changed lookups a fresh layout is cheaper to keep than the overlay. */
const MAX_OVERRIDES = 4096;

/**
 * Past this many new entries the append is not tried: a live append adds a few entries, a
 * snapshot's next part thousands, and for those the test below (which reads every drawn row's id)
 * cost tens of ms at 50,000 entries in one task, only to answer that the tree needs a fresh layout,
 * which the caller then makes in slices.
 */
export const MAX_APPENDED_ENTRIES = 512;

/** Drawn children per node, for the tip test (kept per parent array: appends share it). */
const childCounts = new WeakMap<Int32Array, Int32Array>();

function drawnChildCounts(parent: Int32Array): Int32Array {
  let counts = childCounts.get(parent);
  if (counts === undefined) {
    counts = new Int32Array(parent.length);
    for (let i = 0; i < parent.length; i++) if (parent[i]! >= 0) counts[parent[i]!]!++;
    childCounts.set(parent, counts);
  }
  return counts;
}

function overlayLookup(base: EntryNodeLookup, overrides: ReadonlyMap<string, number>): EntryNodeLookup {
  if (overrides.size === 0) return base;
  return { get: (id) => overrides.get(id) ?? base.get(id) };
}

/** The layout of `next` when it grew from `prev` by appends alone; null when it needs a fresh layout. */
export function appendToLayout(
  prev: LaidOutRows,
  next: Omit<LaidOutRows, 'layout' | 'overrides' | 'base'>,
): { layout: GraphLayout; overrides: ReadonlyMap<string, number> } | null {
  const tree = next.tree;
  if (prev.tree !== tree || prev.mode !== next.mode || next.treeVersion < prev.treeVersion) return null;
  if (prev.treeSize < 0 || next.treeSize < prev.treeSize) return null;
  if (next.treeSize - prev.treeSize > MAX_APPENDED_ENTRIES) return null;
  // Entries changed in place (a label, a tool call whose result arrived) may have changed a pin or
  // a visibility. One drawn inside a run was unpinned then; if it still is, and shows in both, the
  // drawing is the same.
  const changed = tree.entriesChangedSince(prev.treeVersion);
  if (changed === null) return null;
  const shown = (rows: VisibleRows, id: string) => rows.indexById.has(id);
  const prevLookup = overlayLookup(prev.base, prev.overrides);
  for (const index of changed) {
    if (index >= prev.treeSize) continue;
    const id = tree.entryAt(index).id;
    const before = shown(prev.rows, id);
    if (before !== shown(next.rows, id)) return null;
    if (!before) continue;
    const node = prevLookup.get(id);
    if (node === undefined || prev.layout.nodes[node]!.kind !== 'run') return null;
    if (tree.entryAt(index).label !== undefined) return null;
  }
  // Within one filter mode only the leaf's visibility depends on anything but the entry itself.
  for (const leaf of [prev.leafId, next.leafId]) {
    if (leaf === null) continue;
    const index = tree.indexOf(leaf);
    if (index >= 0 && index < prev.treeSize && shown(prev.rows, leaf) !== shown(next.rows, leaf)) return null;
  }
  const added: string[] = [];
  for (let index = prev.treeSize; index < next.treeSize; index++) {
    // A new entry that is the parent of an earlier one moved that one: not an append any more.
    for (let k = tree.childCountAt(index) - 1; k >= 0; k--)
      if (tree.childAt(index, k) < prev.treeSize) return null;
    const id = tree.entryAt(index).id;
    if (shown(next.rows, id)) added.push(id);
  }
  if (next.rows.rows.length !== prev.rows.rows.length + added.length) return null;
  if (added.length === 0) return { layout: prev.layout, overrides: prev.overrides };

  const rowOf = (id: string) => next.rows.rows[next.rows.indexById.get(id)!]!;
  // The new entries must be one chain, each under the one before, the first under an old entry.
  const tipId = rowOf(added[0]!).visibleParentId;
  if (tipId === null || tree.indexOf(tipId) >= prev.treeSize) return null;
  for (let k = 1; k < added.length; k++) if (rowOf(added[k]!).visibleParentId !== added[k - 1]) return null;
  // Those that get a child must not be pinned (a pinned entry is always drawn as its own node).
  if (rowOf(tipId).entry.label !== undefined) return null;
  for (let k = 0; k < added.length - 1; k++) if (rowOf(added[k]!).entry.label !== undefined) return null;

  const layout = prev.layout;
  const tip = prevLookup.get(tipId);
  if (tip === undefined) return null;
  const tipNode = layout.nodes[tip]!;
  if (tipNode.kind !== 'entry' || tipNode.id !== tipId) return null;
  if (drawnChildCounts(layout.parent)[tip] !== 0) return null;
  const run = layout.parent[tip]!;
  const runNode = run >= 0 ? layout.nodes[run]! : undefined;
  if (runNode?.kind !== 'run') return null;
  if (prev.overrides.size + added.length + 1 > MAX_OVERRIDES) return null;

  const joining = [tipId, ...added.slice(0, -1)];
  const newTip = added[added.length - 1]!;
  const nodes: GraphNode[] = layout.nodes.slice();
  nodes[run] = {
    kind: 'run',
    id: runNode.id,
    members: [...runNode.members, ...joining],
    depth: runNode.depth,
  };
  nodes[tip] = { kind: 'entry', id: newTip, depth: tipNode.depth };
  const overrides = new Map(prev.overrides);
  for (const id of joining) overrides.set(id, run);
  overrides.set(newTip, tip);
  return {
    layout: { ...layout, nodes, indexOfEntry: overlayLookup(prev.base, overrides) },
    overrides,
  };
}
