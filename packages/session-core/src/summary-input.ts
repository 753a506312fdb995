// The input side of branch summarization, shared by every summarizer: which abandoned entries
// fit the token budget, which files they touched, the plain-text form of the conversation, and
// the preamble and file-list blocks wrapped around the summary text.

import {
  branchSummaryMessageFromEntry,
  compactionSummaryMessageFromEntry,
  contextEditsOf,
  customMessageFromEntry,
  projectContextEntry,
  type LlmMessage,
} from './context';
import { contentText, estimateTokens, isRecord } from './text';
import type { AgentMessage, SessionEntry } from './types';

export interface FileOperations {
  read: Set<string>;
  written: Set<string>;
  edited: Set<string>;
}

export function createFileOperations(): FileOperations {
  return { read: new Set(), written: new Set(), edited: new Set() };
}

/**
 * Records the `path` argument of read, write and edit calls: the assistant's tool calls, and the
 * calls a code-mode script made, recorded on its tool result (`nestedCalls`, pi 1.x).
 */
export function collectFileOperations(message: AgentMessage, fileOps: FileOperations): void {
  if (!isRecord(message)) return;
  if (message.role === 'toolResult') {
    const nested = isRecord(message.nestedCalls) ? message.nestedCalls.calls : undefined;
    if (!Array.isArray(nested)) return;
    for (const call of nested as unknown[]) {
      if (isRecord(call)) addFileOperation(call.name, call.arguments, fileOps);
    }
    return;
  }
  if (message.role !== 'assistant' || !Array.isArray(message.content)) return;
  for (const block of message.content as unknown[]) {
    if (isRecord(block) && block.type === 'toolCall') addFileOperation(block.name, block.arguments, fileOps);
  }
}

function addFileOperation(name: unknown, args: unknown, fileOps: FileOperations): void {
  if (!isRecord(args) || typeof args.path !== 'string' || !args.path) return;
  switch (name) {
    case 'read':
      fileOps.read.add(args.path);
      break;
    case 'write':
      fileOps.written.add(args.path);
      break;
    case 'edit':
      fileOps.edited.add(args.path);
      break;
  }
}

/** Whether a compaction or branch summary was written by an extension (pi `fromHook`, oh-my-pi `fromExtension`). */
export function isExtensionGenerated(entry: SessionEntry): boolean {
  return entry.fromHook === true || entry.fromExtension === true;
}

/**
 * The message an abandoned entry contributes to a summary. Unlike the model context, tool
 * results are left out (the assistant's tool call already says what happened) and compactions
 * contribute their summary.
 */
export function summaryMessageOf(entry: SessionEntry, edit?: SessionEntry): AgentMessage | undefined {
  switch (entry.type) {
    case 'message': {
      const message = entry.message;
      if (!isRecord(message) || message.role === 'toolResult') return undefined;
      // A context edit omits the message (null) or replaces its content, as in the context.
      return edit ? projectContextEntry(entry, edit)[0] : (message as AgentMessage);
    }
    case 'custom_message':
      return edit ? projectContextEntry(entry, edit)[0] : customMessageFromEntry(entry);
    case 'branch_summary':
      return branchSummaryMessageFromEntry(entry);
    case 'compaction':
      return compactionSummaryMessageFromEntry(entry);
    default:
      return undefined;
  }
}

export interface PreparedBranchEntries {
  /** Chronological; the newest messages that fit the budget. */
  messages: AgentMessage[];
  /** For each message, the index in the input of the entry it came from. */
  entryIndexes: number[];
  fileOps: FileOperations;
  totalTokens: number;
  /**
   * The input index from which the walk took every message it met: entries before it that hold a
   * message were left out by the budget (0 when nothing was cut).
   */
  keptFrom: number;
}

/**
 * Chooses what of the abandoned `entries` (chronological) a summary is built from.
 * File operations come from every earlier non-extension branch summary's details (read files,
 * and modified files as edited) and from the tool calls of every message looked at. Messages are
 * taken newest first until the next would exceed `tokenBudget` (0 or less means no limit); a
 * compaction or branch summary that does not fit is still taken while the total is below 90% of
 * the budget, since it condenses much more history than its size suggests.
 */
