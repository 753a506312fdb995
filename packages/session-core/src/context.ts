// What the model sees: the active path turned into messages (buildSessionContext) and those
// messages turned into the LLM wire form (convertToLlm), for both dialects (pi and oh-my-pi).
// One file because both functions apply the same per-dialect message rules; a dialect rule is changed
// in one place.

import { entrySpecOf, type ContextRule, type KnownRole } from './entry-types';
import { contentText, estimateTokens, isRecord } from './text';
import type {
  AgentMessage,
  AssistantMessage,
  BashExecutionMessage,
  BranchSummaryMessage,
  CompactionSummaryMessage,
  CustomMessage,
  DeveloperMessage,
  Dialect,
  FileMentionMessage,
  PythonExecutionMessage,
  ImageContent,
  SessionContext,
  SessionEntry,
  SystemMessage,
  TextContent,
  ToolDeclaration,
  ToolResultMessage,
  UserContentBlock,
  UserMessage,
} from './types';

function emptyContext(): SessionContext {
  return { messages: [], thinkingLevel: 'off', model: null, models: {}, injectedTtsrRules: [], mode: 'none' };
}

/** The model id of an oh-my-pi "provider/id" string split at the first "/", or null without one. */
export function splitModelString(model: string): { provider: string; modelId: string } | null {
  const slash = model.indexOf('/');
  if (slash < 0) return null;
  return { provider: model.slice(0, slash), modelId: model.slice(slash + 1) };
}

/** Entries by id; only `get` is needed, so a session can read entries back on demand. */
export type EntryLookup = Pick<ReadonlyMap<string, SessionEntry>, 'get'>;

/**
 * The entries from the root to `leaf`, root first. A parent missing from `byId` ends the walk
 * (an orphan contributes itself and its descendants); a parent already on the path ends it too,
 * so a corrupt file with a parent cycle cannot hang the walk.
 */
export function pathToRoot(leaf: SessionEntry, byId: EntryLookup): SessionEntry[] {
  const path: SessionEntry[] = [];
  const seen = new Set<string>();
  let current: SessionEntry | undefined = leaf;
  while (current && !seen.has(current.id)) {
    seen.add(current.id);
    path.push(current);
    // An empty-string parentId ends the walk like null, as in the reference.
    current = current.parentId ? byId.get(current.parentId) : undefined;
  }
  // push + reverse instead of unshift: unshift is quadratic on a 200,000-entry chain.
  path.reverse();
  return path;
}

function timestampOf(entry: SessionEntry): number {
  return Date.parse(entry.timestamp);
}

/** A custom_message entry as the `custom` message the model receives. */
export function customMessageFromEntry(entry: SessionEntry): CustomMessage {
  return {
    role: 'custom',
    customType: entry.customType as string,
    content: entry.content as CustomMessage['content'],
    display: entry.display as boolean,
    details: entry.details,
    timestamp: timestampOf(entry),
  };
}

/** A branch_summary entry as a `branchSummary` message (emitted even when the summary is empty). */
export function branchSummaryMessageFromEntry(entry: SessionEntry): BranchSummaryMessage {
  return {
    role: 'branchSummary',
    summary: typeof entry.summary === 'string' ? entry.summary : '',
    fromId: entry.fromId as string,
    timestamp: timestampOf(entry),
  };
}

/** A compaction entry as a `compactionSummary` message. */
export function compactionSummaryMessageFromEntry(entry: SessionEntry): CompactionSummaryMessage {
  return {
    role: 'compactionSummary',
    summary: typeof entry.summary === 'string' ? entry.summary : '',
    tokensBefore: entry.tokensBefore as number,
    timestamp: timestampOf(entry),
  };
}

/**
 * [OMP] The context message an entry contributes, if any (oh-my-pi 18.3.4): a message entry's message
 * as-is, a custom_message as a `custom` message, a branch_summary with a non-empty summary as a
 * `branchSummary` message. Every other entry type contributes nothing.
 */
