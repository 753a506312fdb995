// View entries: the compact per-entry skeleton that the tree views work on. The server builds
// them once from full entries; the browser filters, searches and lays out the tree from them
// alone, so everything a row or a filter needs is computed here (docs/tree-and-context.md#row-text, #filters, #search).
// What each entry type's row, search text and flags are is declared in the entry-type table
// (../entry-types.ts); this file applies it, with the tool-call index the rows of tool results need.
// Session files are user data written by other programs: nothing here throws on a malformed shape.

import { entrySpecOf, roleSpecOf } from '../entry-types';
import { isRecord } from '../text';
import type { SessionEntry } from '../types';
import {
  capRow,
  hasImage,
  messageOf,
  SEARCH_TEXT_MAX_LENGTH,
  str,
  ViewFlags,
  type LocatedToolCall,
  type RowTextOptions,
  type ToolCallInfo,
  type ToolCallLookup,
  type UnknownRecord,
} from './row-format';

export {
  formatToolCall,
  ROW_TEXT_MAX_LENGTH,
  SEARCH_TEXT_MAX_LENGTH,
  ViewFlags,
  type LocatedToolCall,
  type RowTextOptions,
  type ToolCallInfo,
  type ToolCallLookup,
} from './row-format';

export interface ViewEntry {
  id: string;
  parentId: string | null;
  type: string;
  /** `message.role` of a `message` entry. */
  role?: string;
  timestamp: string;
  /** The resolved label of the entry, if any. */
  label?: string;
  /** When the label was set: the latest label entry's timestamp (docs/tree-and-context.md#label-times). */
  labelTime?: string;
  /** The row text of docs/tree-and-context.md#row-text: one line, normalised, not truncated to a width. */
  text: string;
  /** The lower-cased searchable text (docs/tree-and-context.md#search), without the label. */
  search: string;
  /** A bit set of {@link ViewFlags}. */
  flags: number;
}

export type ViewFlagName = keyof typeof ViewFlags;

/**
 * Every tool call of every assistant message in a session (all branches), so tool result rows
 * can show the call's arguments. Feed it live appends with {@link ToolCallIndex.add}.
 * The first call with a given id wins: ids are unique when written, and keeping the first makes
 * a session rendered in one batch identical to the same session rendered entry by entry.
 */
export class ToolCallIndex implements ToolCallLookup {
  private readonly calls = new Map<string, ToolCallInfo>();

  add(entry: SessionEntry): void {
    if (entry.type !== 'message') return;
    const message = messageOf(entry);
    if (message === undefined || message.role !== 'assistant' || !Array.isArray(message.content)) return;
    for (const block of message.content as unknown[]) {
      if (!isRecord(block) || block.type !== 'toolCall') continue;
      const id = str(block.id);
      if (id === undefined || this.calls.has(id)) continue;
      this.calls.set(
        id,
        this.info(typeof block.name === 'string' ? block.name : String(block.name), block.arguments),
      );
    }
  }

  /** What is kept of one call: its name and arguments (a subclass may keep less, see {@link ToolCallInfo.row}). */
  protected info(name: string, args: unknown): ToolCallInfo {
    return { name, arguments: args };
  }

  addEntries(entries: Iterable<SessionEntry>): void {
    for (const entry of entries) this.add(entry);
  }

  get(id: string): ToolCallInfo | undefined {
    return this.calls.get(id);
  }

  get size(): number {
    return this.calls.size;
  }
}

/**
 * The tool call `toolCallId` that `result` (a tool result entry) answers, looked for in the assistant
 * messages above it: normally its nearest assistant ancestor, so at most `maxSteps` entries up.
 */
export function findToolCall(
  getEntry: (id: string) => SessionEntry | undefined,
  result: SessionEntry,
  toolCallId: string,
  maxSteps = 1000,
): LocatedToolCall | undefined {
  let current = result.parentId ? getEntry(result.parentId) : undefined;
  for (let steps = 0; current && steps < maxSteps; steps++) {
    const message = messageOf(current);
    if (message?.role === 'assistant' && Array.isArray(message.content)) {
      for (const block of message.content as unknown[]) {
        if (isRecord(block) && block.type === 'toolCall' && block.id === toolCallId) {
          return {
            id: toolCallId,
            name: String(block.name ?? ''),
            arguments: block.arguments,
            entryId: current.id,
          };
        }
      }
    }
    current = current.parentId ? getEntry(current.parentId) : undefined;
  }
  return undefined;
}

