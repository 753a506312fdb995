// A selection of entries from anywhere in the tree, made ready to be read as one conversation: tool
// calls kept with their results, the entries ordered branch by branch, and where each branch starts
// or a gap lies said in words (docs/summaries.md#selections). A selection summary and a bring-back
// (docs/bring-back.md) read a selection the same way.

import type { SessionManager } from './session-manager';
import type { SessionEntry } from './types';

export interface OrderedSelection {
  /** Branch by branch, each chronological: depth-first over the tree, older children first. */
  ids: string[];
  /** The selected entry written last in the file. */
  newestId: string;
}

/**
 * Orders selected entries (known ids, at least one) from anywhere in the tree: a depth-first walk
 * with older children first gives each branch's entries oldest first, the shared part before the
 * branches, and one branch after another. The walk goes over the tree's shape (ids from the index)
 * and reads no entry back from the file.
 */
export function orderSelectedIds(sm: SessionManager, entryIds: readonly string[]): OrderedSelection {
  const wanted = new Set(entryIds);
  // The line an entry was read from is its file order.
  const lineOf = (id: string) => sm.getLine(id) ?? 0;
  const byFileOrder = (a: string, b: string) => lineOf(a) - lineOf(b);
  const childIds = (parentId: string | null) =>
    sm
      .getChildShapes(parentId)
      .map((child) => child.id)
      .sort(byFileOrder);

  const ids: string[] = [];
  // An explicit stack: sessions can be tens of thousands of entries deep.
  const stack = childIds(null).reverse();
  while (stack.length > 0 && ids.length < wanted.size) {
    const id = stack.pop() as string;
    if (wanted.has(id)) ids.push(id);
    const children = childIds(id);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as string);
  }
  // Entries whose parent is missing from a damaged file hang from no root: they go last.
  if (ids.length < wanted.size) {
    const reached = new Set(ids);
    ids.push(...[...wanted].filter((id) => !reached.has(id)).sort(byFileOrder));
  }

  let newestId = ids[0] as string;
  for (const id of ids) {
    if (lineOf(id) > lineOf(newestId)) newestId = id;
  }
  return { ids, newestId };
}

/** How far a pairing walk goes from a selected entry to its tool call or results. */
const PAIR_WALK_LIMIT = 64;

function messageOf(entry: SessionEntry | undefined): Record<string, unknown> | undefined {
  if (entry?.type !== 'message') return undefined;
  const message = (entry as { message?: unknown }).message;
  return typeof message === 'object' && message !== null ? (message as Record<string, unknown>) : undefined;
}

function toolCallIdsOf(message: Record<string, unknown> | undefined): Set<string> {
  const ids = new Set<string>();
  if (message?.role !== 'assistant' || !Array.isArray(message.content)) return ids;
  for (const block of message.content as unknown[]) {
    const b = block as { type?: unknown; id?: unknown } | null;
    if (b?.type === 'toolCall' && typeof b.id === 'string') ids.add(b.id);
  }
  return ids;
}

export interface PairedSelection {
  ids: string[];
  addedCalls: number;
  addedResults: number;
}

/**
 * A selection that keeps its meaning: a selected tool result brings its call (the assistant entry
 * that made it, above it on its branch), and a selected call brings its results (below it), so the
 * summary sees what was done and its file lists name what was written.
 */
