// Where an oh-my-pi subagent was started in its parent (docs/archive-and-family.md#subagent-lanes):
// the parent's assistant entry whose `task` tool call ran it, found from the parent's entries.
// The subagent's transcript is `<parent folder>/<id>.jsonl`, `id` being the task's id (the name the
// model gave the task item, made unique per session: `Anna`, `Anna-2`; a nested subagent's id is its
// parent's id and its own joined by a dot, `Anna.Bob`). The parent holds the call
// `{type: "toolCall", id, name: "task", arguments: {name?, agent, task} | {context, tasks: [...]}}`
// and, once the subagent ended, a tool result `{role: "toolResult", toolCallId, toolName: "task",
// details: {results: [{id, ...}]}}` (older releases: `taskId`). A ledger keeps only those facts,
// a few strings per task call, so an open session can hold one for as long as it is open.

import { isRecord } from './text';
import type { SessionEntry } from './types';

/** The subagent tool's name in oh-my-pi. */
export const TASK_TOOL_NAME = 'task';

/** Which fact placed a subagent at its call site, strongest first. */
export type SubagentCallRule = 'result' | 'call' | 'time';

export interface SubagentCallSite {
  /** The parent's assistant entry holding the `task` tool call. */
  entryId: string;
  /** The tool call's id (a block of that entry). */
  toolCallId: string;
  rule: SubagentCallRule;
}

/** A subagent looked for: its file's stem (`AuthScan`, `Anna.Bob`) and when it started. */
export interface WantedSubagent {
  stem: string;
  /** The subagent file's header (or first entry) time, ISO; for the time rule. */
  startedAt?: string;
}

interface TaskCall {
  entryId: string;
  toolCallId: string;
  /** The task item names the arguments give (`name`, `tasks[].name`), trimmed. */
  names: string[];
  /** The entry's time, Unix ms (NaN when it has none). */
  at: number;
}

/** The last dot-separated segment of a nested id (`Anna.Bob` → `Bob`). */
function lastSegment(stem: string): string {
  const dot = stem.lastIndexOf('.');
  return dot < 0 ? stem : stem.slice(dot + 1);
}

function namesOf(args: unknown): string[] {
  if (!isRecord(args)) return [];
  const names: string[] = [];
  const add = (value: unknown) => {
    if (typeof value === 'string' && value.trim() !== '') names.push(value.trim());
  };
  add(args.name);
  if (Array.isArray(args.tasks)) for (const item of args.tasks) if (isRecord(item)) add(item.name);
  return names;
}

/**
 * The `task` tool calls and results of one session, fed its entries in file order (any subset that
 * holds the task calls and results: a prefiltered scan of the file is enough, see
 * mayHoldSubagentCall). Explicit state, owned by whoever feeds it; nothing is cached elsewhere.
 */
export class SubagentCallLedger {
  private readonly calls: TaskCall[] = [];
  private readonly callsById = new Map<string, TaskCall>();
  /** Result id → the tool call id whose result names it (the first result wins). */
  private readonly resultIds = new Map<string, string>();
  /** The newest entry time seen, Unix ms: how far in time the entries fed reach. */
  private latestAt = Number.NEGATIVE_INFINITY;

  get size(): number {
    return this.calls.length;
  }

  add(entry: SessionEntry): void {
    if (entry.type !== 'message') return;
    const message = (entry as { message?: unknown }).message;
    if (!isRecord(message)) return;
    const at = typeof entry.timestamp === 'string' ? Date.parse(entry.timestamp) : Number.NaN;
    if (at > this.latestAt) this.latestAt = at;
    if (message.role === 'assistant' && Array.isArray(message.content)) {
      for (const block of message.content as unknown[]) {
        if (!isRecord(block) || block.type !== 'toolCall' || block.name !== TASK_TOOL_NAME) continue;
        if (typeof block.id !== 'string' || this.callsById.has(block.id)) continue;
        const call: TaskCall = {
          entryId: entry.id,
          toolCallId: block.id,
          names: namesOf(block.arguments),
          at,
        };
        this.calls.push(call);
        this.callsById.set(block.id, call);
      }
      return;
    }
    if (message.role !== 'toolResult' || message.toolName !== TASK_TOOL_NAME) return;
    if (typeof message.toolCallId !== 'string' || !isRecord(message.details)) return;
    const results = message.details.results;
    if (!Array.isArray(results)) return;
    for (const result of results) {
      if (!isRecord(result)) continue;
      const id = typeof result.id === 'string' ? result.id : result.taskId;
      if (typeof id === 'string' && !this.resultIds.has(id)) this.resultIds.set(id, message.toolCallId);
    }
  }

  /** Feeds one line of the session file; a line that is not an entry is skipped. */
  addLine(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    if (isRecord(value) && typeof value.id === 'string') this.add(value as unknown as SessionEntry);
  }

