// The pieces a row and a search text are made of (docs/tree-and-context.md#row-text, #search): the
// 200-character preview, one-line normalisation, the length caps, and a tool call as a tool result's
// row shows it. Shared by the entry-type table (../entry-types.ts) and the view entries.

import { isRecord } from '../text';
import type { Dialect, SessionEntry } from '../types';

/**
 * Row text never exceeds this many characters. The reference does not cap custom_message and
 * branch_summary rows (it only truncates the line to the terminal width); no screen is this wide,
 * and the cap keeps the skeleton sent to the browser small.
 */
export const ROW_TEXT_MAX_LENGTH = 1000;

/**
 * Searchable text never exceeds this many characters. The reference searches the whole of a
 * branch summary or a string custom_message; this keeps that for any realistic summary while
 * bounding the skeleton size for pathological entries.
 */
export const SEARCH_TEXT_MAX_LENGTH = 4000;

/** Preview length of message text in rows and search (the reference's 200). */
export const PREVIEW_LENGTH = 200;

/** A tool call as a toolResult row shows it: the tool's name and its arguments. */
export interface ToolCallInfo {
  name: string;
  arguments: unknown;
  /**
   * The result row's text (`formatToolCall` of the name and arguments), when the index that found the
   * call formatted it already and kept that instead of the arguments (the server's open sessions).
   */
  row?: string;
}

/** A tool call together with where it is: its call id and the assistant entry holding it. */
export interface LocatedToolCall extends ToolCallInfo {
  id: string;
  entryId: string;
}

/** Anything that finds a tool call by its id: a `Map` or a {@link ToolCallIndex}. */
export interface ToolCallLookup {
  get(id: string): ToolCallInfo | undefined;
}

export const ViewFlags = {
  /** An assistant message without text that is not an error or abort (docs/tree-and-context.md#filters). */
  ToolOnlyAssistant: 1,
  /** An assistant message that stopped with "error", or a bash execution with a non-zero exit code. */
  Error: 2,
  /** An assistant message that stopped with "aborted", or a cancelled bash execution. */
  Aborted: 4,
  /** A tool result with `isError` set. */
  ToolError: 8,
  /** The content holds at least one image block. */
  HasImage: 16,
  /** An assistant message with at least one thinking block. */
  HasThinking: 32,
  /** An assistant message with at least one tool call. */
  HasToolCalls: 64,
  /** An assistant message that stopped at the output length limit. */
  Length: 128,
  /** A bash execution run with `!!`, kept out of the model's context. */
  ExcludedFromContext: 256,
  /**
   * The latest archive record naming this entry archives it (docs/archive-and-family.md#archive):
   * the one archive fact the wire carries, so a record changes one node whatever its branch's size.
   * Whether an entry is inside an archived branch, and which entry is the branch's root, the view
   * tree derives from these (ViewTree.archiveStateAt, archive-state.ts).
   */
  ArchiveTarget: 512,
} as const;

export type UnknownRecord = Record<string, unknown>;

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * The first 200 characters of a content's text (text blocks joined with no separator), exactly
 * `contentText(content, { maxLength: 200 })`, but cutting each block before joining: a tool result
 * of megabytes is not copied just to keep 200 characters of it.
 */
export function preview(content: unknown): string {
  if (typeof content === 'string')
    return content.length > PREVIEW_LENGTH ? content.slice(0, PREVIEW_LENGTH) : content;
  if (!Array.isArray(content)) return '';
  let result = '';
  for (const block of content as unknown[]) {
    if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') continue;
    const room = PREVIEW_LENGTH - result.length;
    result += block.text.length > room ? block.text.slice(0, room) : block.text;
    if (result.length >= PREVIEW_LENGTH) break;
  }
  return result;
}

export function messageOf(entry: SessionEntry): UnknownRecord | undefined {
  const message = (entry as { message?: unknown }).message;
  return isRecord(message) ? message : undefined;
}

export interface RowTextOptions {
  /** The user's home directory; paths under it are shown as `~`. */
  home?: string;
  /** Decides how a model_change reads when the entry could be read either way. */
  dialect?: Dialect;
}

