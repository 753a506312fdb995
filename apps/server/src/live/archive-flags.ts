import type { TreeNode } from '@canopy/protocol';
import { withArchiveTarget, type ArchiveLedger, type SessionManager } from '@canopy/session-core';

/**
 * Sets the ArchiveTarget flag the ledger implies (docs/archive-and-family.md#archive): on the targets
 * of the records received since the last sync, and on the nodes received since. Only a record's own
 * target changes, whatever the size of its branch: which entries are inside an archived branch, the
 * page's view tree derives. An earlier node (before `from`) whose flag changes is replaced by a copy
 * and put in `changed`, since a snapshot being sent holds the old object.
 */
export function syncArchiveFlags(
  nodes: TreeNode[],
  sm: SessionManager,
  from: number,
  changed: Map<number, TreeNode>,
  ledger: ArchiveLedger,
  targets: readonly string[],
): void {
  const update = (position: number) => {
    const node = nodes[position]!;
    const flags = withArchiveTarget(node.flags, ledger.isArchived(node.id));
    if (flags === node.flags) return;
    if (position < from) {
      const copy = { ...node, flags };
      nodes[position] = copy;
      changed.set(position, copy);
    } else node.flags = flags;
  };
  for (const targetId of targets) {
    const position = sm.getPosition(targetId);
    if (position !== undefined && position < from && nodes[position]?.id === targetId) update(position);
  }
  for (let position = from; position < nodes.length; position++) update(position);
}