export function contextMessageOf(entry: SessionEntry): AgentMessage | undefined {
  const rule: ContextRule = entrySpecOf(entry.type)?.context ?? 'none';
  switch (rule) {
    case 'message':
      return isRecord(entry.message) ? (entry.message as AgentMessage) : undefined;
    case 'custom-message':
      return customMessageFromEntry(entry);
    case 'branch-summary':
      return typeof entry.summary === 'string' && entry.summary
        ? branchSummaryMessageFromEntry(entry)
        : undefined;
    // The compaction's summary is emitted by the compaction rule itself (emitCompacted).
    case 'compaction':
    case 'edit':
    case 'setting':
    case 'reset':
    case 'none':
      return undefined;
    default:
      return unhandled(rule);
  }
}

/** Roles whose `content` a message entry may lack in a hand-edited file; pi 1.x sends them empty. */
const CONTENT_ROLES: ReadonlySet<unknown> = new Set(['user', 'assistant', 'toolResult']);

/**
 * The messages an entry contributes to the context as pi 1.x reads it (its
 * `sessionEntryToContextMessages`): a message entry's message (a missing `content` sent as empty), a
 * custom_message as a `custom` message, a branch_summary with a non-empty summary, a compaction as its
 * stored system message (if any) and its summary. Every other entry type contributes nothing.
 */
export function contextMessagesOf(entry: SessionEntry): AgentMessage[] {
  const rule: ContextRule = entrySpecOf(entry.type)?.context ?? 'none';
  switch (rule) {
    case 'message': {
      const message = entry.message;
      if (!isRecord(message)) return [];
      if (message.content == null) {
        if (message.role === 'system') return [{ ...message, content: '' } as AgentMessage];
        if (CONTENT_ROLES.has(message.role)) return [{ ...message, content: [] } as unknown as AgentMessage];
      }
      return [message as AgentMessage];
    }
    case 'custom-message': {
      const custom = customMessageFromEntry(entry);
      return [custom.content == null ? { ...custom, content: [] } : custom];
    }
    case 'branch-summary':
      return typeof entry.summary === 'string' && entry.summary ? [branchSummaryMessageFromEntry(entry)] : [];
    case 'compaction': {
      const summary = compactionSummaryMessageFromEntry(entry);
      return entry.systemMessage ? [entry.systemMessage as AgentMessage, summary] : [summary];
    }
    case 'edit':
    case 'setting':
    case 'reset':
    case 'none':
      return [];
    default:
      return unhandled(rule) ?? [];
  }
}

/** The roles whose content a context edit replaces (pi 1.x's `projectContextEntry`). */
const EDITABLE_ROLES: ReadonlySet<unknown> = new Set(['user', 'assistant', 'toolResult', 'custom']);
/** Roles that carry content as blocks only: a string replacement becomes one text block. */
const BLOCK_ONLY_ROLES: ReadonlySet<unknown> = new Set(['assistant', 'toolResult']);

/**
 * The messages `entry` contributes with the context edit `edit` applied (docs/tree-and-context.md#context-edits):
 * a `null` replacement leaves the entry out; a `{content}` one replaces the content of each editable
 * message (a string becomes one text block for an assistant or tool result) and keeps the rest. An edit
 * whose replacement is neither (a damaged line, which pi 1.x cannot apply either) changes nothing.
 */
export function projectContextEntry(entry: SessionEntry, edit?: SessionEntry): AgentMessage[] {
  const messages = contextMessagesOf(entry);
  if (!edit) return messages;
  const replacement = edit.replacement;
  if (replacement === null) return [];
  if (!isRecord(replacement)) return messages;
  const content = replacement.content;
  return messages.map((message) => {
    if (!EDITABLE_ROLES.has(message.role)) return message;
    const replaced =
      BLOCK_ONLY_ROLES.has(message.role) && typeof content === 'string' ? [textBlock(content)] : content;
    return { ...message, content: replaced } as AgentMessage;
  });
}

/**
 * pi 1.x's replay of every system message among `messages` into one (pi-ai's `getCurrentSystemMessage`):
 * the texts joined by blank lines, the sections patched by name (`null` removes one), the tools added
 * and removed by name, the first one's timestamp. Undefined when there is no system message and no tool.
 */
