// Text extraction shared by context building, navigation, row rendering and search.
// Session files are user data written by other programs, so every function here accepts
// malformed shapes (non-array content, null blocks, non-string text) and never throws.

import type { AgentMessage, Dialect, SessionEntry } from './types';

export interface ContentTextOptions {
  /** Cut the result to this many UTF-16 code units (the reference's row preview uses 200). */
  maxLength?: number;
  /** Placed between text blocks; the reference's extraction joins with "". */
  separator?: string;
}

/** A JSON object (or array) read from a file: its fields may be anything. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * The text of a message or entry `content`: a string as-is, otherwise the `text` of every
 * `{type:"text"}` block joined by the separator. Images, thinking and tool calls are ignored.
 */
export function contentText(content: unknown, options?: ContentTextOptions): string {
  const maxLength = options?.maxLength;
  const limit = typeof maxLength === 'number' && maxLength >= 0 ? maxLength : undefined;
  if (typeof content === 'string') {
    return limit !== undefined && content.length > limit ? content.slice(0, limit) : content;
  }
  if (!Array.isArray(content)) return '';
  const separator = options?.separator ?? '';
  let result = '';
  let first = true;
  for (const block of content as unknown[]) {
    if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') continue;
    result += first ? block.text : separator + block.text;
    first = false;
    // Stop early so a preview of a huge message does not concatenate all of it.
    if (limit !== undefined && result.length >= limit) return result.slice(0, limit);
  }
  return result;
}

/** Whether the content holds any non-whitespace text (the reference's `hasTextContent`). */
export function hasTextContent(content: unknown): boolean {
  if (typeof content === 'string') return content.trim().length > 0;
  if (!Array.isArray(content)) return false;
  for (const block of content as unknown[]) {
    if (
      isRecord(block) &&
      block.type === 'text' &&
      typeof block.text === 'string' &&
      block.text.trim().length > 0
    ) {
      return true;
    }
  }
  return false;
}

/** One-line form of a text for a tree row: newlines, carriage returns and tabs become spaces, then trimmed. */
export function normalizeRowText(s: string): string {
  return s.replace(/[\n\r\t]/g, ' ').trim();
}

/** The text of a user message, or "" for anything that is not one. */
export function userMessageText(message: unknown): string {
  if (!isRecord(message) || message.role !== 'user') return '';
  return contentText(message.content);
}

/**
 * The text a navigation to this entry puts into the editor: a user message's text or a
 * custom_message's content text; undefined for every other entry (no prefill).
 */
export function editorTextOf(entry: SessionEntry): string | undefined {
  if (entry.type === 'message') {
    const message = (entry as { message?: unknown }).message;
    if (isRecord(message) && message.role === 'user') return contentText(message.content);
    return undefined;
  }
  if (entry.type === 'custom_message') return contentText((entry as { content?: unknown }).content);
  return undefined;
}

/** Characters an image counts for in token estimates (the reference's 1200 tokens). */
export const IMAGE_CHAR_ESTIMATE = 4800;

function stringLength(value: unknown): number {
  return typeof value === 'string' ? value.length : 0;
}

function jsonLength(value: unknown): number {
  try {
    const json = JSON.stringify(value);
    return typeof json === 'string' ? json.length : 0;
  } catch {
    return 0;
  }
}

/** Characters counted for text blocks plus a fixed amount per image block. */
function contentCharsWithImages(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) return 0;
  let chars = 0;
  for (const block of content as unknown[]) {
    if (!isRecord(block)) continue;
    if (block.type === 'text') chars += stringLength(block.text);
    else if (block.type === 'image') chars += IMAGE_CHAR_ESTIMATE;
  }
  return chars;
}

/**
 * Rough token count of one message, ceil(chars / 4), counted as pi 1.x's summarizer does: system text,
 * sections and added tools' JSON; user, custom and toolResult text plus 4800 characters per image;
 * assistant text + thinking + tool name + JSON of the arguments; bash command + output; summary text.
 * Other roles count 0. oh-my-pi counts a user message's text only and no system messages.
 */
export function estimateTokens(message: AgentMessage, dialect?: Dialect): number {
  if (!isRecord(message)) return 0;
  const m = message as Record<string, unknown>;
  let chars = 0;
  switch (m.role) {
    // pi 1.x counts a system message's text, its sections and its added tools' declarations.
    case 'system': {
      if (dialect === 'omp') return 0;
      chars = contentCharsWithImages(m.content);
      if (isRecord(m.sections)) {
        for (const section of Object.values(m.sections)) chars += stringLength(section);
      }
      if (m.toolsAdded) chars += jsonLength(m.toolsAdded);
      break;
    }
    case 'user':
      // pi 1.x counts a user message's images too (0.73 and oh-my-pi only its text).
      chars = dialect === 'omp' ? contentText(m.content).length : contentCharsWithImages(m.content);
      break;
    case 'assistant': {
      if (!Array.isArray(m.content)) break;
      for (const block of m.content as unknown[]) {
        if (!isRecord(block)) continue;
        if (block.type === 'text') chars += stringLength(block.text);
        else if (block.type === 'thinking') chars += stringLength(block.thinking);
        else if (block.type === 'toolCall') chars += stringLength(block.name) + jsonLength(block.arguments);
      }
      break;
    }
    // hookMessage is the legacy name of custom and reaches the model the same way.
    case 'custom':
    case 'hookMessage':
    case 'toolResult':
      chars = contentCharsWithImages(m.content);
      break;
    case 'bashExecution':
      chars = stringLength(m.command) + stringLength(m.output);
      break;
    // [OMP] both reach oh-my-pi's model (pi does not send them): a developer message as it is, a
    // Python run as its code and output.
    case 'developer':
      if (dialect !== 'omp') return 0;
      chars = contentCharsWithImages(m.content);
      break;
    case 'pythonExecution':
      if (dialect !== 'omp') return 0;
      chars = stringLength(m.code) + stringLength(m.output);
      break;
    case 'branchSummary':
    case 'compactionSummary':
      chars = stringLength(m.summary);
      break;
    default:
      return 0;
  }
  return Math.ceil(chars / 4);
}
