// The tree nodes a fresh open builds from a whole session: what the tests compare a tailed, piecewise
// or written session with. One place, so that a fact a node gains (a label's time) reaches every such
// comparison at once.
import type { TreeNode } from '@canopy/protocol';
import { ToolCallIndex, type SessionManager } from '@canopy/session-core';
import { treeNodesOf } from '../src/live/tree-model';

export function freshTreeNodes(sm: SessionManager, home: string): TreeNode[] {
  return treeNodesOf(
    sm.getEntries(),
    (id) => sm.getLabel(id),
    new ToolCallIndex(),
    home,
    (id) => sm.getLabelTimestamp(id),
  );
}