  /**
   * Where each wanted subagent was started, by the strongest rule that finds it:
   * 1. `result`: a task result names its id (the whole stem, or, for a nested `Anna.Bob`, `Bob`),
   *    and the call it answers is in an entry fed;
   * 2. `call`: a task call's arguments name it (`name` or `tasks[].name` equal to the stem's last
   *    segment); of several, the last one at or before its start, else the first;
   * 3. `time`: the last task call at or before its start. When `complete` is false (the entries fed
   *    stop before the end of the session), only if an entry later than its start was fed.
   * A subagent none finds is left out of the answer.
   */
  find(wanted: readonly WantedSubagent[], complete = true): Map<string, SubagentCallSite> {
    const found = new Map<string, SubagentCallSite>();
    for (const { stem, startedAt } of wanted) {
      const start = startedAt === undefined ? Number.NaN : Date.parse(startedAt);
      const site = this.byResult(stem) ?? this.byName(stem, start) ?? this.byTime(start, complete);
      if (site) found.set(stem, site);
    }
    return found;
  }

  private byResult(stem: string): SubagentCallSite | undefined {
    for (const id of stem.includes('.') ? [stem, lastSegment(stem)] : [stem]) {
      const callId = this.resultIds.get(id);
      const call = callId === undefined ? undefined : this.callsById.get(callId);
      if (call) return { entryId: call.entryId, toolCallId: call.toolCallId, rule: 'result' };
    }
    return undefined;
  }

  private byName(stem: string, start: number): SubagentCallSite | undefined {
    const name = lastSegment(stem);
    const named = this.calls.filter((call) => call.names.includes(name) || call.names.includes(stem));
    if (named.length === 0) return undefined;
    const before = named.filter((call) => call.at <= start);
    const call = before.length > 0 ? before[before.length - 1]! : named[0]!;
    return { entryId: call.entryId, toolCallId: call.toolCallId, rule: 'call' };
  }

  private byTime(start: number, complete: boolean): SubagentCallSite | undefined {
    if (Number.isNaN(start) || (!complete && !(this.latestAt > start))) return undefined;
    let last: TaskCall | undefined;
    for (const call of this.calls) if (call.at <= start) last = call;
    return last && { entryId: last.entryId, toolCallId: last.toolCallId, rule: 'time' };
  }
}

/** Where each wanted subagent was started in a parent with these entries (see SubagentCallLedger.find). */
export function findSubagentCallSites(
  entries: Iterable<SessionEntry>,
  wanted: readonly WantedSubagent[],
): Map<string, SubagentCallSite> {
  const ledger = new SubagentCallLedger();
  for (const entry of entries) ledger.add(entry);
  return ledger.find(wanted);
}

/**
 * What every line holding a task call or result holds: the tool's name quoted as JSON writes it
 * (`"name":"task"`, `"toolName":"task"`). A scan of a large parent looks at no other line.
 */
export const SUBAGENT_LINE_NEEDLE = `"${TASK_TOOL_NAME}"`;

/**
 * A cheap test of a raw line of the parent's file, before it is parsed: only a line holding
 * {@link SUBAGENT_LINE_NEEDLE} can hold a task call or result, and of those only a call
 * (`"toolCall"`) or a line naming one of the stems' segments matters. A scan of a large parent
 * parses only the lines this keeps.
 */
export function subagentLineFilter(stems: readonly string[]): (line: string) => boolean {
  const needles = [...new Set(stems.flatMap((stem) => [stem, lastSegment(stem)]))];
  return (line) =>
    line.includes(SUBAGENT_LINE_NEEDLE) &&
    (line.includes('"toolCall"') || needles.some((needle) => line.includes(needle)));
}

/**
 * [oh-my-pi] Where an advisor transcript (`__advisor*.jsonl`) is grafted: the last entry of the
 * parent written at or before the advisor's start (its header time). An advisor has no tool call of
 * its own; its first consultation follows the parent's turn that was written just before. Fed the
 * parent's entries (or lines) in file order; `passed` says an entry after the start was seen, so
 * the answer cannot change any more.
 */
export class LastEntryBefore {
  private readonly start: number;
  entryId: string | null = null;
  passed = false;

  constructor(startedAt: string) {
    this.start = Date.parse(startedAt);
  }

  add(id: string, timestamp: unknown): void {
    if (this.passed || typeof timestamp !== 'string') return;
    const at = Date.parse(timestamp);
    if (at > this.start) this.passed = true;
    else if (at <= this.start) this.entryId = id;
  }

  /** Feeds one line of the file; headers (`session`, oh-my-pi's title line) and non-entries are skipped. */
  addLine(line: string): void {
    if (this.passed || line === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    if (
      !isRecord(value) ||
      value.type === 'session' ||
      typeof value.id !== 'string' ||
      !('parentId' in value)
    )
      return;
    this.add(value.id, value.timestamp);
  }
}
