// What the tree selector's copy key (pi's Ctrl+X, docs/tree-and-context.md#copy) puts on the
// clipboard for an entry, and how it writes a label's time (Shift+T, docs/tree-and-context.md#label-times).
// Both as pi 1.6's tree selector does them (`getEntryCopyText`, `formatLabelTimestamp`).

import { contentText, isRecord } from '../text';
import type { SessionEntry } from '../types';

/**
 * The text pi copies for an entry: a message's text blocks joined (a bash execution's command; an
 * assistant reply without text, its error message), a custom message's text, a compaction's or
 * branch summary's summary. Undefined when that is empty or blank, or for any other entry.
 */
export function entryCopyText(entry: SessionEntry): string | undefined {
  const record = entry as unknown as Record<string, unknown>;
  let text: unknown;
  switch (record.type) {
    case 'message': {
      const message = record.message;
      if (!isRecord(message)) break;
      if (message.role === 'bashExecution') text = message.command;
      else if ('content' in message) {
        text = contentText(message.content);
        if (!text && message.role === 'assistant') text = message.errorMessage;
      }
      break;
    }
    case 'custom_message':
      text = contentText(record.content);
      break;
    case 'compaction':
    case 'branch_summary':
      text = record.summary;
      break;
  }
  return typeof text === 'string' && text.trim() ? text : undefined;
}

/**
 * A label's time as pi's tree shows it beside the label: `HH:MM` today, `M/D HH:MM` this year,
 * else `YY/M/D HH:MM`, in the local time of `now`'s clock. Empty for an unreadable timestamp.
 */
export function formatLabelTime(timestamp: string, now: Date): string {
  const date = new Date(timestamp);
  if (Number.isNaN(date.getTime())) return '';
  const time = `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
  const sameYear = date.getFullYear() === now.getFullYear();
  if (sameYear && date.getMonth() === now.getMonth() && date.getDate() === now.getDate()) return time;
  const monthDay = `${date.getMonth() + 1}/${date.getDate()}`;
  if (sameYear) return `${monthDay} ${time}`;
  return `${String(date.getFullYear()).slice(-2)}/${monthDay} ${time}`;
}
