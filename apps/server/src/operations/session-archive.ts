import type { ArchiveResult, TidyResponse } from '@canopy/protocol';
import {
  ARCHIVE_CUSTOM_TYPE,
  archiveRefusal,
  tidySuggestions,
  type LeftBranchSummary,
  type SessionManager,
} from '@canopy/session-core';
import { AppError } from '../errors';
import type { SessionStore } from '../session-store';

/** The tree's shape as archive rules read it, from the manager's index alone (no entry read back). */
function shapeOf(sm: SessionManager) {
  return {
    has: (id: string) => sm.getShape(id) !== undefined,
    parentOf: (id: string) => sm.getShape(id)?.parentId,
  };
}

/**
 * Archiving and restoring branches, and the suggestions to tidy (docs/archive-and-family.md): a
 * record is one `custom` line appended through the session's one write path (the lock rule, refused
 * while another writer is active), never a rewrite.
 */
export class SessionArchive {
  constructor(private readonly store: SessionStore) {}

  /** Appends an archive (or, with `archived` false, a restore) record for the branch under `entryId`. */
  async setArchived(id: string, entryId: string, archived: boolean): Promise<ArchiveResult> {
    const session = await this.store.open(id);
    const recordId = await session.mutate((sm) => {
      const refusal = archiveRefusal(shapeOf(sm), entryId, archived, sm.getLeafId());
      if (refusal) throw new AppError(refusal.code, refusal.message);
      return sm.appendCustomEntry(ARCHIVE_CUSTOM_TYPE, { targetId: entryId, archived });
    }, true);
    return { targetId: entryId, archived, recordId, leafId: session.sm.getLeafId() };
  }

  /**
   * The branches worth archiving, from the tree model's nodes (flags and types only) and the branch
   * summaries that name the leaf they left; and archive records whose target is not in the session.
   */
  async suggestions(id: string): Promise<TidyResponse> {
    const session = await this.store.open(id);
    await session.refresh();
    const { sm, tree } = session;
    const nodes = tree.all;
    const summaries: LeftBranchSummary[] = [];
    for (const node of nodes) {
      if (node.type !== 'branch_summary') continue;
      const entry = sm.getEntry(node.id);
      if (!entry) continue;
      const origin = sm.branchSummaryOrigin(entry);
      if (origin.meaning === 'left-leaf' && origin.id)
        summaries.push({ summaryId: node.id, leftLeafId: origin.id });
    }
    const textOf = new Map(nodes.map((node) => [node.id, node.text] as const));
    return {
      suggestions: tidySuggestions(nodes, sm.getLeafId(), summaries).map((s) => ({
        ...s,
        text: textOf.get(s.targetId) ?? '',
      })),
      unknownTargets: tree.archiveLedger.unknownTargets((target) => sm.getShape(target) !== undefined),
    };
  }
}