export function pairToolCalls(sm: SessionManager, entryIds: readonly string[]): PairedSelection {
  const chosen = new Set(entryIds);
  let addedCalls = 0;
  let addedResults = 0;
  for (const id of entryIds) {
    const message = messageOf(sm.getEntry(id));
    if (message?.role === 'toolResult' && typeof message.toolCallId === 'string') {
      let parentId = sm.getShape(id)?.parentId ?? null;
      for (let steps = 0; parentId !== null && steps < PAIR_WALK_LIMIT; steps++) {
        const parent = messageOf(sm.getEntry(parentId));
        if (toolCallIdsOf(parent).has(message.toolCallId)) {
          if (!chosen.has(parentId)) {
            chosen.add(parentId);
            addedCalls++;
          }
          break;
        }
        if (parent?.role !== 'toolResult') break;
        parentId = sm.getShape(parentId)?.parentId ?? null;
      }
    }
    const callIds = toolCallIdsOf(message);
    if (callIds.size === 0) continue;
    // The results follow their call: walk down through tool results only.
    const queue = sm.getChildShapes(id).map((child) => child.id);
    for (let steps = 0; queue.length > 0 && steps < PAIR_WALK_LIMIT; steps++) {
      const childId = queue.shift() as string;
      const child = messageOf(sm.getEntry(childId));
      if (child?.role !== 'toolResult') continue;
      if (typeof child.toolCallId === 'string' && callIds.has(child.toolCallId) && !chosen.has(childId)) {
        chosen.add(childId);
        addedResults++;
      }
      queue.push(...sm.getChildShapes(childId).map((next) => next.id));
    }
  }
  return { ids: [...chosen], addedCalls, addedResults };
}

/** How far the shape walk looks for the selected entry above another (a gap) before calling it another branch. */
const ANCESTOR_WALK_LIMIT = 200_000;

export interface SelectionLayout {
  /** Lines put before an entry's message in the conversation sent (branch boundaries and gaps). */
  marks: Map<string, string>;
  branches: number;
  gaps: number;
  onCurrentPath: boolean;
  /** The preamble of the written summary, saying where the summarised entries are. */
  preamble: string;
}

/**
 * Where the selected entries (in summary order: branch by branch, each chronological) lie: which
 * one starts another branch and how many unselected entries lie between two on the same branch,
 * said in words the model can use, and a preamble that fits the selection (on the current path,
 * off it, or both).
 */
export function selectionLayout(sm: SessionManager, orderedIds: readonly string[]): SelectionLayout {
  const selected = new Set(orderedIds);
  const starts: Array<{ id: string; gap: number | null }> = [];
  let previous: string | undefined;
  let gaps = 0;
  for (const id of orderedIds) {
    // The nearest selected ancestor and the unselected entries between it and this one.
    let between = 0;
    let ancestor: string | null = null;
    let parentId = sm.getShape(id)?.parentId ?? null;
    for (let steps = 0; parentId !== null && steps < ANCESTOR_WALK_LIMIT; steps++) {
      if (selected.has(parentId)) {
        ancestor = parentId;
        break;
      }
      between++;
      parentId = sm.getShape(parentId)?.parentId ?? null;
    }
    if (previous === undefined || ancestor !== previous) starts.push({ id, gap: null });
    else if (between > 0) {
      starts.push({ id, gap: between });
      gaps++;
    }
    previous = id;
  }
  const branchStarts = starts.filter((start) => start.gap === null);
  const branches = branchStarts.length;
  const marks = new Map<string, string>();
  let branch = 0;
  for (const start of starts) {
    if (start.gap !== null) {
      marks.set(
        start.id,
        `[Selection: ${start.gap.toLocaleString('en')} unselected ${start.gap === 1 ? 'entry lies' : 'entries lie'} here, between the entries above and below]`,
      );
      continue;
    }
    branch++;
    if (branches === 1) continue;
    marks.set(
      start.id,
      branch === 1
        ? `[Selection: branch 1 of ${branches} of the conversation]`
        : `[Selection: branch ${branch} of ${branches}; it does not continue from the entries above, it branches off earlier in the conversation]`,
    );
  }
  const onPath = new Set(sm.getBranchShapes(sm.getLeafId()).map((shape) => shape.id));
  const inside = orderedIds.filter((id) => onPath.has(id)).length;
  const onCurrentPath = inside === orderedIds.length;
  const where = onCurrentPath
    ? 'of the conversation leading here'
    : inside === 0
      ? 'from other branches of this conversation, not on the path leading here'
      : 'from the path leading here and from other branches of this conversation';
  return {
    marks,
    branches,
    gaps,
    onCurrentPath,
    preamble: `The user selected entries ${where} to be summarized.\nSummary of the selected entries:\n\n`,
  };
}