export function currentSystemMessage(messages: readonly AgentMessage[]): SystemMessage | undefined {
  const content: string[] = [];
  const sections = new Map<string, string>();
  const tools = new Map<string, ToolDeclaration>();
  let timestamp: unknown;
  for (const message of messages) {
    if (!isRecord(message) || message.role !== 'system') continue;
    const system = message as SystemMessage;
    timestamp ??= system.timestamp;
    const text = contentText(system.content, { separator: '\n' });
    if (text.length > 0) content.push(text);
    if (isRecord(system.sections)) {
      for (const [name, value] of Object.entries(system.sections)) {
        if (value === null) sections.delete(name);
        else sections.set(name, value);
      }
    }
    for (const tool of Array.isArray(system.toolsRemoved) ? system.toolsRemoved : [])
      if (isRecord(tool)) tools.delete(tool.name as string);
    for (const tool of Array.isArray(system.toolsAdded) ? system.toolsAdded : [])
      if (isRecord(tool)) tools.set(tool.name as string, tool);
  }
  if (timestamp === undefined && tools.size === 0) return undefined;
  // Keys in pi's order.
  return {
    role: 'system',
    content: content.join('\n\n'),
    ...(sections.size > 0 ? { sections: Object.fromEntries(sections) } : {}),
    ...(tools.size > 0 ? { toolsAdded: [...tools.values()] } : {}),
    timestamp: (timestamp ?? 0) as number,
  };
}

/** Whether an entry is a `message` holding a system message (pi 1.x). */
function isSystemMessageEntry(entry: SessionEntry): boolean {
  return entry.type === 'message' && isRecord(entry.message) && entry.message.role === 'system';
}

/**
 * The entries of `path` the model context is made of, as pi 1.x chooses them (its
 * `buildContextEntries`): the whole path without a compaction; with one, the latest compaction, then
 * the entries it keeps (from `firstKeptEntryId` up to it, system messages left out: the compaction's
 * own system message stands for them), then everything after it.
 */
export function buildContextEntries(path: readonly SessionEntry[]): SessionEntry[] {
  let compactionIndex = -1;
  for (let i = 0; i < path.length; i++)
    if ((path[i] as SessionEntry).type === 'compaction') compactionIndex = i;
  if (compactionIndex < 0) return path.slice();
  const compaction = path[compactionIndex] as SessionEntry;
  const entries: SessionEntry[] = [compaction];
  let keeping = false;
  for (let i = 0; i < compactionIndex; i++) {
    const entry = path[i] as SessionEntry;
    if (entry.id === compaction.firstKeptEntryId) keeping = true;
    if (keeping && !isSystemMessageEntry(entry)) entries.push(entry);
  }
  for (let i = compactionIndex + 1; i < path.length; i++) entries.push(path[i] as SessionEntry);
  return entries;
}

/**
 * The context edit that applies to each target among `entries` (the context's entries, or the entries
 * a summary is made of): the last one in order, since the latest edit on a path wins.
 */
export function contextEditsOf(entries: readonly SessionEntry[]): Map<string, SessionEntry> {
  const edits = new Map<string, SessionEntry>();
  for (const entry of entries) {
    if (entry.type === 'context_edit' && typeof entry.targetId === 'string') edits.set(entry.targetId, entry);
  }
  return edits;
}

/**
 * pi 1.x's messages of a path (its `buildSessionProjection`): the context entries, each projected with
 * the latest edit of it among them. A compaction kept inside the latest one's range adds nothing.
 */
function piContextMessages(path: readonly SessionEntry[]): AgentMessage[] {
  const entries = buildContextEntries(path);
  const edits = contextEditsOf(entries);
  const messages: AgentMessage[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as SessionEntry;
    if (entry.type === 'compaction' && i > 0) continue;
    for (const message of projectContextEntry(entry, edits.get(entry.id))) messages.push(message);
  }
  return messages;
}

export interface BuildContextOptions {
  /**
   * Whose rules to follow; default 'pi'. oh-my-pi (18.3.4, `session-context.ts`) differs: an explicit
   * default model_change is not overridden by later assistant messages; a reset_boundary (`/clear`)
   * after the latest compaction starts the context after it; empty error turns are skipped; tool
   * calls without a result on the path are stripped; aborted and error turns are dropped with their
   * tool results. See docs/oh-my-pi.md.
   */
  dialect?: Dialect;
}

