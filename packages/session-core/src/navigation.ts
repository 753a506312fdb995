// Navigation planning for the /tree flow and the /branch message list, as pure functions over
// the tree, so the server's navigateTree only orchestrates (summarize, then apply the move).

import { editorTextOf, userMessageText } from './text';
import type { SessionEntry } from './types';

/** The read access navigation needs; SessionManager satisfies it. */
export interface NavigationTree {
  /**
   * Root-first path ending at `id` (or at the leaf when omitted); only the ids are read, so a
   * session keeping only its index answers it without reading the paths back from its file.
   */
  getBranchShapes(id?: string | null): readonly Pick<SessionEntry, 'id'>[];
  getEntry(id: string): SessionEntry | undefined;
}

export interface BranchSummaryCollection {
  /** The abandoned entries, chronological: below the common ancestor, down to the old leaf. */
  entries: SessionEntry[];
  /** Deepest entry on both the old path and the target path; null when they share none. */
  commonAncestorId: string | null;
}

/**
 * The entries a navigation from `oldLeafId` to `targetId` abandons: every entry on the old path
 * strictly below the deepest common ancestor, down to and including the old leaf, oldest first.
 * All entry types are included and compactions do not stop the walk. Moving to an ancestor
 * leaves the target itself out; moving to a descendant abandons nothing.
 */
export function collectEntriesForBranchSummary(
  tree: NavigationTree,
  oldLeafId: string | null,
  targetId: string,
): BranchSummaryCollection {
  if (!oldLeafId) return { entries: [], commonAncestorId: null };

  const oldPath = new Set<string>();
  for (const entry of tree.getBranchShapes(oldLeafId)) oldPath.add(entry.id);
  const targetPath = tree.getBranchShapes(targetId);
  let commonAncestorId: string | null = null;
  for (let i = targetPath.length - 1; i >= 0; i--) {
    const id = (targetPath[i] as Pick<SessionEntry, 'id'>).id;
    if (oldPath.has(id)) {
      commonAncestorId = id;
      break;
    }
  }

  const entries: SessionEntry[] = [];
  const seen = new Set<string>();
  let current: string | null = oldLeafId;
  // `seen` guards a parent cycle that getBranchShapes cut short and the ancestor is not on.
  while (current && current !== commonAncestorId && !seen.has(current)) {
    seen.add(current);
    const entry = tree.getEntry(current);
    if (!entry) break;
    entries.push(entry);
    current = entry.parentId;
  }
  entries.reverse();
  return { entries, commonAncestorId };
}

export interface NavigationPlan {
  /** Where the leaf goes: null means resetLeaf() (the next append is a new root). */
  newLeafId: string | null;
  /** The text that prefills the editor, for user messages and custom_message entries only. */
  editorText?: string;
}

/**
 * The leaf move for selecting `target`: a user message or a custom_message is re-asked, so the
 * leaf goes to its parent and its text prefills the editor; anything else becomes the leaf itself.
 */
export function planNavigation(target: SessionEntry): NavigationPlan {
  const editorText = editorTextOf(target);
  if (editorText === undefined) return { newLeafId: target.id };
  return { newLeafId: target.parentId ?? null, editorText };
}

export interface ForkableUserMessage {
  entryId: string;
  text: string;
}

/** Every user message with non-empty text, in file order across all branches (the /branch list). */
export function getUserMessagesForForking(entries: readonly SessionEntry[]): ForkableUserMessage[] {
  const result: ForkableUserMessage[] = [];
  for (const entry of entries) {
    if (entry.type !== 'message') continue;
    const text = userMessageText(entry.message);
    if (text) result.push({ entryId: entry.id, text });
  }
  return result;
}
