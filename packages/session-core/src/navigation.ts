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
  /** An entry's id and parent from the index alone, without reading it back from the file. */
  getShape(id: string): Pick<SessionEntry, 'id' | 'parentId'> | undefined;
  getEntry(id: string): SessionEntry | undefined;
}

export interface BranchSummaryIds {
  /** The abandoned entries' ids, chronological: below the common ancestor, down to the old leaf. */
  ids: string[];
  /** Deepest entry on both the old path and the target path; null when they share none. */
  commonAncestorId: string | null;
}

export interface BranchSummaryCollection {
  /** The abandoned entries, chronological: below the common ancestor, down to the old leaf. */
  entries: SessionEntry[];
  /** Deepest entry on both the old path and the target path; null when they share none. */
  commonAncestorId: string | null;
}

/**
 * The ids of the entries a navigation from `oldLeafId` to `targetId` abandons: every entry on the
 * old path strictly below the deepest common ancestor, down to and including the old leaf, oldest
 * first. All entry types are included and compactions do not stop the walk. Moving to an ancestor
 * leaves the target itself out; moving to a descendant abandons nothing. Only ids and parents are
 * read: a caller reads back the entries it uses (a summary keeps the newest ten thousand of a path
 * that may be the whole of a 1 GB session).
 */
export function collectIdsForBranchSummary(
  tree: NavigationTree,
  oldLeafId: string | null,
  targetId: string,
): BranchSummaryIds {
  if (!oldLeafId) return { ids: [], commonAncestorId: null };

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

  const ids: string[] = [];
  const seen = new Set<string>();
  let current: string | null = oldLeafId;
  // `seen` guards a parent cycle that getBranchShapes cut short and the ancestor is not on.
  while (current && current !== commonAncestorId && !seen.has(current)) {
    seen.add(current);
    const shape = tree.getShape(current);
    if (!shape) break;
    ids.push(current);
    current = shape.parentId;
  }
  ids.reverse();
  return { ids, commonAncestorId };
}

/**
 * The entries of {@link collectIdsForBranchSummary}, read back whole (pi's
 * `collectEntriesForBranchSummary`): what an extension's `session_before_tree` is given.
 */
export function collectEntriesForBranchSummary(
  tree: NavigationTree,
  oldLeafId: string | null,
  targetId: string,
): BranchSummaryCollection {
  const { ids, commonAncestorId } = collectIdsForBranchSummary(tree, oldLeafId, targetId);
  return { entries: entriesOf(tree, ids), commonAncestorId };
}

/** The entries with these ids, in the same order, read back whole. */
export function entriesOf(tree: Pick<NavigationTree, 'getEntry'>, ids: readonly string[]): SessionEntry[] {
  return ids.map((id) => {
    const entry = tree.getEntry(id);
    if (!entry) throw new Error(`internal: entry ${id} is indexed but could not be read back`);
    return entry;
  });
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
