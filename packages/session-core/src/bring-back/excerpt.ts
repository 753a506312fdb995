// The excerpt form of a bring-back (docs/bring-back.md#excerpt): the selected entries' text in
// reading order, written out so the model reads what was done elsewhere rather than taking it for
// its own turns. Tool calls stay with their results, thinking is left out (a signed thinking block
// moved out of place is rejected by providers), images are named, not copied, and where a branch
// starts or unselected entries lie is said in words.

import {
  branchSummaryMessageFromEntry,
  compactionSummaryMessageFromEntry,
  convertToLlm,
  customMessageFromEntry,
  type LlmMessage,
} from '../context';
import { orderSelectedIds, pairToolCalls, selectionLayout } from '../selected-entries';
import type { SessionManager } from '../session-manager';
import { contentText, isRecord } from '../text';
import type { AgentMessage, SessionEntry } from '../types';

/** Characters per token: the estimate pi and the summarisers use (docs/summaries.md#budget). */
export const CHARS_PER_TOKEN = 4;

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Put first, so the model knows the text is brought from elsewhere and did not happen here. */
export const BRING_BACK_PREAMBLE =
  'The user brought the following entries here from elsewhere in this conversation tree (other branches or earlier attempts). They are a copy for reference: they did not happen on this branch.';

export interface ExcerptOptions {
  /** The most tokens the excerpt may take; 0 or absent: no limit. */
  tokenBudget?: number;
}

export interface BringBackExcerpt {
  text: string;
  /** Estimated tokens of `text` (characters / 4). */
  tokens: number;
  /** The entries the text covers, in reading order. */
  entryIds: string[];
  /** Every entry of the selection after pairing, in reading order (what `sourceEntryIds` records). */
  selectionIds: string[];
  /** Tool calls and results added so that none is without the other. */
  addedCalls: number;
  addedResults: number;
  /** Entries the budget left out (the oldest). */
  leftOut: number;
  /** Says what the budget left out; absent when nothing was. */
  notice?: string;
  branches: number;
  gaps: number;
}

/** The message an entry contributes to an excerpt (tool results included), or none. */
function excerptMessageOf(entry: SessionEntry): AgentMessage | undefined {
  switch (entry.type) {
    case 'message':
      return isRecord(entry.message) ? (entry.message as AgentMessage) : undefined;
    case 'custom_message':
      return customMessageFromEntry(entry);
    case 'branch_summary':
      return branchSummaryMessageFromEntry(entry);
    case 'compaction':
      return compactionSummaryMessageFromEntry(entry);
    default:
      return undefined;
  }
}

/** An image is named (its type and the entry holding it), never copied: it may be megabytes. */
function imageReference(block: Record<string, unknown>, entryId: string): string {
  const mime = typeof block.mimeType === 'string' ? block.mimeType : 'image';
  return `[Image (${mime}) in entry ${entryId}: not copied]`;
}

function contentWithImages(content: unknown, entryId: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content as unknown[]) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
    else if (block.type === 'image') parts.push(imageReference(block, entryId));
  }
  return parts.join('\n');
}

function argumentsText(args: unknown): string {
  if (!isRecord(args)) return '';
  return Object.entries(args)
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(', ');
}