/**
 * The context the model receives at `leafId`:
 * - `leafId === null` → the empty context (navigated to before the first entry);
 * - `leafId` found → that entry; otherwise (undefined, "" or unknown) → the last entry;
 * - no entries → the empty context.
 * Settings (thinking level, model in both shapes, ttsr rules, mode) come from the whole path;
 * the last compaction on the path emits its summary, then the kept entries from its
 * `firstKeptEntryId` up to it, then everything after it. A pi file follows pi 1.x
 * (docs/tree-and-context.md#context): the compaction's stored system message leads its summary, system
 * messages it keeps are left out, and the latest context edit of each entry among those applies.
 */
export function buildSessionContext(
  entries: readonly SessionEntry[],
  leafId?: string | null,
  byId?: EntryLookup,
  options?: BuildContextOptions,
): SessionContext {
  const omp = options?.dialect === 'omp';
  if (leafId === null) return emptyContext();
  let index: EntryLookup | undefined = byId;
  if (!index) {
    const built = new Map<string, SessionEntry>();
    for (const entry of entries) built.set(entry.id, entry);
    index = built;
  }
  let leaf: SessionEntry | undefined = leafId ? index.get(leafId) : undefined;
  if (!leaf) leaf = entries[entries.length - 1];
  if (!leaf) return emptyContext();

  const path = pathToRoot(leaf, index);

  const context = emptyContext();
  const models: Record<string, string> = context.models;
  const ttsrRules = new Set<string>();
  let compactionIndex = -1;
  let resetIndex = -1;
  // oh-my-pi: once an explicit default model_change is on the path, assistant messages no longer
  // override it (a retry fallback answers under another model id).
  let explicitDefaultModel = false;

  for (let i = 0; i < path.length; i++) {
    const entry = path[i] as SessionEntry;
    switch (entry.type) {
      case 'thinking_level_change':
        // oh-my-pi writes null for "inherit"; it restores as "off".
        context.thinkingLevel = typeof entry.thinkingLevel === 'string' ? entry.thinkingLevel : 'off';
        break;
      case 'model_change': {
        if (typeof entry.model === 'string' && entry.model) {
          // oh-my-pi shape: "provider/id" by role.
          const role = typeof entry.role === 'string' ? entry.role : 'default';
          models[role] = entry.model;
          if (role === 'default') {
            explicitDefaultModel = true;
            const split = splitModelString(entry.model);
            if (split) context.model = split;
          }
        } else if (typeof entry.provider === 'string' || typeof entry.modelId === 'string') {
          // pi shape: {provider, modelId}; mirrored into the oh-my-pi map so both shapes are present.
          const provider = typeof entry.provider === 'string' ? entry.provider : '';
          const modelId = typeof entry.modelId === 'string' ? entry.modelId : '';
          context.model = { provider, modelId };
          models.default = `${provider}/${modelId}`;
        }
        break;
      }
      case 'message': {
        const message = entry.message;
        // A later assistant message overrides an earlier model_change (pi and oh-my-pi 5.x).
        if (isRecord(message) && message.role === 'assistant' && !(omp && explicitDefaultModel)) {
          const { provider, model } = message as Partial<AssistantMessage>;
          if (typeof provider === 'string' && typeof model === 'string') {
            context.model = { provider, modelId: model };
            models.default = `${provider}/${model}`;
          }
        }
        break;
      }
      case 'compaction':
        compactionIndex = i;
        break;
      case 'reset_boundary':
        resetIndex = i;
        break;
      case 'service_tier_change':
        context.serviceTier = isRecord(entry.serviceTier)
          ? (entry.serviceTier as Record<string, string>)
          : null;
        break;
      case 'ttsr_injection':
        if (Array.isArray(entry.injectedRules)) {
          for (const rule of entry.injectedRules as unknown[])
            if (typeof rule === 'string') ttsrRules.add(rule);
        }
        break;
      case 'mode_change':
        context.mode = typeof entry.mode === 'string' ? entry.mode : 'none';
        if (isRecord(entry.data) && !Array.isArray(entry.data)) context.modeData = entry.data;
        else delete context.modeData;
        break;
    }
  }
  context.injectedTtsrRules = [...ttsrRules];

  if (!omp) {
    context.messages = piContextMessages(path);
    return context;
  }
  const messages = context.messages;
  const emit = (entry: SessionEntry): void => {
    const message = contextMessageOf(entry);
    if (!message) return;
    if (isSkippedOmpTurn(message)) return;
    messages.push(message);
  };

  if (resetIndex > compactionIndex) {
    // `/clear` after the latest compaction: only what follows the boundary counts.
    for (let i = resetIndex + 1; i < path.length; i++) emit(path[i] as SessionEntry);
  } else if (compactionIndex < 0) {
    for (const entry of path) emit(entry);
  } else {
    emitCompacted(path, compactionIndex, messages, emit);
  }
  stripDanglingToolCalls(messages);
  dropFailedTurns(messages);
  return context;
}

