// A normalised projection of a session, so that session-core and the reference package can be compared
// through the API they share (the reference names: getEntries, getTree, getBranch, getLabel, …).
// Ids can be kept as they are (a reader against the writer of the same file) or replaced by the
// entry's position in append order (two writers that ran the same operations with random ids).
import { canonicalJson } from './canonical';

export interface EntryLike {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
}

export interface NodeLike {
  entry: EntryLike;
  children: NodeLike[];
  label?: string;
}

export interface ContextLike {
  messages: unknown[];
  thinkingLevel: string;
  model: { provider: string; modelId: string } | null;
}

/** The part of SessionManager that both implementations share (method syntax keeps parameters bivariant). */
export interface TreeSessionApi {
  appendMessage(message: unknown): string;
  appendThinkingLevelChange(thinkingLevel: string): string;
  appendModelChange(provider: string, modelId: string): string;
  appendCompaction(
    summary: string,
    firstKeptEntryId: string,
    tokensBefore: number,
    details?: unknown,
    fromHook?: boolean,
  ): string;
  appendCustomEntry(customType: string, data?: unknown): string;
  appendCustomMessageEntry(customType: string, content: unknown, display: boolean, details?: unknown): string;
  appendSessionInfo(name: string): string;
  appendLabelChange(targetId: string, label: string | undefined): string;
  branch(entryId: string): void;
  resetLeaf(): void;
  branchWithSummary(fromId: string | null, summary: string, details?: unknown, fromHook?: boolean): string;
  createBranchedSession(leafId: string): string | undefined;
  newSession(options?: { id?: string; parentSession?: string }): string | undefined;
  getEntries(): EntryLike[];
  getEntry(id: string): EntryLike | undefined;
  getTree(): NodeLike[];
  getLeafId(): string | null;
  getBranch(fromId?: string): EntryLike[];
  getLabel(id: string): string | undefined;
  getChildren(parentId: string): EntryLike[];
  getHeader(): unknown;
  getSessionName(): string | undefined;
  buildSessionContext(): ContextLike;
}

/** How ids are written in a projection. */
export type IdMapper = (id: string) => string;

export const exactIds: IdMapper = (id) => id;

/**
 * Replaces each id by `#<position in getEntries()>`. Ids that name no entry (the parent of an entry that
 * followed a label dropped by createBranchedSession, a compaction's missing firstKeptEntryId) become
 * `?<n>` in order of first appearance, so two sessions built the same way map them alike.
 */
export function positionalIds(session: Pick<TreeSessionApi, 'getEntries'>): IdMapper {
  const positions = new Map<string, number>();
  session.getEntries().forEach((entry, index) => {
    if (!positions.has(entry.id)) positions.set(entry.id, index);
  });
  const unknown = new Map<string, number>();
  return (id) => {
    const position = positions.get(id);
    if (position !== undefined) return `#${position}`;
    let n = unknown.get(id);
    if (n === undefined) {
      n = unknown.size;
      unknown.set(id, n);
    }
    return `?${n}`;
  };
}

function mapOptionalId(value: unknown, mapId: IdMapper): unknown {
  return typeof value === 'string' ? mapId(value) : value;
}

/** An entry as written to the file, with every field that holds an entry id passed through `mapId`. */
export function projectEntry(entry: EntryLike, mapId: IdMapper): string {
  const plain: Record<string, unknown> = { ...entry };
  plain.id = mapId(entry.id);
  plain.parentId = mapOptionalId(plain.parentId, mapId);
  if (plain.type === 'label' || plain.type === 'context_edit')
    plain.targetId = mapOptionalId(plain.targetId, mapId);
  if (plain.type === 'compaction') plain.firstKeptEntryId = mapOptionalId(plain.firstKeptEntryId, mapId);
  if (plain.type === 'branch_summary' && plain.fromId !== 'root') {
    plain.fromId = mapOptionalId(plain.fromId, mapId);
  }
  return canonicalJson(plain);
}

/**
 * A context as the model would see it; a branch summary's fromId is an entry id and is mapped. With
 * `withModel` false the pi-shaped `model` is left out (the reference cannot read oh-my-pi model_change).
 */
