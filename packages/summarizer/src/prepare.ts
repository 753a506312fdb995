// What of the entries a summary is built from, and the account of what was left out: pi's
// newest-first budget (session-core's prepareBranchEntries), the conversation serialised as pi
// serialises it, with the marks of a selection (branch boundaries, gaps) between its parts.
import {
  contextEditsOf,
  estimateTokens,
  prepareBranchEntries,
  serializeConversation,
  summaryMessageOf,
  type AgentMessage,
  type FileOperations,
  type LlmMessage,
  type SessionEntry,
} from '@canopy/session-core';
import type { LeftOutReason, SummarySent } from './types';

export interface PreparedSummary {
  messages: AgentMessage[];
  fileOps: FileOperations;
  sent: SummarySent;
  /** The conversation text; `convert` is convertToLlm (the caller's dialect rules). */
  serialize(convert: (messages: AgentMessage[]) => LlmMessage[]): string;
}

function isToolResult(entry: SessionEntry): boolean {
  const message = (entry as { message?: { role?: unknown } }).message;
  return entry.type === 'message' && message?.role === 'toolResult';
}

/**
 * `tokenBudget` 0 or less: no limit (the offline summariser). `marks` are put before the message of
 * the entry they name (or, when that entry has none, before the next message that is sent).
 */
export function prepareForSummary(
  entries: readonly SessionEntry[],
  tokenBudget: number,
  marks?: ReadonlyMap<string, string>,
): PreparedSummary {
  const prepared = prepareBranchEntries(entries, tokenBudget);
  const counts = new Map<LeftOutReason, { entries: number; tokens: number }>();
  const leave = (reason: LeftOutReason, tokens: number) => {
    const count = counts.get(reason) ?? { entries: 0, tokens: 0 };
    count.entries += 1;
    count.tokens += tokens;
    counts.set(reason, count);
  };
  const edits = contextEditsOf(entries);
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as SessionEntry;
    const edit = edits.get(entry.id);
    const message = summaryMessageOf(entry, edit);
    if (edit && !message && !isToolResult(entry)) {
      leave('context-edit', 0);
    } else if (message) {
      if (i < prepared.keptFrom && !prepared.entryIndexes.includes(i))
        leave('budget', estimateTokens(message));
    } else if (isToolResult(entry)) {
      leave('tool-result', estimateTokens((entry as { message: AgentMessage }).message));
    } else leave('no-content', 0);
  }
  const order: LeftOutReason[] = ['budget', 'context-edit', 'tool-result', 'no-content'];
  const sent: SummarySent = {
    entries: prepared.messages.length,
    tokens: prepared.totalTokens,
    budget: tokenBudget > 0 ? tokenBudget : null,
    leftOut: order.flatMap((reason) => {
      const count = counts.get(reason);
      return count ? [{ reason, ...count }] : [];
    }),
  };

  return {
    messages: prepared.messages,
    fileOps: prepared.fileOps,
    sent,
    serialize(convert) {
      if (!marks || marks.size === 0) return serializeConversation(convert(prepared.messages));
      // A mark belongs before the first sent message at or after its entry.
      const markAt = new Map<number, string[]>();
      let next = 0;
      for (let i = 0; i < entries.length; i++) {
        const mark = marks.get((entries[i] as SessionEntry).id);
        while (next < prepared.entryIndexes.length && (prepared.entryIndexes[next] as number) < i) next++;
        if (mark === undefined || next >= prepared.entryIndexes.length) continue;
        const list = markAt.get(next) ?? [];
        list.push(mark);
        markAt.set(next, list);
      }
      const parts: string[] = [];
      let start = 0;
      const flush = (end: number) => {
        if (end <= start) return;
        const text = serializeConversation(convert(prepared.messages.slice(start, end)));
        if (text) parts.push(text);
        start = end;
      };
      for (const [index, lines] of [...markAt.entries()].sort((a, b) => a[0] - b[0])) {
        flush(index);
        parts.push(...lines);
      }
      flush(prepared.messages.length);
      return parts.join('\n\n');
    },
  };
}
