// Two branches compared from where they split (docs/branches.md#compare): the common ancestor, the
// two lanes after it aligned on their user turns, what each lane did and cost (usage from every
// source the entry-type table counts, through `usageNumbersOf`), and the two final answers as a line
// diff. Pure functions of two root-first paths; nothing kept between calls.

import { usageNumbersOf, type UsageNumbers } from '../entry-types';
import { contentText, isRecord, userMessageText } from '../text';
import type { SessionEntry } from '../types';
import { countChanges, diffLines, splitLines, type DiffLine } from './line-diff';

type Identified = Pick<SessionEntry, 'id'>;

/** How many leading entries two root-first paths share (the common ancestor is the last of them). */
export function sharedPrefixLength(a: readonly Identified[], b: readonly Identified[]): number {
  let n = 0;
  const max = Math.min(a.length, b.length);
  while (n < max && a[n]?.id === b[n]?.id) n++;
  return n;
}

/** The id of the deepest entry both root-first paths contain, or null when they share none. */
export function commonAncestor(a: readonly Identified[], b: readonly Identified[]): string | null {
  const n = sharedPrefixLength(a, b);
  return n === 0 ? null : (a[n - 1] as Identified).id;
}

/** One user turn of a lane: the user message and what followed it up to the next one. */
export interface LaneTurn {
  /** The user message that opens it; null for the entries before the lane's first user message. */
  userId: string | null;
  userText: string;
  entryIds: string[];
}

function isUserMessage(entry: SessionEntry): boolean {
  return entry.type === 'message' && isRecord(entry.message) && entry.message.role === 'user';
}

/** A lane cut at its user messages. */
export function laneTurns(lane: readonly SessionEntry[]): LaneTurn[] {
  const turns: LaneTurn[] = [];
  let current: LaneTurn | undefined;
  for (const entry of lane) {
    if (isUserMessage(entry)) {
      current = { userId: entry.id, userText: userMessageText(entry.message), entryIds: [entry.id] };
      turns.push(current);
    } else {
      if (!current) {
        current = { userId: null, userText: '', entryIds: [] };
        turns.push(current);
      }
      current.entryIds.push(entry.id);
    }
  }
  return turns;
}

/** A row of the two lanes side by side: turns at the same row answer the same user text, or none. */
export interface AlignedTurns {
  a: number | null;
  b: number | null;
  /** Both turns open with the same user text. */
  same: boolean;
}

/**
 * Aligns two lanes' turns: turns whose user texts match (their longest common sequence) share a row;
 * between two such rows the remaining turns are paired in order, the longer side's extra ones alone.
 */
export function alignTurns(a: readonly LaneTurn[], b: readonly LaneTurn[]): AlignedTurns[] {
  const keyOf = (turn: LaneTurn) => (turn.userId === null ? '\u0000lead' : turn.userText);
  const diff = diffLines(a.map(keyOf), b.map(keyOf));
  const rows: AlignedTurns[] = [];
  let ai = 0;
  let bi = 0;
  let pendingA: number[] = [];
  let pendingB: number[] = [];
  const flush = () => {
    const n = Math.max(pendingA.length, pendingB.length);
    for (let i = 0; i < n; i++) rows.push({ a: pendingA[i] ?? null, b: pendingB[i] ?? null, same: false });
    pendingA = [];
    pendingB = [];
  };
  for (const line of diff) {
    if (line.kind === ' ') {
      flush();
      rows.push({ a: ai++, b: bi++, same: true });
    } else if (line.kind === '-') pendingA.push(ai++);
    else pendingB.push(bi++);
  }
  flush();
  return rows;
}

/** Token and cost numbers summed, with how many entries gave them. */
export interface UsageTotals extends UsageNumbers {
  entries: number;
}

function emptyTotals(): UsageTotals {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0, entries: 0 };
}

function addUsage(into: UsageTotals, usage: UsageNumbers): void {
  into.input += usage.input;
  into.output += usage.output;
  into.cacheRead += usage.cacheRead;
  into.cacheWrite += usage.cacheWrite;
  into.totalTokens += usage.totalTokens;
  into.cost += usage.cost;
  into.entries++;
}

/** What a lane did and cost. */
export interface LaneRollup {
  entries: number;
  turns: number;
  toolCalls: number;
  /** Tool results marked as errors. */
  toolErrors: number;
  /** Assistant replies that stopped with an error. */
  errors: number;
  aborts: number;
  /** Every "provider/model" that answered, in order of first answer. */
  models: string[];
  modelChanges: number;
  /** The thinking levels set by thinking_level_change entries, in order. */
  thinkingChanges: string[];
  usage: UsageTotals;
  /**
   * Usage by source: `assistant`, `toolResult`, `usage` (pi 1.6's entries), `compaction`,
   * `branch_summary`, and oh-my-pi's other sources by entry type.
   */
  usageBySource: Record<string, UsageTotals>;
  /** From the common ancestor's time (or the lane's first entry) to the lane's last entry; null if unknown. */
  wallMs: number | null;
}