/** The row text of one entry (docs/tree-and-context.md#row-text), normalised to one line and capped. */
export function rowText(entry: SessionEntry, toolCalls: ToolCallLookup, options?: RowTextOptions): string {
  const spec = entrySpecOf(entry.type);
  // oh-my-pi's safety fix: an unknown type still names itself instead of drawing a blank row.
  if (!spec) return capRow(`[${typeName(entry).replaceAll('_', ' ')}]`);
  return spec.row(entry as UnknownRecord, { toolCalls, options });
}

/**
 * The searchable text of one entry without its label (docs/tree-and-context.md#search), lower-cased.
 * Tool results are found by their result text, not by the tool-call label of their row.
 */
export function searchText(entry: SessionEntry): string {
  const spec = entrySpecOf(entry.type);
  // Not in the reference: an unknown type is found by the name its row shows.
  const parts = spec ? spec.search(entry as UnknownRecord) : [typeName(entry).replaceAll('_', ' ')];
  const text = parts.join(' ').toLowerCase();
  return text.length > SEARCH_TEXT_MAX_LENGTH ? text.slice(0, SEARCH_TEXT_MAX_LENGTH) : text;
}

/** The {@link ViewFlags} of one entry. */
export function viewFlags(entry: SessionEntry): number {
  if (entry.type === 'custom_message')
    return hasImage((entry as UnknownRecord).content) ? ViewFlags.HasImage : 0;
  if (entry.type !== 'message') return 0;
  const message = messageOf(entry);
  if (message === undefined) return 0;
  const spec = roleSpecOf(message.role);
  return spec ? spec.flags(message) : hasImage(message.content) ? ViewFlags.HasImage : 0;
}

/** One view entry from a full entry and its resolved label. */
export function toViewEntry(
  entry: SessionEntry,
  label: string | undefined,
  toolCalls: ToolCallLookup,
  options?: RowTextOptions,
  labelTime?: string,
): ViewEntry {
  const view: ViewEntry = {
    id: entry.id,
    parentId: typeof entry.parentId === 'string' ? entry.parentId : null,
    type: typeName(entry),
    timestamp: typeof entry.timestamp === 'string' ? entry.timestamp : '',
    text: rowText(entry, toolCalls, options),
    search: searchText(entry),
    flags: viewFlags(entry),
  };
  if (entry.type === 'message') {
    const role = str(messageOf(entry)?.role);
    if (role !== undefined) view.role = role;
  }
  if (label) {
    view.label = label;
    if (labelTime) view.labelTime = labelTime;
  }
  return view;
}

export interface ToViewEntriesOptions extends RowTextOptions {
  /**
   * The session's tool-call index. Pass the same one for every batch of a live session: each
   * call first records the batch's tool calls, so results can find calls appended earlier.
   */
  toolCalls?: ToolCallIndex;
  /** When each label was set (SessionManager.getLabelTimestamp); labels carry no time without it. */
  labelTimeOf?: (id: string) => string | undefined;
}

/** The entry's type, or `untyped` for an entry kept in the tree without a string type. */
function typeName(entry: SessionEntry): string {
  const type: unknown = entry.type;
  return typeof type === 'string' ? type : 'untyped';
}

/** View entries for a batch of entries, in the same order. */
export function toViewEntries(
  entries: readonly SessionEntry[],
  labels: ReadonlyMap<string, string> | ((id: string) => string | undefined),
  options?: ToViewEntriesOptions,
): ViewEntry[] {
  const toolCalls = options?.toolCalls ?? new ToolCallIndex();
  toolCalls.addEntries(entries);
  const labelOf = typeof labels === 'function' ? labels : (id: string) => labels.get(id);
  const result: ViewEntry[] = new Array<ViewEntry>(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    result[i] = toViewEntry(entry, labelOf(entry.id), toolCalls, options, options?.labelTimeOf?.(entry.id));
  }
  return result;
}