/** [OMP] The latest compaction's summary, the entries it keeps, then everything after it. */
function emitCompacted(
  path: readonly SessionEntry[],
  compactionIndex: number,
  messages: AgentMessage[],
  emit: (entry: SessionEntry) => void,
): void {
  const compaction = path[compactionIndex] as SessionEntry;
  messages.push(compactionSummaryMessageFromEntry(compaction));
  const firstKept = compaction.firstKeptEntryId;
  let keeping = false;
  for (let i = 0; i < compactionIndex; i++) {
    const entry = path[i] as SessionEntry;
    if (!keeping && entry.id === firstKept) keeping = true;
    if (keeping) emit(entry);
  }
  for (let i = compactionIndex + 1; i < path.length; i++) emit(path[i] as SessionEntry);
}

/** [OMP] The custom message type that keeps an interrupted turn in the context. */
const INTERRUPTED_THINKING_TYPE = 'interrupted-thinking';

function blocksOf(message: AgentMessage): Record<string, unknown>[] {
  const content = (message as { content?: unknown }).content;
  return Array.isArray(content) ? (content as unknown[]).filter(isRecord) : [];
}

function nonBlank(value: unknown): boolean {
  return typeof value === 'string' && value.trim().length > 0;
}

/**
 * [OMP] An assistant turn oh-my-pi never replays: a retry-recovery marker, or an error turn with
 * nothing in it (no text, thinking, tool call or unknown block).
 */
function isSkippedOmpTurn(message: AgentMessage): boolean {
  if (message.role !== 'assistant') return false;
  if ((message as { retryRecovery?: unknown }).retryRecovery) return true;
  if ((message as { stopReason?: unknown }).stopReason !== 'error') return false;
  return !blocksOf(message).some((block) => {
    switch (block.type) {
      case 'text':
        return nonBlank(block.text);
      case 'thinking':
        return nonBlank(block.thinking) || nonBlank(block.thinkingSignature);
      case 'redactedThinking':
        return nonBlank(block.data);
      case 'fallback':
        return false;
      default:
        return true;
    }
  });
}

/**
 * [OMP] Tool calls without a tool result on the path are removed from their assistant turn (as
 * oh-my-pi does, so the provider is not sent a call with no answer). A rewritten turn also loses
 * its redacted thinking and its thinking signatures; a turn left empty is dropped.
 */
function stripDanglingToolCalls(messages: AgentMessage[]): void {
  const answered = new Set<string>();
  for (const message of messages) {
    if (message.role === 'toolResult') {
      const id = (message as { toolCallId?: unknown }).toolCallId;
      if (typeof id === 'string') answered.add(id);
    }
  }
  const dangling = (block: Record<string, unknown>): boolean =>
    block.type === 'toolCall' && !(typeof block.id === 'string' && answered.has(block.id));
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as AgentMessage;
    if (message.role !== 'assistant') continue;
    const blocks = blocksOf(message);
    if (!blocks.some(dangling)) continue;
    const kept = blocks
      .filter((block) => !dangling(block) && block.type !== 'redactedThinking')
      .map((block) => {
        if (block.type !== 'thinking' || !block.thinkingSignature) return block;
        const copy = { ...block };
        delete copy.thinkingSignature;
        return copy;
      });
    if (kept.length === 0) messages.splice(i, 1);
    else messages[i] = { ...message, content: kept } as AgentMessage;
  }
}

/**
 * [OMP] Aborted and error assistant turns are not replayed, and neither are the tool results that
 * answer their calls, unless the next message is the interrupted-thinking note that keeps them.
 */
