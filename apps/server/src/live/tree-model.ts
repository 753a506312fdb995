import { encodeNodes, type TreeNode } from '@canopy/protocol';
import { syncArchiveFlags } from './archive-flags';
import {
  ArchiveLedger,
  formatToolCall,
  SubagentCallLedger,
  ToolCallIndex,
  toViewEntries,
  usageNumbersOf,
  ViewFlags,
  withArchiveTarget,
  type SessionEntry,
  type SessionManager,
  type ToolCallInfo,
} from '@canopy/session-core';

/**
 * The tool calls of an open session for as long as it is open, keeping of each call only its name
 * and the text its result's row shows (`formatToolCall`, with the session's home): neither a write's
 * file content nor an edit's texts nor even a bash command are held for the session's lifetime, and
 * no assistant message is copied to find them (the result rows are the same as with every argument
 * kept: `rowText` takes a call's `row` when it has one).
 */
export class RowToolCalls extends ToolCallIndex {
  constructor(private readonly home: string) {
    super();
  }

  protected override info(name: string, args: unknown): ToolCallInfo {
    return { name, arguments: undefined, row: formatToolCall(name, args, { home: this.home }) };
  }
}

/** Nodes per snapshot chunk: small enough that the first screen of rows arrives early. */
export const CHUNK_NODES = 4096;

/**
 * Nodes in a snapshot's first chunk: the browser draws its first rows from them, so they come in
 * a line a quarter of the others' size, encoded, sent and decoded sooner.
 */
export const FIRST_CHUNK_NODES = 1024;

/**
 * Tree nodes for a batch of entries: labels as `labelOf` resolves them now, tool results looked up
 * in `toolCalls` after the batch's own calls are added to it, and the usage each entry adds to the
 * totals (session-core's `usageNumbersOf`: every source pi 1.x and oh-my-pi count).
 */
export function treeNodesOf(
  entries: readonly SessionEntry[],
  labelOf: (id: string) => string | undefined,
  toolCalls: ToolCallIndex,
  home: string,
  labelTimeOf?: (id: string) => string | undefined,
): TreeNode[] {
  const nodes: TreeNode[] = toViewEntries(entries, labelOf, { home, toolCalls, labelTimeOf });
  for (let i = 0; i < nodes.length; i++) {
    const usage = usageNumbersOf(entries[i]!);
    if (usage) nodes[i]!.usage = usage;
  }
  return nodes;
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
  added: TreeNode[];
  changed: TreeNode[];
}

/**
 * The tree of one open session as the browser holds it: every entry's node in file order, kept in
 * step with the session's manager. The entries arrive through {@link receive}, which the manager's
 * `onEntries` calls with each new entry in full exactly once; they are rendered there and then, so a
 * load never holds more full entries than one batch, and the model never asks the manager for its
 * whole entry list (a session kept as an index would read the whole file back for that). Every
 * change (a load, a tailed append, Canopy's own write) then calls {@link sync}, which answers what
 * changed since the last one, so the change event and the next snapshot come from the same nodes:
 *
 * - appended entries are added;
 * - a label entry re-renders its target's node (the label is the only field a later entry changes);
 *   the appended nodes get their labels as the manager resolves them at the sync;
 * - a tool result rendered before any entry held its call (a malformed or reordered file) is
 *   re-rendered when the call arrives, so the model always equals a fresh build of the file;
 * - an archive or restore record sets or clears its target's ArchiveTarget flag (session-core
 *   `archive.ts`, docs/archive-and-family.md#archive): one node, whatever the branch's size; the
 *   page's view tree derives which entries are inside archived branches.
 *
 * The snapshot is sent in chunks of {@link CHUNK_NODES} nodes, each encoded only when the response
 * asks for it (see {@link snapshot}) and dropped once sent: no JSON of the whole tree is ever held.
 * A batch from position 0 (a load, a reload, a switch to another file) starts over.
 */
