import type { SkeletonNode } from '@canopy/protocol';
import {
  ToolCallIndex,
  toViewEntries,
  viewFlagsToRecord,
  type SessionEntry,
  type SessionManager,
} from '@canopy/session-core';

/**
 * Skeleton nodes for a batch of entries: labels as `labelOf` resolves them now, tool results
 * looked up in `toolCalls` after the batch's own calls are added to it. Each node has exactly the
 * keys of the protocol's `SkeletonNode`, so `JSON.stringify` writes what the route schema would.
 */
export function buildSkeletonNodes(
  entries: readonly SessionEntry[],
  labelOf: (id: string) => string | undefined,
  toolCalls: ToolCallIndex,
  home: string,
): SkeletonNode[] {
  const views = toViewEntries(entries, labelOf, { home, toolCalls });
  const nodes = new Array<SkeletonNode>(views.length);
  for (let i = 0; i < views.length; i++) {
    const view = views[i]!;
    const node: SkeletonNode = {
      id: view.id,
      parentId: view.parentId,
      type: view.type,
      timestamp: view.timestamp,
      text: view.text,
      search: view.search,
      flags: viewFlagsToRecord(view.flags) as Record<string, boolean>,
    };
    if (view.role !== undefined) node.role = view.role;
    if (view.label !== undefined) node.label = view.label;
    const usage = usageOf(entries[i]!);
    if (usage) node.usage = usage;
    nodes[i] = node;
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
export function usageOf(entry: SessionEntry): SkeletonNode['usage'] {
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

/**
 * The skeleton of one open session, kept between snapshot requests: building it costs about as
 * much as a quarter of loading the file, and serializing it as much again, on every open of a
 * large session. It follows the manager it was built from by entry count (the entry list only
 * grows), so appends from any code path are picked up on the next read without hooks:
 *
 * - appended entries are rendered as one batch and their JSON appended to the cached text;
 * - a label entry re-renders its target's node (the label is the only field a later entry changes);
 * - a tool result rendered before any entry held its call (a malformed or reordered file) is
 *   re-rendered when the call arrives, so the cache always equals a fresh build.
 *
 * A different manager (the file was reloaded) rebuilds from scratch.
 */
export class SkeletonCache {
  private sm: SessionManager | undefined;
  private nodes: SkeletonNode[] = [];
  private toolCalls = new ToolCallIndex();
  /** Position of every entry id in file order (ids in the entry list are unique). */
  private positions = new Map<string, number>();
  /** Tool call id → positions of results rendered without their call. */
  private waitingForCall = new Map<string, number[]>();
  /** The nodes' JSON without the brackets, or undefined after a re-render. */
  private body: string | undefined;

  constructor(private readonly home: string) {}

  /** Every entry's node, in file order, brought up to date with `sm`. */
  nodesOf(sm: SessionManager): readonly SkeletonNode[] {
    this.update(sm);
    return this.nodes;
  }

  /** `JSON.stringify(nodesOf(sm))`, built once and then extended on appends. */
  jsonOf(sm: SessionManager): string {
    this.update(sm);
    if (this.body === undefined) {
      const json = JSON.stringify(this.nodes);
      this.body = json.slice(1, -1);
    }
    return `[${this.body}]`;
  }

  /** Drops everything (the session was closed or reloaded). */
  clear(): void {
    this.sm = undefined;
    this.nodes = [];
    this.toolCalls = new ToolCallIndex();
    this.positions = new Map();
    this.waitingForCall = new Map();
    this.body = undefined;
  }

  private update(sm: SessionManager): void {
    const entries = sm.getEntries();
    if (sm !== this.sm || entries.length < this.nodes.length) {
      this.clear();
      this.sm = sm;
    }
    const from = this.nodes.length;
    if (entries.length === from) return;
    const added = entries.slice(from);
    const labelOf = (id: string) => sm.getLabel(id);
    const callsBefore = this.toolCalls.size;
    const fresh = buildSkeletonNodes(added, labelOf, this.toolCalls, this.home);

    const rerender = new Set<number>();
    if (this.toolCalls.size > callsBefore && this.waitingForCall.size > 0) {
      for (const [callId, waiting] of this.waitingForCall) {
        if (this.toolCalls.get(callId) === undefined) continue;
        for (const position of waiting) rerender.add(position);
        this.waitingForCall.delete(callId);
      }
    }
    for (let i = 0; i < added.length; i++) {
      const entry = added[i]!;
      const position = from + i;
      this.positions.set(entry.id, position);
      this.nodes.push(fresh[i]!);
      const callId = toolResultCallId(entry);
      if (callId !== undefined && this.toolCalls.get(callId) === undefined) {
        const waiting = this.waitingForCall.get(callId);
        if (waiting) waiting.push(position);
        else this.waitingForCall.set(callId, [position]);
      }
      if (from > 0 && entry.type === 'label' && typeof entry.targetId === 'string') {
        const target = this.positions.get(entry.targetId);
        if (target !== undefined && target < from) rerender.add(target);
      }
    }

    if (rerender.size > 0) {
      const positions = [...rerender];
      const nodes = buildSkeletonNodes(
        positions.map((position) => entries[position]!),
        labelOf,
        this.toolCalls,
        this.home,
      );
      for (let i = 0; i < positions.length; i++) this.nodes[positions[i]!] = nodes[i]!;
      this.body = undefined;
    } else if (this.body !== undefined) {
      // A rope concatenation: the large cached text is not copied until it is written out.
      const json = JSON.stringify(fresh);
      this.body = this.body === '' ? json.slice(1, -1) : `${this.body},${json.slice(1, -1)}`;
    }
  }
}