export function projectContext(context: ContextLike, mapId: IdMapper, withModel = true): string {
  const messages = (context.messages as Record<string, unknown>[]).map((message) => {
    if (message.role === 'branchSummary' && message.fromId !== 'root') {
      return { ...message, fromId: mapOptionalId(message.fromId, mapId) };
    }
    return message;
  });
  return canonicalJson({
    messages,
    thinkingLevel: context.thinkingLevel,
    ...(withModel ? { model: context.model } : {}),
  });
}

export interface FlatNode {
  id: string;
  parentId: string | null;
  label: string | null;
  children: string[];
}

/**
 * The tree of `getTree()` flattened in pre-order: each node with its parent, resolved label and ordered
 * child ids, which pins down the nested structure exactly. Iterative, so 200,000-deep chains are fine.
 */
export function projectTree(roots: NodeLike[], mapId: IdMapper): { roots: string[]; nodes: FlatNode[] } {
  const nodes: FlatNode[] = [];
  const stack: NodeLike[] = [...roots].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as NodeLike;
    const parentId = node.entry.parentId;
    nodes.push({
      id: mapId(node.entry.id),
      parentId: typeof parentId === 'string' ? mapId(parentId) : null,
      label: node.label ?? null,
      children: node.children.map((child) => mapId(child.entry.id)),
    });
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as NodeLike);
  }
  return { roots: roots.map((root) => mapId(root.entry.id)), nodes };
}

export interface SessionSnapshot {
  /** The display name from session_info entries. */
  name: string | null;
  entries: string[];
  tree: { roots: string[]; nodes: FlatNode[] };
  leafId: string | null;
  /** getLabel of every entry, in append order. */
  labels: (string | null)[];
  /** getChildren (insertion order) of every `childrenStride`-th entry, in append order. */
  children: string[][];
}

/**
 * Everything the tree API reports about a session, without moving its leaf. getChildren is compared at
 * every `childrenStride`-th entry (the reference's getChildren scans every entry, so all of them on a big
 * session is quadratic).
 */
export function snapshot(session: TreeSessionApi, mapId: IdMapper, childrenStride = 1): SessionSnapshot {
  const entries = session.getEntries();
  const leafId = session.getLeafId();
  return {
    name: session.getSessionName() ?? null,
    entries: entries.map((entry) => projectEntry(entry, mapId)),
    tree: projectTree(session.getTree(), mapId),
    leafId: leafId === null ? null : mapId(leafId),
    labels: entries.map((entry) => session.getLabel(entry.id) ?? null),
    children: entries
      .filter((_, index) => index % childrenStride === 0)
      .map((entry) => session.getChildren(entry.id).map((child) => mapId(child.id))),
  };
}

export interface LeafView {
  leaf: string | null;
  path: string[];
  context: string;
}

/**
 * The path and the model context with the leaf at each of `leaves` (null = before the first entry).
 * This moves the session's leaf; callers snapshot first.
 */
export function viewsAt(
  session: TreeSessionApi,
  leaves: (string | null)[],
  mapId: IdMapper,
  withModel = true,
): LeafView[] {
  return leaves.map((leaf) => {
    if (leaf === null) session.resetLeaf();
    else session.branch(leaf);
    return {
      leaf: leaf === null ? null : mapId(leaf),
      path: session.getBranch().map((entry) => mapId(entry.id)),
      context: projectContext(session.buildSessionContext(), mapId, withModel),
    };
  });
}

/**
 * The leaves worth checking: none (null), the given current leaf, every tip of the tree, and, for big
 * sessions, every `stride`-th entry so that interior positions (mid-compaction paths) are covered too.
 */
export function leavesToCheck(
  session: TreeSessionApi,
  currentLeaf: string | null,
  stride = 1,
): (string | null)[] {
  const entries = session.getEntries();
  const hasChild = new Set<string>();
  for (const entry of entries) if (entry.parentId !== null) hasChild.add(entry.parentId);
  const leaves = new Set<string | null>([null, currentLeaf]);
  entries.forEach((entry, index) => {
    if (!hasChild.has(entry.id) || index % stride === 0) leaves.add(entry.id);
  });
  return [...leaves];
}