export class TreeModel {
  private sm: SessionManager | undefined;
  private nodes: TreeNode[] = [];
  private toolCalls: ToolCallIndex;
  /**
   * Targets of the labels received since the last sync: their nodes are rendered again at the sync
   * if they were sent before it (found by the manager's position of the id, which is the node's).
   */
  private labelTargets: string[] = [];
  /** The latest archive record per target, fed every entry once (docs/archive-and-family.md#archive). */
  private archive = new ArchiveLedger();
  /** Targets of the archive records received since the last sync: their flags are set at the sync. */
  private archiveTargets: string[] = [];
  /**
   * The session's `task` calls and results, fed every entry once: where its subagents were started
   * (docs/archive-and-family.md#subagent-lanes), a few strings per call, never read from the file again.
   */
  private subagents = new SubagentCallLedger();
  /** Tool call id → positions of results rendered without their call. */
  private waitingForCall = new Map<string, number[]>();
  /** The node count at the last sync: nodes from here on are the next sync's `added`. */
  private syncedCount = 0;
  /** Positions to render again at the next sync (a label or a tool call arrived for them). */
  private stale = new Set<number>();
  /** A batch from position 0 arrived since the last sync. */
  private startsOver = false;
  /** The last {@link snapshot}, until the nodes change (receive, sync, clear). */
  private frozen: readonly TreeNode[] | undefined;

  constructor(private readonly home: string) {
    this.toolCalls = new RowToolCalls(home);
  }

  /** The session's archive records, latest per target (docs/archive-and-family.md#archive). */
  get archiveLedger(): ArchiveLedger {
    return this.archive;
  }

  /** The session's subagent call sites (docs/archive-and-family.md#subagent-lanes). */
  get subagentCalls(): SubagentCallLedger {
    return this.subagents;
  }

  /** Every node, in file order, as of the last {@link sync}. */
  get all(): readonly TreeNode[] {
    return this.nodes;
  }