export function prepareBranchEntries(
  entries: readonly SessionEntry[],
  tokenBudget = 0,
): PreparedBranchEntries {
  const fileOps = createFileOperations();

  for (const entry of entries) {
    if (entry.type !== 'branch_summary' || isExtensionGenerated(entry) || !isRecord(entry.details)) continue;
    const { readFiles, modifiedFiles } = entry.details;
    if (Array.isArray(readFiles)) {
      for (const file of readFiles as unknown[]) if (typeof file === 'string') fileOps.read.add(file);
    }
    if (Array.isArray(modifiedFiles)) {
      for (const file of modifiedFiles as unknown[]) if (typeof file === 'string') fileOps.edited.add(file);
    }
  }

  // pi 1.x honours context edits: the latest edit among the entries wins for its target
  // (docs/tree-and-context.md#context-edits).
  const edits = contextEditsOf(entries);

  // Collected newest first and reversed once at the end, instead of a quadratic unshift.
  const newestFirst: AgentMessage[] = [];
  const indexes: number[] = [];
  let totalTokens = 0;
  let keptFrom = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as SessionEntry;
    const message = summaryMessageOf(entry, edits.get(entry.id));
    if (!message) continue;
    // File operations count even for the message that ends the walk, as in the reference.
    collectFileOperations(message, fileOps);
    const tokens = estimateTokens(message);
    if (tokenBudget > 0 && totalTokens + tokens > tokenBudget) {
      const isSummary = entry.type === 'compaction' || entry.type === 'branch_summary';
      keptFrom = i + 1;
      if (isSummary && totalTokens < tokenBudget * 0.9) {
        newestFirst.push(message);
        indexes.push(i);
        totalTokens += tokens;
        keptFrom = i;
      }
      break;
    }
    newestFirst.push(message);
    indexes.push(i);
    totalTokens += tokens;
  }
  newestFirst.reverse();
  indexes.reverse();
  return { messages: newestFirst, entryIndexes: indexes, fileOps, totalTokens, keptFrom };
}

export interface FileLists {
  /** Files only read, never modified; sorted. */
  readFiles: string[];
  /** Files written or edited; sorted. */
  modifiedFiles: string[];
}

export function computeFileLists(fileOps: FileOperations): FileLists {
  const modified = new Set<string>([...fileOps.edited, ...fileOps.written]);
  const readFiles = [...fileOps.read].filter((file) => !modified.has(file)).sort();
  const modifiedFiles = [...modified].sort();
  return { readFiles, modifiedFiles };
}

/** Put before the summarizer's text so the model reading it knows it is about an abandoned branch. */
export const BRANCH_SUMMARY_PREAMBLE =
  'The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n';

/** The `<read-files>` / `<modified-files>` blocks appended to a summary; "" when both lists are empty. */
export function formatFileListsSuffix(
  readFiles: readonly string[],
  modifiedFiles: readonly string[],
): string {
  const sections: string[] = [];
  if (readFiles.length > 0) sections.push(`<read-files>\n${readFiles.join('\n')}\n</read-files>`);
  if (modifiedFiles.length > 0)
    sections.push(`<modified-files>\n${modifiedFiles.join('\n')}\n</modified-files>`);
  return sections.length > 0 ? `\n\n${sections.join('\n\n')}` : '';
}

/** Tool results longer than this are cut in the serialized conversation. */
export const TOOL_RESULT_MAX_CHARS = 2000;

function truncateForSummary(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  // A cut between the halves of a surrogate pair keeps the whole character out, as pi 1.x does.
  const code = (at: number) => text.charCodeAt(at);
  const splitsPair =
    code(maxChars - 1) >= 0xd800 &&
    code(maxChars - 1) <= 0xdbff &&
    code(maxChars) >= 0xdc00 &&
    code(maxChars) <= 0xdfff;
  const head = text.slice(0, splitsPair ? maxChars - 1 : maxChars);
  return `${head}\n\n[... ${text.length - maxChars} more characters truncated]`;
}

function toolCallText(block: Record<string, unknown>): string {
  const args = isRecord(block.arguments) ? block.arguments : {};
  const argsText = Object.entries(args)
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(', ');
  return `${String(block.name)}(${argsText})`;
}

/**
 * The conversation as plain text, so the summarizing model reads it instead of continuing it:
 * `[User]:`, `[Assistant]:`, `[Assistant tool calls]:` and `[Tool result]:` parts (tool results cut
 * at 2000 characters), joined by blank lines. Thinking is left out, as pi 1.x leaves it out
 * (docs/summaries.md#prompt). Takes wire messages (run convertToLlm first).
 */
export function serializeConversation(messages: readonly LlmMessage[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    if (!isRecord(message)) continue;
    if (message.role === 'user') {
      const text = contentText(message.content);
      if (text) parts.push(`[User]: ${text}`);
    } else if (message.role === 'assistant') {
      const texts: string[] = [];
      const toolCalls: string[] = [];
      const blocks: unknown[] = Array.isArray(message.content) ? message.content : [];
      let hasText = false;
      for (const block of blocks) {
        if (!isRecord(block)) continue;
        if (block.type === 'text') {
          hasText = true;
          if (typeof block.text === 'string') texts.push(block.text);
        } else if (block.type === 'toolCall') toolCalls.push(toolCallText(block));
      }
      if (hasText) parts.push(`[Assistant]: ${texts.join('\n')}`);
      if (toolCalls.length > 0) parts.push(`[Assistant tool calls]: ${toolCalls.join('; ')}`);
    } else if (message.role === 'toolResult') {
      const text = contentText(message.content);
      if (text) parts.push(`[Tool result]: ${truncateForSummary(text, TOOL_RESULT_MAX_CHARS)}`);
    }
  }
  return parts.join('\n\n');
}
