// Helpers for the tests of the snapshot's path to the page.

import type { TreeNode } from '@canopy/protocol';

/**
 * A node's fields as read, in a plain object without the absent ones: an unpacked node reads its
 * texts through getters (packedNodes.ts), which a deep equality of the objects would not see.
 */
export function fieldsOf(node: TreeNode): TreeNode {
  const { id, parentId, type, role, timestamp, label, labelTime, text, search, flags, usage } = node;
  const fields: Record<string, unknown> = {
    id,
    parentId,
    type,
    role,
    timestamp,
    label,
    labelTime,
    text,
    search,
    flags,
    usage,
  };
  for (const key of Object.keys(fields)) if (fields[key] === undefined) delete fields[key];
  return fields as unknown as TreeNode;
}