function usageSource(entry: SessionEntry): string {
  if (entry.type === 'message' && isRecord(entry.message) && typeof entry.message.role === 'string')
    return entry.message.role;
  return entry.type;
}

function timeOf(entry: SessionEntry | undefined): number | undefined {
  if (!entry) return undefined;
  const t = Date.parse(entry.timestamp);
  return Number.isFinite(t) ? t : undefined;
}

/** Rolls a lane up; `before` is the entry it continues from (the common ancestor), for its wall time. */
export function rollUpLane(lane: readonly SessionEntry[], before?: SessionEntry): LaneRollup {
  const rollup: LaneRollup = {
    entries: lane.length,
    turns: 0,
    toolCalls: 0,
    toolErrors: 0,
    errors: 0,
    aborts: 0,
    models: [],
    modelChanges: 0,
    thinkingChanges: [],
    usage: emptyTotals(),
    usageBySource: {},
    wallMs: null,
  };
  for (const entry of lane) {
    const usage = usageNumbersOf(entry);
    if (usage) {
      addUsage(rollup.usage, usage);
      const source = usageSource(entry);
      addUsage((rollup.usageBySource[source] ??= emptyTotals()), usage);
    }
    if (entry.type === 'model_change') rollup.modelChanges++;
    if (entry.type === 'thinking_level_change')
      rollup.thinkingChanges.push(typeof entry.thinkingLevel === 'string' ? entry.thinkingLevel : 'off');
    if (entry.type !== 'message' || !isRecord(entry.message)) continue;
    const message = entry.message;
    if (message.role === 'user') rollup.turns++;
    else if (message.role === 'toolResult' && message.isError === true) rollup.toolErrors++;
    else if (message.role === 'assistant') {
      if (Array.isArray(message.content))
        for (const block of message.content)
          if (isRecord(block) && block.type === 'toolCall') rollup.toolCalls++;
      if (message.stopReason === 'error') rollup.errors++;
      if (message.stopReason === 'aborted') rollup.aborts++;
      if (typeof message.model === 'string') {
        const model =
          typeof message.provider === 'string' ? `${message.provider}/${message.model}` : message.model;
        if (!rollup.models.includes(model)) rollup.models.push(model);
      }
    }
  }
  const start = timeOf(before) ?? timeOf(lane[0]);
  const end = timeOf(lane[lane.length - 1]);
  if (start !== undefined && end !== undefined) rollup.wallMs = Math.max(0, end - start);
  return rollup;
}

/** The lane's last assistant reply with text, as the answer it ended on. */
export function finalAnswer(lane: readonly SessionEntry[]): { entryId: string; text: string } | undefined {
  for (let i = lane.length - 1; i >= 0; i--) {
    const entry = lane[i] as SessionEntry;
    if (entry.type !== 'message' || !isRecord(entry.message) || entry.message.role !== 'assistant') continue;
    const text = contentText(entry.message.content);
    if (text.trim() !== '') return { entryId: entry.id, text };
  }
  return undefined;
}

export interface CompareLane {
  leafId: string;
  /** The lane's entry ids after the common ancestor, in order. */
  entryIds: string[];
  turns: LaneTurn[];
  rollup: LaneRollup;
  answer?: { entryId: string; text: string };
}

export interface BranchComparison {
  ancestorId: string | null;
  /** The shared path's entry ids, root first (the ancestor last). */
  sharedIds: string[];
  a: CompareLane;
  b: CompareLane;
  rows: AlignedTurns[];
  /** The two final answers as a line diff (a → b). */
  answerDiff: DiffLine[];
  answerChanges: { added: number; removed: number };
}

/** Compares the branches ending at two entries, given their root-first paths. */
export function compareBranches(
  pathA: readonly SessionEntry[],
  pathB: readonly SessionEntry[],
): BranchComparison {
  const shared = sharedPrefixLength(pathA, pathB);
  const ancestor = shared > 0 ? pathA[shared - 1] : undefined;
  const lane = (path: readonly SessionEntry[]): CompareLane => {
    const entries = path.slice(shared);
    const answer = finalAnswer(entries);
    return {
      leafId: path[path.length - 1]?.id ?? '',
      entryIds: entries.map((e) => e.id),
      turns: laneTurns(entries),
      rollup: rollUpLane(entries, ancestor),
      ...(answer ? { answer } : {}),
    };
  };
  const a = lane(pathA);
  const b = lane(pathB);
  const answerDiff = diffLines(splitLines(a.answer?.text ?? ''), splitLines(b.answer?.text ?? ''));
  return {
    ancestorId: ancestor?.id ?? null,
    sharedIds: pathA.slice(0, shared).map((e) => e.id),
    a,
    b,
    rows: alignTurns(a.turns, b.turns),
    answerDiff,
    answerChanges: countChanges(answerDiff),
  };
}
