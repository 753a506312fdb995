// View entries: the compact per-entry skeleton that the tree views work on. The server builds
// them once from full entries; the browser filters, searches and lays out the tree from them
// alone, so everything a row or a filter needs is computed here (docs/tree-and-context.md#row-text, #filters, #search).
// Session files are user data written by other programs: every accessor tolerates malformed
// shapes and never throws.
// One file because row text, search text and flags are each one switch over the entry types: a new
// entry type is added here, in one place.

import { contentText, hasTextContent, isRecord } from '../text';
import type { Dialect, SessionEntry } from '../types';

export interface ViewEntry {
  id: string;
  parentId: string | null;
  type: string;
  /** `message.role` of a `message` entry. */
  role?: string;
  timestamp: string;
  /** The resolved label of the entry, if any. */
  label?: string;
  /** The row text of docs/tree-and-context.md#row-text: one line, normalised, not truncated to a width. */
  text: string;
  /** The lower-cased searchable text (docs/tree-and-context.md#search), without the label. */
  search: string;
  /** A bit set of {@link ViewFlags}. */
  flags: number;
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
} as const;

export type ViewFlagName = keyof typeof ViewFlags;

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
const PREVIEW_LENGTH = 200;

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

type UnknownRecord = Record<string, unknown>;

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * The first 200 characters of a content's text (text blocks joined with no separator), exactly
 * `contentText(content, { maxLength: 200 })`, but cutting each block before joining: a tool result
 * of megabytes is not copied just to keep 200 characters of it.
 */