function dropFailedTurns(messages: AgentMessage[]): void {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as AgentMessage;
    if (message.role !== 'assistant') continue;
    const stopReason = (message as { stopReason?: unknown }).stopReason;
    if (stopReason !== 'aborted' && stopReason !== 'error') continue;
    const next = messages[i + 1] as Record<string, unknown> | undefined;
    if (next?.role === 'custom' && next.customType === INTERRUPTED_THINKING_TYPE) continue;
    const callIds = new Set<string>();
    for (const block of blocksOf(message)) {
      if (block.type === 'toolCall' && typeof block.id === 'string') callIds.add(block.id);
    }
    messages.splice(i, 1);
    if (callIds.size === 0) continue;
    for (let j = messages.length - 1; j >= i; j--) {
      const candidate = messages[j] as Record<string, unknown>;
      if (
        candidate.role === 'toolResult' &&
        typeof candidate.toolCallId === 'string' &&
        callIds.has(candidate.toolCallId)
      ) {
        messages.splice(j, 1);
      }
    }
  }
}

// ---------------------------------------------------------------- LLM wire form

/** A message as sent to the model: these roles exist on the wire (system only for pi 1.x, developer only for oh-my-pi). */
export type LlmMessage =
  SystemMessage | UserMessage | AssistantMessage | ToolResultMessage | DeveloperMessage;

export interface ConvertOptions {
  /** oh-my-pi 18.3.4 sends @-mentioned text files as a developer message without a reminder wrapper. */
  dialect?: Dialect;
}

export const COMPACTION_SUMMARY_LEAD_IN =
  'The conversation history before this point was compacted into the following summary:';
export const BRANCH_SUMMARY_LEAD_IN =
  'The following is a summary of a branch that this conversation came back from:';

export const COMPACTION_SUMMARY_PREFIX = `${COMPACTION_SUMMARY_LEAD_IN}\n\n<summary>\n`;
/** Unlike the branch form, the compaction form has a newline before the closing tag. */
export const COMPACTION_SUMMARY_SUFFIX = '\n</summary>';
export const BRANCH_SUMMARY_PREFIX = `${BRANCH_SUMMARY_LEAD_IN}\n\n<summary>\n`;
export const BRANCH_SUMMARY_SUFFIX = '</summary>';

/** The user-message text a `!command` run becomes. */
export function bashExecutionToText(
  message: Pick<
    BashExecutionMessage,
    'command' | 'output' | 'cancelled' | 'exitCode' | 'truncated' | 'fullOutputPath'
  >,
): string {
  let text = `Ran \`${message.command}\`\n`;
  text += message.output ? `\`\`\`\n${message.output}\n\`\`\`` : '(no output)';
  if (message.cancelled) {
    text += '\n\n(command cancelled)';
  } else if (message.exitCode !== null && message.exitCode !== undefined && message.exitCode !== 0) {
    text += `\n\nCommand exited with code ${message.exitCode}`;
  }
  if (message.truncated && message.fullOutputPath) {
    text += `\n\n[Output truncated. Full output: ${message.fullOutputPath}]`;
  }
  return text;
}

export function branchSummaryToText(summary: string): string {
  return BRANCH_SUMMARY_PREFIX + summary + BRANCH_SUMMARY_SUFFIX;
}

export function compactionSummaryToText(summary: string): string {
  return COMPACTION_SUMMARY_PREFIX + summary + COMPACTION_SUMMARY_SUFFIX;
}

/** [OMP] The system reminder that @-mentioned files become: one `<file path="…">` block per file. */
export function fileMentionToText(files: FileMentionMessage['files']): string {
  const blocks = (Array.isArray(files) ? files : []).map((file) => {
    const content = isRecord(file) && typeof file.content === 'string' ? file.content : '';
    const path = isRecord(file) && typeof file.path === 'string' ? file.path : '';
    return `<file path="${path}">${content ? `\n${content}\n` : '\n'}</file>`;
  });
  return `<system-reminder>\n${blocks.join('\n\n')}\n</system-reminder>`;
}

function textBlock(text: string): TextContent {
  return { type: 'text', text };
}

function customContentBlocks(content: unknown): UserContentBlock[] {
  if (typeof content === 'string') return [textBlock(content)];
  return Array.isArray(content) ? (content as UserContentBlock[]) : [];
}

function summaryOf(message: Record<string, unknown>): string {
  return typeof message.summary === 'string' ? message.summary : '';
}