// C0 and C1 control characters (other than the \n, \r, \t that normalisation already turns into
// spaces) would move the cursor or start escape sequences when the outline is printed in a terminal.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

export function oneLine(s: string): string {
  return s.replace(CONTROL_CHARACTERS, ' ');
}

/**
 * The reference's `normalize` (newlines and tabs to spaces, trimmed), extended to every control
 * character: `normalizeRowText(oneLine(s))`, whose replace of newlines and tabs finds none left after
 * `oneLine`, so only its trim is done (one regular-expression pass per row, not two).
 */
export function normalize(s: string): string {
  return oneLine(s).trim();
}

export function capLength(line: string): string {
  return line.length > ROW_TEXT_MAX_LENGTH ? line.slice(0, ROW_TEXT_MAX_LENGTH) : line;
}

export function capRow(s: string): string {
  return capLength(oneLine(s));
}

function shortenPath(path: string, home: string | undefined): string {
  if (!home) return path;
  // Drop trailing separators so "/home/dev/" and "/home/dev" behave alike.
  const base = home.replace(/[/\\]+$/, '');
  if (base === '') return path;
  if (path === base) return '~';
  // Unlike the reference's plain prefix test, "/home/dev2" is not shown as "~2".
  if (path.startsWith(base) && (path[base.length] === '/' || path[base.length] === '\\')) {
    return `~${path.slice(base.length)}`;
  }
  return path;
}

/** The reference's `String(a || b || fallback)`: the first truthy value, stringified. */
function firstTruthy(fallback: string, ...values: unknown[]): string {
  for (const value of values) {
    if (value) return String(value);
  }
  return fallback;
}

export function finiteNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  return undefined;
}

export function jsonOf(value: unknown): string {
  try {
    const json = JSON.stringify(value);
    return typeof json === 'string' ? json : '';
  } catch {
    return '';
  }
}

/** The label of a tool call as a tool result row shows it (docs/tree-and-context.md#row-text). */
export function formatToolCall(name: string, args: unknown, options?: RowTextOptions): string {
  const a: UnknownRecord = isRecord(args) ? args : {};
  const home = options?.home;
  switch (name) {
    case 'read': {
      let display = shortenPath(firstTruthy('', a.path, a.file_path), home);
      const offset = finiteNumber(a.offset);
      const limit = finiteNumber(a.limit);
      if (offset !== undefined || limit !== undefined) {
        const start = offset ?? 1;
        const end = limit !== undefined ? start + limit - 1 : 0;
        // As in the reference, an end of 0 (limit 0 from line 1) shows no range end.
        display += `:${start}${end ? `-${end}` : ''}`;
      }
      return `[read: ${display}]`;
    }
    case 'write':
      return `[write: ${shortenPath(firstTruthy('', a.path, a.file_path), home)}]`;
    case 'edit':
      return `[edit: ${shortenPath(firstTruthy('', a.path, a.file_path), home)}]`;
    case 'bash': {
      const raw = firstTruthy('', a.command);
      const command = normalize(raw).slice(0, 50);
      return `[bash: ${command}${raw.length > 50 ? '...' : ''}]`;
    }
    case 'grep':
      return `[grep: /${firstTruthy('', a.pattern)}/ in ${shortenPath(firstTruthy('.', a.path), home)}]`;
    case 'find':
      return `[find: ${firstTruthy('', a.pattern)} in ${shortenPath(firstTruthy('.', a.path), home)}]`;
    case 'ls':
      return `[ls: ${shortenPath(firstTruthy('.', a.path), home)}]`;
    default: {
      const json = jsonOf(args);
      return `[${name}: ${json.slice(0, 40)}${json.length > 40 ? '...' : ''}]`;
    }
  }
}

export function hasImage(content: unknown): boolean {
  if (!Array.isArray(content)) return false;
  for (const block of content as unknown[]) if (isRecord(block) && block.type === 'image') return true;
  return false;
}