  /**
   * Renders new entries from the manager's `onEntries`: `firstIndex` is their position in file
   * order. Position 0 starts a whole new state; anything else must follow what was received before.
   */
  receive(entries: readonly SessionEntry[], firstIndex: number): void {
    this.frozen = undefined;
    if (firstIndex === 0) {
      this.clear();
      this.startsOver = true;
    } else if (firstIndex !== this.nodes.length) {
      throw new Error(
        `internal: tree model received entries at ${firstIndex}, expected ${this.nodes.length}`,
      );
    }
    const from = this.nodes.length;
    const callsBefore = this.toolCalls.size;
    // Labels are put on at the sync, as the manager resolves them then.
    const added = treeNodesOf(entries, () => undefined, this.toolCalls, this.home);
    if (this.toolCalls.size > callsBefore && this.waitingForCall.size > 0) {
      for (const [callId, waiting] of this.waitingForCall) {
        if (this.toolCalls.get(callId) === undefined) continue;
        for (const position of waiting) this.stale.add(position);
        this.waitingForCall.delete(callId);
      }
    }
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      const position = from + i;
      this.nodes.push(added[i]!);
      const callId = toolResultCallId(entry);
      if (callId !== undefined && this.toolCalls.get(callId) === undefined) {
        const waiting = this.waitingForCall.get(callId);
        if (waiting) waiting.push(position);
        else this.waitingForCall.set(callId, [position]);
      }
      if (entry.type === 'label' && typeof entry.targetId === 'string')
        this.labelTargets.push(entry.targetId);
      const record = this.archive.add(entry);
      if (record) this.archiveTargets.push(record.targetId);
      this.subagents.add(entry);
    }
  }

  /** Drops everything (the session was closed, or a new state starts). */
  clear(): void {
    this.frozen = undefined;
    this.sm = undefined;
    this.nodes = [];
    this.toolCalls = new RowToolCalls(this.home);
    this.labelTargets = [];
    this.archive = new ArchiveLedger();
    this.archiveTargets = [];
    this.subagents = new SubagentCallLedger();
    this.waitingForCall = new Map();
    this.syncedCount = 0;
    this.stale = new Set();
    this.startsOver = false;
  }

  /**
   * Answers what changed since the last call: the nodes received since (with their labels as `sm`
   * resolves them) and earlier nodes rendered again. A different manager that announced nothing (a
   * reload of an empty file) leaves no nodes.
   */
  sync(sm: SessionManager): TreeDelta {
    this.frozen = undefined;
    if (!this.startsOver && sm !== this.sm) this.clear();
    this.sm = sm;
    this.startsOver = false;
    const from = this.syncedCount;
    for (const targetId of this.labelTargets) {
      const target = sm.getPosition(targetId);
      if (target !== undefined && target < from) this.stale.add(target);
    }
    this.labelTargets = [];
    const labelOf = (id: string) => sm.getLabel(id);
    for (let position = from; position < this.nodes.length; position++) {
      const node = this.nodes[position]!;
      const label = labelOf(node.id);
      if (label) {
        node.label = label;
        const labelTime = sm.getLabelTimestamp(node.id);
        if (labelTime) node.labelTime = labelTime;
      }
    }
    const changed = new Map<number, TreeNode>();
    if (this.stale.size > 0) {
      const positions = [...this.stale].sort((a, b) => a - b);
      // Read back by id: only these few entries, never the whole list.
      const nodes = treeNodesOf(
        positions.map((position) => entryAt(sm, this.nodes[position]!.id)),
        labelOf,
        this.toolCalls,
        this.home,
        (id) => sm.getLabelTimestamp(id),
      );
      for (let i = 0; i < positions.length; i++) {
        const position = positions[i]!;
        // A re-render keeps the archive flag the node had.
        nodes[i]!.flags = withArchiveTarget(
          nodes[i]!.flags,
          (this.nodes[position]!.flags & ViewFlags.ArchiveTarget) !== 0,
        );
        this.nodes[position] = nodes[i]!;
        if (position < from) changed.set(position, nodes[i]!);
      }
      this.stale = new Set();
    }
    if (this.archive.size > 0) {
      syncArchiveFlags(this.nodes, sm, from, changed, this.archive, this.archiveTargets);
      this.archiveTargets = [];
    }
    this.syncedCount = this.nodes.length;
    // In file order, whichever step changed them.
    const inOrder = [...changed].sort((a, b) => a[0] - b[0]).map(([, node]) => node);
    return { added: this.nodes.slice(from), changed: inOrder };
  }

  /**
   * The nodes as of the last {@link sync}, fixed for one snapshot: a later change replaces nodes in
   * the model (a re-render is a new object, a reload a new list) and never alters these, so a
   * snapshot still being sent stays the state its head describes. Copies references only.
   */
  snapshot(): readonly TreeNode[] {
    // Shared by every snapshot taken until the next change (40 browsers opening one 150k-entry
    // session held 40 copies of the same 1.2 MB of references).
    this.frozen ??= this.nodes.slice(0, this.syncedCount);
    return this.frozen;
  }
}

/**
 * `nodes` as `NodeColumns` JSON lines of {@link CHUNK_NODES} nodes each (the first of `firstChunk`),
 * in order, each encoded when the consumer asks for the next one: a response streams the first
 * rows while the rest is encoded, and holds one chunk's JSON at a time. `as` turns each line into
 * what is yielded (the response: its bytes, so that the string is not kept while they wait).
 */
export function* nodeChunkLines<T = string>(
  nodes: readonly TreeNode[],
  firstChunk: number = CHUNK_NODES,
  as: (json: string) => T = (json) => json as T,
): Generator<T> {
  for (let start = 0, size = firstChunk; start < nodes.length; start += size, size = CHUNK_NODES) {
    yield as(JSON.stringify(encodeNodes(nodes.slice(start, start + size))));
  }
}

function entryAt(sm: SessionManager, id: string): SessionEntry {
  const entry = sm.getEntry(id);
  if (!entry) throw new Error(`internal: the tree model has a node for ${id}, which the session does not`);
  return entry;
}