function preview(content: unknown): string {
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

function messageOf(entry: SessionEntry): UnknownRecord | undefined {
  const message = (entry as { message?: unknown }).message;
  return isRecord(message) ? message : undefined;
}

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

function oneLine(s: string): string {
  return s.replace(CONTROL_CHARACTERS, ' ');
}

/**
 * The reference's `normalize` (newlines and tabs to spaces, trimmed), extended to every control
 * character: `normalizeRowText(oneLine(s))`, whose replace of newlines and tabs finds none left after
 * `oneLine`, so only its trim is done (one regular-expression pass per row, not two).
 */
function normalize(s: string): string {
  return oneLine(s).trim();
}

function capLength(line: string): string {
  return line.length > ROW_TEXT_MAX_LENGTH ? line.slice(0, ROW_TEXT_MAX_LENGTH) : line;
}

function capRow(s: string): string {
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

function finiteNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  return undefined;
}

function jsonOf(value: unknown): string {
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

function modelChangeText(entry: UnknownRecord, dialect: Dialect | undefined): string {
  const modelId = str(entry.modelId);
  const model = str(entry.model);
  const provider = str(entry.provider);
  if (dialect === 'omp') {
    if (model !== undefined) return model;
    if (provider !== undefined && modelId !== undefined) return `${provider}/${modelId}`;
    return modelId ?? '';
  }
  return modelId ?? model ?? '';
}

/** [OMP] `details.kind` of an empty-summary branch marker (e.g. "discarded-entry-branch"). */
export function branchMarkerKind(entry: UnknownRecord): string | undefined {
  const details = entry.details;
  if (!isRecord(details)) return undefined;
  return typeof details.kind === 'string' && details.kind !== '' ? details.kind : undefined;
}

/** [OMP] "family:tier …" of a service_tier_change, or "(default)" when it went back to the default. */
function serviceTierText(tiers: unknown): string {
  if (!isRecord(tiers)) return '(default)';
  const parts = Object.entries(tiers).map(([family, tier]) => `${family}:${String(tier)}`);
  return parts.length > 0 ? parts.join(' ') : '(default)';
}

function thinkingLevelText(entry: UnknownRecord): string {
  // oh-my-pi writes null for "off".
  const level = entry.thinkingLevel;
  return level == null ? 'off' : String(level);
}

function assistantRowText(message: UnknownRecord): string {
  const text = normalize(preview(message.content));
  if (text) return `assistant: ${text}`;
  if (message.stopReason === 'aborted') return 'assistant: (aborted)';
  const error = str(message.errorMessage);
  if (error) return `assistant: ${normalize(error).slice(0, 80)}`;
  return 'assistant: (no content)';
}

/**
 * A message's row, one line and capped. A user, assistant, bash or developer row is a fixed prefix
 * and `normalize`d text, already one line: it is only cut to length (a second pass over every
 * message's text was a tenth of the server's rendering of a load). The others hold raw names.
 */
function messageRowText(
  message: UnknownRecord | undefined,
  toolCalls: ToolCallLookup,
  options?: RowTextOptions,
): string {
  if (message === undefined) return '[message]';
  const role = str(message.role);
  switch (role) {
    case 'user':
      return capLength(`user: ${normalize(preview(message.content))}`);
    case 'assistant':
      return capLength(assistantRowText(message));
    case 'toolResult': {
      const callId = str(message.toolCallId);
      const call = callId ? toolCalls.get(callId) : undefined;
      if (call) return capRow(call.row ?? formatToolCall(call.name, call.arguments, options));
      return capRow(`[${str(message.toolName) || 'tool'}]`);
    }
    case 'bashExecution':
      return capLength(`[bash]: ${normalize(str(message.command) ?? '')}`);
    case 'developer':
      // Newer oh-my-pi's developer messages carry text worth showing.
      return capLength(`developer: ${normalize(preview(message.content))}`);
    case undefined:
      return '[message]';
    default:
      return capRow(`[${role}]`);
  }
}

/** The row text of one entry (docs/tree-and-context.md#row-text), normalised to one line and capped. */
export function rowText(entry: SessionEntry, toolCalls: ToolCallLookup, options?: RowTextOptions): string {
  const e = entry as UnknownRecord;
  switch (entry.type) {
    case 'message':
      return messageRowText(messageOf(entry), toolCalls, options);
    case 'custom_message':
      return capRow(`[${str(e.customType) ?? ''}]: ${normalize(contentText(e.content))}`);
    case 'compaction': {
      const tokens = finiteNumber(e.tokensBefore) ?? 0;
      return `[compaction: ${Math.round(tokens / 1000)}k tokens]`;
    }
    case 'branch_summary': {
      const summary = normalize(str(e.summary) ?? '');
      // [OMP] An empty summary is a marker that keeps a chosen branch on reload; oh-my-pi's row
      // would be blank after the colon, so name the marker's kind instead.
      const kind = summary === '' ? branchMarkerKind(e) : undefined;
      return capRow(`[branch summary]: ${kind !== undefined ? `(${kind})` : summary}`);
    }
    case 'model_usage': {
      const role = str(e.role) ? `${normalize(str(e.role) ?? '')} ` : '';
      return capRow(
        `[model usage: ${normalize(str(e.purpose) ?? '')} ${role}${normalize(str(e.provider) ?? '')}/${normalize(str(e.model) ?? '')}]`,
      );
    }
    case 'service_tier_change':
      return capRow(`[service tier: ${serviceTierText(e.serviceTier)}]`);
    case 'model_change':
      return capRow(`[model: ${modelChangeText(e, options?.dialect)}]`);
    case 'thinking_level_change':
      return capRow(`[thinking: ${thinkingLevelText(e)}]`);
    case 'custom':
      return capRow(`[custom: ${str(e.customType) ?? ''}]`);
    case 'label': {
      // An empty label clears, exactly like an absent one (docs/format.md#labels), so it reads "(cleared)" too.
      const label = str(e.label);
      return capRow(`[label: ${label ? normalize(label) : '(cleared)'}]`);
    }
    case 'session_info': {
      // As the reference package 0.73.1 shows it; never a blank row.
      const name = str(e.name);
      return capRow(`[title: ${name ? normalize(name) : 'empty'}]`);
    }
    case 'mode_change':
      return capRow(`[mode: ${str(e.mode) ?? ''}]`);
    case 'title_change':
      return capRow(`[title: ${normalize(str(e.title) ?? '')}]`);
    case 'credential_pin':
      return capRow(`[credential pin: ${str(e.provider) ?? ''}]`);
    case 'archive':
      return capRow(`[${e.archived ? 'archived' : 'restored'}: ${str(e.targetId) ?? ''}]`);
    default:
      // oh-my-pi's safety fix: an unknown type still names itself instead of drawing a blank row.
      return capRow(`[${typeName(entry).replaceAll('_', ' ')}]`);
  }
}

/**
 * The searchable text of one entry without its label (docs/tree-and-context.md#search), lower-cased.
 * Tool results are found by their result text, not by the tool-call label of their row.
 */
export function searchText(entry: SessionEntry): string {
  const e = entry as UnknownRecord;
  const parts: string[] = [];
  switch (entry.type) {
    case 'message': {
      const message = messageOf(entry);
      if (message === undefined) break;
      const role = str(message.role);
      if (role !== undefined) parts.push(role);
      if (message.content) parts.push(preview(message.content));
      if (role === 'bashExecution') {
        const command = str(message.command);
        if (command) parts.push(command);
      }
      break;
    }
    case 'custom_message':
      parts.push(str(e.customType) ?? '');
      // As in the reference: a string content is searched whole, text blocks by their preview.
      parts.push(typeof e.content === 'string' ? e.content : preview(e.content));
      break;
    case 'compaction':
      parts.push('compaction');
      break;
    case 'branch_summary':
      parts.push('branch summary', str(e.summary) ?? '');
      if (!str(e.summary)) parts.push(branchMarkerKind(e) ?? '');
      break;
    case 'model_change':
      parts.push('model', str(e.modelId) ?? str(e.model) ?? '');
      break;
    case 'model_usage':
      parts.push(
        'model usage',
        str(e.purpose) ?? '',
        str(e.role) ?? '',
        str(e.provider) ?? '',
        str(e.model) ?? '',
      );
      break;
    case 'service_tier_change':
      parts.push('service tier');
      if (isRecord(e.serviceTier)) {
        for (const [family, tier] of Object.entries(e.serviceTier))
          if (typeof tier === 'string' && tier) parts.push(family, tier);
      }
      break;
    case 'title_change':
      parts.push('title', str(e.title) ?? '');
      break;
    case 'credential_pin':
      parts.push('credential pin', str(e.provider) ?? '');
      break;
    case 'reset_boundary':
      parts.push('reset boundary');
      break;
    case 'session_init':
      parts.push('session init');
      break;
    case 'thinking_level_change':
      parts.push('thinking', thinkingLevelText(e));
      break;
    case 'custom':
      parts.push('custom', str(e.customType) ?? '');
      break;
    case 'label':
      parts.push('label', str(e.label) ?? '');
      break;
    case 'session_info':
      parts.push('title', str(e.name) ?? '');
      break;
    case 'mode_change':
      parts.push('mode', str(e.mode) ?? '');
      break;
    case 'ttsr_injection':
      parts.push('ttsr injection');
      if (Array.isArray(e.injectedRules)) {
        for (const rule of e.injectedRules as unknown[]) if (typeof rule === 'string') parts.push(rule);
      }
      break;
    default:
      // Not in the reference: an unknown type is found by the name its row shows.
      parts.push(typeName(entry).replaceAll('_', ' '));
      break;
  }
  const text = parts.join(' ').toLowerCase();
  return text.length > SEARCH_TEXT_MAX_LENGTH ? text.slice(0, SEARCH_TEXT_MAX_LENGTH) : text;
}

function hasImage(content: unknown): boolean {
  if (!Array.isArray(content)) return false;
  for (const block of content as unknown[]) if (isRecord(block) && block.type === 'image') return true;
  return false;
}

/** The {@link ViewFlags} of one entry. */
export function viewFlags(entry: SessionEntry): number {
  const e = entry as UnknownRecord;
  if (entry.type === 'custom_message') return hasImage(e.content) ? ViewFlags.HasImage : 0;
  if (entry.type !== 'message') return 0;
  const message = messageOf(entry);
  if (message === undefined) return 0;
  let flags = 0;
  switch (message.role) {
    case 'assistant': {
      const stopReason = message.stopReason;
      if (stopReason === 'error') flags |= ViewFlags.Error;
      if (stopReason === 'aborted') flags |= ViewFlags.Aborted;
      if (stopReason === 'length') flags |= ViewFlags.Length;
      if (Array.isArray(message.content)) {
        for (const block of message.content as unknown[]) {
          if (!isRecord(block)) continue;
          if (block.type === 'thinking' || block.type === 'redactedThinking') flags |= ViewFlags.HasThinking;
          else if (block.type === 'toolCall') flags |= ViewFlags.HasToolCalls;
          else if (block.type === 'image') flags |= ViewFlags.HasImage;
        }
      }
      // docs/tree-and-context.md#filters: any stop reason other than "stop" and "toolUse" (length, error, aborted,
      // or one a newer agent invents) keeps the message visible.
      const errorOrAbort =
        typeof stopReason === 'string' &&
        stopReason !== '' &&
        stopReason !== 'stop' &&
        stopReason !== 'toolUse';
      if (!hasTextContent(message.content) && !errorOrAbort) flags |= ViewFlags.ToolOnlyAssistant;
      break;
    }
    case 'toolResult':
      if (message.isError === true) flags |= ViewFlags.ToolError;
      if (hasImage(message.content)) flags |= ViewFlags.HasImage;
      break;
    case 'bashExecution': {
      const exitCode = message.exitCode;
      if (typeof exitCode === 'number' && exitCode !== 0) flags |= ViewFlags.Error;
      if (message.cancelled === true) flags |= ViewFlags.Aborted;
      if (message.excludeFromContext === true) flags |= ViewFlags.ExcludedFromContext;
      break;
    }
    default:
      if (hasImage(message.content)) flags |= ViewFlags.HasImage;
      break;
  }
  return flags;
}

/** One view entry from a full entry and its resolved label. */
export function toViewEntry(
  entry: SessionEntry,
  label: string | undefined,
  toolCalls: ToolCallLookup,
  options?: RowTextOptions,
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
  if (label) view.label = label;
  return view;
}

export interface ToViewEntriesOptions extends RowTextOptions {
  /**
   * The session's tool-call index. Pass the same one for every batch of a live session: each
   * call first records the batch's tool calls, so results can find calls appended earlier.
   */
  toolCalls?: ToolCallIndex;
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
    result[i] = toViewEntry(entry, labelOf(entry.id), toolCalls, options);
  }
  return result;
}
