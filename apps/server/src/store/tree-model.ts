import { encodeNodes, type TreeNode, type UsageNumbers } from '@canopy/protocol';
import { ToolCallIndex, toViewEntries, type SessionEntry, type SessionManager } from '@canopy/session-core';

/** Nodes per snapshot chunk: small enough that the first screen of rows arrives early. */
export const CHUNK_NODES = 4096;

/**
 * Tree nodes for a batch of entries: labels as `labelOf` resolves them now, tool results looked up
 * in `toolCalls` after the batch's own calls are added to it.
 */
export function treeNodesOf(
  entries: readonly SessionEntry[],
  labelOf: (id: string) => string | undefined,
  toolCalls: ToolCallIndex,
  home: string,
): TreeNode[] {
  const nodes: TreeNode[] = toViewEntries(entries, labelOf, { home, toolCalls });
  for (let i = 0; i < nodes.length; i++) {
    const usage = usageOf(entries[i]!);
    if (usage) nodes[i]!.usage = usage;
  }
  return nodes;
}

/**
 * The usage an entry adds to the totals, as oh-my-pi counts it (`entryUsage` in its
 * session-manager.ts): an assistant message's, a model_usage side call's, and the `details.usage` of
 * a `task` tool result (a subagent's run).
 */
function rawUsageOf(entry: SessionEntry): unknown {
  if (entry.type === 'model_usage') return entry.usage;
  if (entry.type !== 'message') return undefined;
  const message = entry.message as { role?: unknown; usage?: unknown; toolName?: unknown; details?: unknown };
  if (message?.role === 'assistant') return message.usage;
  if (
    message?.role === 'toolResult' &&
    message.toolName === 'task' &&
    message.details &&
    typeof message.details === 'object'
  )
    return (message.details as { usage?: unknown }).usage;
  return undefined;
}

/** Token and cost numbers of an entry that used a model (see {@link rawUsageOf}). */
export function usageOf(entry: SessionEntry): UsageNumbers | undefined {
  const raw = rawUsageOf(entry);
  if (!raw || typeof raw !== 'object') return undefined;
  const usage = raw as Record<string, unknown>;
  const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  const cost = usage.cost && typeof usage.cost === 'object' ? (usage.cost as Record<string, unknown>) : {};
  return {
    input: num(usage.input),
    output: num(usage.output),
    cacheRead: num(usage.cacheRead),
    cacheWrite: num(usage.cacheWrite),
    totalTokens: num(usage.totalTokens),
    cost: num(cost.total),
  };
}

/** The tool call id of a tool result message, if the entry is one. */
function toolResultCallId(entry: SessionEntry): string | undefined {
  if (entry.type !== 'message') return undefined;
  const message = entry.message as { role?: unknown; toolCallId?: unknown } | undefined;
  return message?.role === 'toolResult' && typeof message.toolCallId === 'string'
    ? message.toolCallId
    : undefined;
}

/** What one change did to the nodes: appended ones, and earlier ones whose row is now different. */
export interface TreeDelta {
  /** The entries appended, in file order (their nodes are `added`). */
  entries: SessionEntry[];
  added: TreeNode[];
  changed: TreeNode[];
}

/**
 * The tree of one open session as the browser holds it: every entry's node in file order, kept in
 * step with the session's manager. Every change (a tailed append, Canopy's own write) calls
 * {@link sync}, which renders only the new entries and answers what changed, so the change event
 * and the next snapshot come from the same nodes:
 *
 * - appended entries are rendered as one batch;
 * - a label entry re-renders its target's node (the label is the only field a later entry changes);
 * - a tool result rendered before any entry held its call (a malformed or reordered file) is
 *   re-rendered when the call arrives, so the model always equals a fresh build of the file.
 *
 * The entries arrive through {@link receive}, which the manager's `onEntries` calls with each new
 * entry in full exactly once, so the model never asks the manager for its whole entry list (a
 * session kept as an index would read the whole file back for that). The snapshot is sent in chunks
 * of {@link CHUNK_NODES} nodes; each chunk's JSON is kept until a node in it changes, so a repeat
 * snapshot of a large session costs no serialization. A batch from position 0 (a load, a reload, a
 * switch to another file) rebuilds from scratch.
 */
export class TreeModel {
  private sm: SessionManager | undefined;
  private nodes: TreeNode[] = [];
  private toolCalls = new ToolCallIndex();
  /** Position of every entry id in file order (ids in the entry list are unique). */
  private positions = new Map<string, number>();
  /** Tool call id → positions of results rendered without their call. */
  private waitingForCall = new Map<string, number[]>();
  /** Chunk k's `NodeColumns` JSON, or undefined until (re)built. */
  private chunkJson: Array<string | undefined> = [];
  /** Entries received since the last sync, and whether they start over from position 0. */
  private pending: SessionEntry[] = [];
  private startsOver = false;