/** [OMP] The user-message text a Python cell run becomes (oh-my-pi's `pythonExecutionToText`). */
export function pythonExecutionToText(
  message: Pick<PythonExecutionMessage, 'code' | 'output' | 'cancelled' | 'exitCode'>,
): string {
  let text = `Ran Python:\n\`\`\`python\n${message.code}\n\`\`\`\n`;
  text += message.output ? `Output:\n\`\`\`\n${message.output}\n\`\`\`` : '(no output)';
  if (message.cancelled) {
    text += '\n\n(execution cancelled)';
  } else if (message.exitCode !== null && message.exitCode !== undefined && message.exitCode !== 0) {
    text += `\n\nExecution failed with code ${message.exitCode}`;
  }
  return text;
}

function fileMentionFiles(message: AgentMessage): Record<string, unknown>[] {
  const files = (message as { files?: unknown }).files;
  return Array.isArray(files) ? (files as unknown[]).filter(isRecord) : [];
}

function fileBlock(file: Record<string, unknown>): string {
  const content = typeof file.content === 'string' ? file.content : '';
  const path = typeof file.path === 'string' ? file.path : '';
  return `<file path="${path}">${content ? `\n${content}\n` : '\n'}</file>`;
}

/**
 * [OMP] oh-my-pi 18.3.4: text files go in a developer message, image files (their text block, then
 * the images) in a user message.
 */
function ompFileMentionToLlm(message: AgentMessage, timestamp: number): LlmMessage[] {
  const files = fileMentionFiles(message);
  const textFiles = files.filter((file) => !isRecord(file.image));
  const imageFiles = files.filter((file) => isRecord(file.image));
  const out: LlmMessage[] = [];
  if (textFiles.length > 0) {
    out.push({
      role: 'developer',
      content: [textBlock(textFiles.map(fileBlock).join('\n'))],
      timestamp,
    });
  }
  if (imageFiles.length > 0) {
    const content: UserContentBlock[] = [textBlock(imageFiles.map(fileBlock).join('\n'))];
    for (const file of imageFiles) content.push(file.image as ImageContent);
    out.push({ role: 'user', content, timestamp });
  }
  return out;
}

/** One context message in wire form, or undefined when it never reaches the model. */
export function messageToLlm(message: AgentMessage, options?: ConvertOptions): LlmMessage | undefined {
  return messageToLlmList(message, options)[0];
}

/** One context message in wire form: none, one, or (an oh-my-pi file mention) two messages. */
function messageToLlmList(message: AgentMessage, options?: ConvertOptions): LlmMessage[] {
  if (!isRecord(message)) return [];
  if (message.role === 'fileMention' && options?.dialect === 'omp') {
    return ompFileMentionToLlm(message, message.timestamp as number);
  }
  if (options?.dialect !== 'omp') {
    // pi 1.x sends stored system messages as they are (the provider layer folds them).
    if (message.role === 'system') return [message as LlmMessage];
  } else {
    if (message.role === 'developer') return [message as LlmMessage];
    if (message.role === 'pythonExecution') {
      const python = message as PythonExecutionMessage;
      if (python.excludeFromContext) return [];
      const text = pythonExecutionToText(python);
      return [{ role: 'user', content: [textBlock(text)], timestamp: message.timestamp as number }];
    }
  }
  const converted = singleMessageToLlm(message);
  return converted ? [converted] : [];
}

/** The roles a context holds: every stored one of the entry-type table, and the two made from entries. */
type ContextRole = KnownRole | 'branchSummary' | 'compactionSummary';

function singleMessageToLlm(message: AgentMessage): LlmMessage | undefined {
  if (!isRecord(message)) return undefined;
  const timestamp = message.timestamp as number;
  // Every role of the table is handled below (the compiler checks it); others reach the default.
  const role = message.role as ContextRole;
  switch (role) {
    case 'user':
    case 'assistant':
    case 'toolResult':
      return message as LlmMessage;
    case 'developer':
    case 'pythonExecution':
      // Only oh-my-pi sends these two; pi drops roles it does not know.
      return undefined;
    case 'system':
      // Only pi 1.x sends it (messageToLlmList); oh-my-pi has no stored system messages.
      return undefined;
    case 'bashExecution': {
      const bash = message as BashExecutionMessage;
      // The `!!` prefix runs a command without showing it to the model.
      if (bash.excludeFromContext) return undefined;
      return { role: 'user', content: [textBlock(bashExecutionToText(bash))], timestamp };
    }
    case 'custom':
    case 'hookMessage':
      return { role: 'user', content: customContentBlocks(message.content), timestamp };
    case 'branchSummary':
      return {
        role: 'user',
        content: [textBlock(branchSummaryToText(summaryOf(message)))],
        timestamp,
      };
    case 'compactionSummary':
      return {
        role: 'user',
        content: [textBlock(compactionSummaryToText(summaryOf(message)))],
        timestamp,
      };
    case 'fileMention': {
      const files = (message as FileMentionMessage).files;
      const content: UserContentBlock[] = [textBlock(fileMentionToText(files))];
      // Image files travel as image blocks after the reminder text.
      if (Array.isArray(files)) {
        for (const file of files as unknown[]) {
          if (isRecord(file) && isRecord(file.image)) content.push(file.image as ImageContent);
        }
      }
      return { role: 'user', content, timestamp };
    }
    default:
      // Roles this version does not know are not sent.
      return unhandled(role);
  }
}