/** One wire message as excerpt text; thinking blocks are left out. */
function messageText(message: LlmMessage, entryId: string, toolNames: Map<string, string>): string {
  if (message.role === 'user') {
    const text = contentWithImages(message.content, entryId);
    return text ? `[User]: ${text}` : '';
  }
  if (message.role === 'assistant') {
    const parts: string[] = [];
    const blocks: unknown[] = Array.isArray(message.content) ? message.content : [];
    for (const block of blocks) {
      if (!isRecord(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string' && block.text)
        parts.push(`[Assistant]: ${block.text}`);
      else if (block.type === 'toolCall') {
        if (typeof block.id === 'string') toolNames.set(block.id, String(block.name));
        parts.push(`[Tool call]: ${String(block.name)}(${argumentsText(block.arguments)})`);
      }
    }
    return parts.join('\n');
  }
  if (message.role === 'toolResult') {
    const record = message as unknown as Record<string, unknown>;
    const id = typeof record.toolCallId === 'string' ? record.toolCallId : '';
    const name = toolNames.get(id) ?? (typeof record.toolName === 'string' ? record.toolName : 'tool');
    const label = record.isError === true ? 'Tool error' : 'Tool result';
    return `[${label} of ${name}]: ${contentWithImages(record.content, entryId) || '(empty)'}`;
  }
  // System and developer messages are the agent's own set-up, not conversation.
  const text = contentText((message as { content?: unknown }).content);
  return text ? `[Note]: ${text}` : '';
}

interface Unit {
  /** Entries of the unit in reading order: one entry, or a tool call's entry with its results. */
  ids: string[];
  newestLine: number;
  texts: Map<string, string>;
}

function isToolResultOf(entry: SessionEntry, callIds: ReadonlySet<string>): boolean {
  if (entry.type !== 'message' || !isRecord(entry.message)) return false;
  const message = entry.message as Record<string, unknown>;
  return (
    message.role === 'toolResult' && typeof message.toolCallId === 'string' && callIds.has(message.toolCallId)
  );
}

function callIdsOf(entry: SessionEntry): Set<string> {
  const ids = new Set<string>();
  if (entry.type !== 'message' || !isRecord(entry.message)) return ids;
  const message = entry.message as Record<string, unknown>;
  if (message.role !== 'assistant' || !Array.isArray(message.content)) return ids;
  for (const block of message.content as unknown[]) {
    if (isRecord(block) && block.type === 'toolCall' && typeof block.id === 'string') ids.add(block.id);
  }
  return ids;
}

function renderLines(units: readonly Unit[], marks: ReadonlyMap<string, string>, notice?: string): string {
  const parts: string[] = [BRING_BACK_PREAMBLE];
  if (notice) parts.push(`[${notice}]`);
  for (const unit of units) {
    for (const id of unit.ids) {
      const mark = marks.get(id);
      if (mark) parts.push(mark);
      const text = unit.texts.get(id);
      if (text) parts.push(text);
    }
  }
  return parts.join('\n\n');
}

/**
 * The excerpt of the entries `selectedIds` (any order, from anywhere in the tree). A selected tool
 * result brings its call and a call its results (pairToolCalls), the entries are read branch by
 * branch (orderSelectedIds), and a call with its results is one unit: the budget keeps or leaves
 * out a unit whole. Over the budget, the oldest units (by file order) are left out first, and a
 * notice at the top says how many entries.
 */
export function bringBackExcerpt(
  sm: SessionManager,
  selectedIds: readonly string[],
  options: ExcerptOptions = {},
): BringBackExcerpt {
  const known = selectedIds.filter((id) => sm.hasEntry(id));
  const paired = pairToolCalls(sm, known);
  const ordered = paired.ids.length > 0 ? orderSelectedIds(sm, paired.ids).ids : [];

  const units: Unit[] = [];
  const toolNames = new Map<string, string>();
  let open: { unit: Unit; callIds: Set<string> } | undefined;
  for (const id of ordered) {
    const entry = sm.getEntry(id);
    if (!entry) continue;
    const message = excerptMessageOf(entry);
    const text = message
      ? convertToLlm([message], { dialect: sm.dialect })
          .map((wire) => messageText(wire, id, toolNames))
          .filter((part) => part !== '')
          .join('\n')
      : '';
    const line = sm.getLine(id) ?? 0;
    if (open && isToolResultOf(entry, open.callIds)) {
      open.unit.ids.push(id);
      open.unit.texts.set(id, text);
      open.unit.newestLine = Math.max(open.unit.newestLine, line);
      continue;
    }
    const unit: Unit = { ids: [id], newestLine: line, texts: new Map([[id, text]]) };
    units.push(unit);
    const callIds = callIdsOf(entry);
    open = callIds.size > 0 ? { unit, callIds } : undefined;
  }

  const full = selectionLayout(sm, ordered);
  let kept = units;
  let notice: string | undefined;
  let leftOut = 0;
  const budget = options.tokenBudget ?? 0;
  if (budget > 0 && estimateTextTokens(renderLines(units, full.marks)) > budget) {
    // Newest first until the next unit would not fit, leaving room for the notice.
    const fixed = estimateTextTokens(renderLines([], new Map(), 'x'.repeat(120)));
    const byNewest = [...units].sort((a, b) => b.newestLine - a.newestLine);
    const keep = new Set<Unit>();
    let used = fixed;
    for (const unit of byNewest) {
      let unitText = '';
      for (const id of unit.ids) unitText += `\n\n${full.marks.get(id) ?? ''}\n\n${unit.texts.get(id) ?? ''}`;
      const cost = estimateTextTokens(unitText);
      if (used + cost > budget) break;
      keep.add(unit);
      used += cost;
    }
    kept = units.filter((unit) => keep.has(unit));
    leftOut = units.filter((unit) => !keep.has(unit)).reduce((sum, unit) => sum + unit.ids.length, 0);
    notice = `Bring-back: the ${leftOut.toLocaleString('en')} oldest ${leftOut === 1 ? 'entry was' : 'entries were'} left out to stay within ${budget.toLocaleString('en')} tokens`;
  }
  const entryIds = kept.flatMap((unit) => unit.ids);
  const layout = kept === units ? full : selectionLayout(sm, entryIds);
  const text = renderLines(kept, layout.marks, notice);
  return {
    text,
    tokens: estimateTextTokens(text),
    entryIds,
    selectionIds: ordered,
    addedCalls: paired.addedCalls,
    addedResults: paired.addedResults,
    leftOut,
    ...(notice !== undefined ? { notice } : {}),
    branches: layout.branches,
    gaps: layout.gaps,
  };
}