  constructor(private readonly home: string) {}

  /** Every entry's node, in file order, as of the last {@link sync}. */
  get all(): readonly TreeNode[] {
    return this.nodes;
  }

  /**
   * Takes new entries from the manager's `onEntries`: `firstIndex` is their position in file order.
   * Position 0 starts a whole new state; anything else must follow what was received before.
   */
  receive(entries: readonly SessionEntry[], firstIndex: number): void {
    if (firstIndex === 0) {
      this.startsOver = true;
      this.pending = [...entries];
      return;
    }
    const expected = (this.startsOver ? 0 : this.nodes.length) + this.pending.length;
    if (firstIndex !== expected) {
      throw new Error(`internal: tree model received entries at ${firstIndex}, expected ${expected}`);
    }
    for (const entry of entries) this.pending.push(entry);
  }

  /** Drops everything (the session was closed). */
  clear(): void {
    this.pending = [];
    this.startsOver = false;
    this.dropNodes();
  }

  private dropNodes(): void {
    this.sm = undefined;
    this.nodes = [];
    this.toolCalls = new ToolCallIndex();
    this.positions = new Map();
    this.waitingForCall = new Map();
    this.chunkJson = [];
  }

  /**
   * Renders the entries received since the last call (`sm` is the manager they came from; labels
   * and re-rendered entries are looked up in it) and answers what changed. A new state (a load,
   * reload or switch to another file) is built whole; its nodes count as added. A different manager
   * that announced nothing (an empty file) leaves no nodes.
   */
  sync(sm: SessionManager): TreeDelta {
    if (this.startsOver || sm !== this.sm) {
      this.dropNodes();
      this.sm = sm;
      this.startsOver = false;
    }
    const appended = this.pending;
    this.pending = [];
    const from = this.nodes.length;
    if (appended.length === 0) return { entries: [], added: [], changed: [] };
    const labelOf = (id: string) => sm.getLabel(id);
    const callsBefore = this.toolCalls.size;
    const added = treeNodesOf(appended, labelOf, this.toolCalls, this.home);

    const rerender = new Set<number>();
    if (this.toolCalls.size > callsBefore && this.waitingForCall.size > 0) {
      for (const [callId, waiting] of this.waitingForCall) {
        if (this.toolCalls.get(callId) === undefined) continue;
        for (const position of waiting) if (position < from) rerender.add(position);
        this.waitingForCall.delete(callId);
      }
    }
    for (let i = 0; i < appended.length; i++) {
      const entry = appended[i]!;
      const position = from + i;
      this.positions.set(entry.id, position);
      this.nodes.push(added[i]!);
      const callId = toolResultCallId(entry);
      if (callId !== undefined && this.toolCalls.get(callId) === undefined) {
        const waiting = this.waitingForCall.get(callId);
        if (waiting) waiting.push(position);
        else this.waitingForCall.set(callId, [position]);
      }
      if (entry.type === 'label' && typeof entry.targetId === 'string') {
        const target = this.positions.get(entry.targetId);
        if (target !== undefined && target < from) rerender.add(target);
      }
    }
    // The chunk holding the first appended node was full or is now longer.
    this.chunkJson.length = Math.floor(from / CHUNK_NODES);

    const changed: TreeNode[] = [];
    if (rerender.size > 0) {
      const positions = [...rerender].sort((a, b) => a - b);
      // Read back by id: only these few entries, never the whole list.
      const nodes = treeNodesOf(
        positions.map((position) => entryAt(sm, this.nodes[position]!.id)),
        labelOf,
        this.toolCalls,
        this.home,
      );
      for (let i = 0; i < positions.length; i++) {
        const position = positions[i]!;
        this.nodes[position] = nodes[i]!;
        this.chunkJson[Math.floor(position / CHUNK_NODES)] = undefined;
        changed.push(nodes[i]!);
      }
    }
    return { entries: appended, added, changed };
  }

  /** Every node as `NodeColumns` JSON lines of {@link CHUNK_NODES} nodes each, in file order. */
  chunks(): string[] {
    const count = Math.ceil(this.nodes.length / CHUNK_NODES);
    const chunks = new Array<string>(count);
    for (let k = 0; k < count; k++) {
      let json = this.chunkJson[k];
      if (json === undefined) {
        json = JSON.stringify(encodeNodes(this.nodes.slice(k * CHUNK_NODES, (k + 1) * CHUNK_NODES)));
        this.chunkJson[k] = json;
      }
      chunks[k] = json;
    }
    return chunks;
  }
}

function entryAt(sm: SessionManager, id: string): SessionEntry {
  const entry = sm.getEntry(id);
  if (!entry) throw new Error(`internal: the tree model has a node for ${id}, which the session does not`);
  return entry;
}
