// The provenance of bring-back entries (docs/bring-back.md#provenance): which entries of this session
// each one was brought from, for the graph's dashed edges. A bring-back is told from its row (a
// custom_message whose row starts with its custom type); its provenance is asked of the server once
// per entry, and again after an undo (slices/bringBack.ts).

import { useEffect, useMemo } from 'react';
import type { GraphLayout } from '../../layout/graphLayout';
import { useApp, useAppStore } from '../../store/context';
import { treeOf, treeVersionOf } from '../../store/selectors';
import { BRING_BACK_ROW_PREFIX } from '../../store/slices/bringBack';

/** A dashed edge: from an entry brought to the bring-back entry. */
export interface ProvenanceEdge {
  from: string;
  to: string;
}

/** Ids of the bring-back entries in the tree, oldest first. */
export function useBringBackIds(): readonly string[] {
  const tree = useApp(treeOf);
  const version = useApp(treeVersionOf);
  return useMemo(() => {
    void version;
    if (!tree) return [];
    const ids: string[] = [];
    // The tree keeps its custom messages listed: a live append costs no walk of every entry.
    for (const index of tree.indicesOfType('custom_message')) {
      const entry = tree.entryAt(index);
      if (entry.text.startsWith(BRING_BACK_ROW_PREFIX)) ids.push(entry.id);
    }
    return ids;
  }, [tree, version]);
}

export function useBringBackEdges(): readonly ProvenanceEdge[] {
  const store = useAppStore();
  const ids = useBringBackIds();
  const info = useApp((s) => s.bringBackInfo);
  useEffect(() => {
    for (const id of ids)
      if (!store.getState().bringBackInfo[id]) void store.getState().loadBringBackInfo(id);
  }, [ids, store]);
  return useMemo(() => {
    const edges: ProvenanceEdge[] = [];
    for (const id of ids) {
      const known = info[id];
      // Entries of another file are not in this graph: the detail panel names the file instead.
      if (!known?.sameFile) continue;
      for (const from of known.sourceEntryIds) edges.push({ from, to: id });
    }
    return edges;
  }, [ids, info]);
}

/**
 * The edges as pairs of the layout's nodes. An entry hidden in a run is drawn from its run; an edge
 * whose two ends are one node (both in one run) or not in the layout (filtered out) is not drawn.
 */
export function useProvenancePairs(layout: GraphLayout | null): ReadonlyArray<readonly [number, number]> {
  const edges = useBringBackEdges();
  return useMemo(() => {
    if (!layout) return [];
    const pairs: Array<readonly [number, number]> = [];
    for (const edge of edges) {
      const from = layout.indexOfEntry.get(edge.from);
      const to = layout.indexOfEntry.get(edge.to);
      if (from === undefined || to === undefined || from === to) continue;
      if (!pairs.some(([a, b]) => a === from && b === to)) pairs.push([from, to]);
    }
    return pairs;
  }, [layout, edges]);
}
