import type { TreeNode } from '@canopy/protocol';
import {
  archiveBitsBelow,
  archiveBitsOf,
  withArchiveBits,
  type ArchiveLedger,
  type SessionManager,
} from '@canopy/session-core';

/**
 * Sets the archive flags the ledger implies on the tree model's nodes (docs/archive-and-family.md#archive):
 * first over the subtrees of `targets` (the records received since the last sync; an earlier node,
 * before `from`, whose flags change is replaced by a copy and put in `changed`, since a snapshot
 * being sent holds the old object), then on the nodes received since, each from its parent's flags
 * (parents come before children in file order; a parent that does not is taken as not archived, and
 * its own record's walk sets the child).
 */
export function syncArchiveFlags(
  nodes: TreeNode[],
  sm: SessionManager,
  from: number,
  changed: Map<number, TreeNode>,
  ledger: ArchiveLedger,
  targets: readonly string[],
): void {
  const nodeOf = (id: string): [number, TreeNode] | undefined => {
    const position = sm.getPosition(id);
    const node = position === undefined ? undefined : nodes[position];
    return node && node.id === id ? [position!, node] : undefined;
  };
  const setBits = (position: number, bits: number) => {
    const node = nodes[position]!;
    const flags = withArchiveBits(node.flags, bits);
    if (flags === node.flags) return;
    if (position < from) {
      const copy = { ...node, flags };
      nodes[position] = copy;
      changed.set(position, copy);
    } else node.flags = flags;
  };
  if (targets.length > 0) {
    archiveBitsBelow(
      {
        has: (id) => nodeOf(id) !== undefined,
        parentOf: (id) => nodeOf(id)?.[1].parentId,
        childrenOf: (id) => sm.getChildShapes(id).map((shape) => shape.id),
        flagsOf: (id) => nodeOf(id)?.[1].flags ?? 0,
      },
      targets,
      ledger,
      (id, bits) => setBits(nodeOf(id)![0], bits),
    );
  }
  for (let position = from; position < nodes.length; position++) {
    const node = nodes[position]!;
    const parent = node.parentId === null ? undefined : nodeOf(node.parentId);
    const parentFlags = parent && parent[0] < position ? parent[1].flags : 0;
    setBits(position, archiveBitsOf(node.id, parentFlags, ledger));
  }
}
