// Wire skeleton nodes (protocol) → session-core view entries, and the usage numbers kept beside them.

import type { SkeletonNode, UsageNumbers } from '@canopy/protocol';
import { viewFlagsFromRecord, type ViewEntry } from '@canopy/session-core';

export function toViewEntry(node: SkeletonNode): ViewEntry {
  const entry: ViewEntry = {
    id: node.id,
    parentId: node.parentId,
    type: node.type,
    timestamp: node.timestamp,
    text: node.text,
    search: node.search,
    flags: viewFlagsFromRecord(node.flags),
  };
  if (node.role !== undefined) entry.role = node.role;
  if (node.label !== undefined && node.label !== '') entry.label = node.label;
  return entry;
}

export function collectUsage(nodes: readonly SkeletonNode[], into: Map<string, UsageNumbers>): void {
  for (const node of nodes) if (node.usage) into.set(node.id, node.usage);
}