/** The default of a switch that handles every known case: `value` is `never` unless one is missing. */
function unhandled(value: never): undefined {
  void value;
  return undefined;
}

/** The context messages in wire form, order kept, messages that never reach the model dropped. */
export function convertToLlm(messages: readonly AgentMessage[], options?: ConvertOptions): LlmMessage[] {
  const result: LlmMessage[] = [];
  for (const message of messages) result.push(...messageToLlmList(message, options));
  return result;
}

/** Sum of the per-message estimates (ceil(chars / 4) each) of a context. */
export function estimateContextTokens(messages: readonly AgentMessage[], dialect?: Dialect): number {
  let total = 0;
  for (const message of messages) total += estimateTokens(message, dialect);
  return total;
}

/**
 * One wire message as plain text, as the "what the model sees" view lists it: the text blocks, then a
 * line per thinking block, tool call and image; a pi 1.x system message as its prompt (its text and its
 * sections, as pi renders it) and its tool changes.
 */
export function llmText(message: LlmMessage): string {
  const m = message as Record<string, unknown>;
  if (m.role === 'system') return systemMessageText(m);
  if (typeof m.content === 'string') return m.content;
  if (!Array.isArray(m.content)) return '';
  const parts: string[] = [];
  for (const block of m.content as unknown[]) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
    else if (block.type === 'thinking' && typeof block.thinking === 'string')
      parts.push(`[thinking] ${block.thinking}`);
    else if (block.type === 'toolCall')
      parts.push(`[tool call] ${String(block.name)}(${argumentsText(block.arguments)})`);
    else if (block.type === 'image') parts.push('[image]');
  }
  return parts.join('\n');
}

/** Words shown for tool call arguments nested too deep for `JSON.stringify` (a hostile or broken file). */
export const ARGUMENTS_TOO_DEEP = '[arguments nested too deep to show]';

/**
 * A tool call's arguments as JSON text. A file may hold arguments nested thousands of levels deep;
 * `JSON.stringify` then overflows the stack, and one such call must not make the whole context unreadable.
 */
function argumentsText(args: unknown): string {
  try {
    return JSON.stringify(args ?? {});
  } catch (error) {
    if (error instanceof RangeError) return ARGUMENTS_TOO_DEEP;
    throw error;
  }
}

/** A system message's prompt (text, then the sections it sets; pi-ai's `getSystemMessageText`) and tools. */
function systemMessageText(message: Record<string, unknown>): string {
  const parts = [contentText(message.content, { separator: '\n' })];
  const removed: string[] = [];
  if (isRecord(message.sections)) {
    for (const [name, text] of Object.entries(message.sections)) {
      if (typeof text === 'string') parts.push(text);
      else removed.push(name);
    }
  }
  const prompt = parts.filter((part) => part.length > 0);
  const names = (value: unknown) =>
    (Array.isArray(value) ? (value as unknown[]) : []).filter(isRecord).map((tool) => String(tool.name));
  const added = names(message.toolsAdded);
  const gone = names(message.toolsRemoved);
  if (removed.length > 0) prompt.push(`[sections removed] ${removed.join(', ')}`);
  if (added.length > 0) prompt.push(`[tools added] ${added.join(', ')}`);
  if (gone.length > 0) prompt.push(`[tools removed] ${gone.join(', ')}`);
  return prompt.join('\n\n');
}
