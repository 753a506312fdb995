// What the model sees: the active path turned into messages (buildSessionContext) and those
// messages turned into the LLM wire form (convertToLlm), for both dialects (pi and oh-my-pi).

import { estimateTokens, isRecord } from './text';
import type {
  AgentMessage,
  AssistantMessage,
  BashExecutionMessage,
  BranchSummaryMessage,
  CompactionSummaryMessage,
  CustomMessage,
  FileMentionMessage,
  ImageContent,
  SessionContext,
  SessionEntry,
  TextContent,
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

/**
 * The entries from the root to `leaf`, root first. A parent missing from `byId` ends the walk
 * (an orphan contributes itself and its descendants); a parent already on the path ends it too,
 * so a corrupt file with a parent cycle cannot hang the walk.
 */
export function pathToRoot(leaf: SessionEntry, byId: ReadonlyMap<string, SessionEntry>): SessionEntry[] {
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
 * The context message an entry contributes, if any: a message entry's message as-is, a
 * custom_message as a `custom` message, a branch_summary with a non-empty summary as a
 * `branchSummary` message. Every other entry type contributes nothing.
 */
export function contextMessageOf(entry: SessionEntry): AgentMessage | undefined {
  switch (entry.type) {
    case 'message':
      return isRecord(entry.message) ? (entry.message as AgentMessage) : undefined;
    case 'custom_message':
      return customMessageFromEntry(entry);
    case 'branch_summary':
      return typeof entry.summary === 'string' && entry.summary
        ? branchSummaryMessageFromEntry(entry)
        : undefined;
    default:
      return undefined;
  }
}

/**
 * The context the model receives at `leafId`:
 * - `leafId === null` → the empty context (navigated to before the first entry);
 * - `leafId` found → that entry; otherwise (undefined, "" or unknown) → the last entry;
 * - no entries → the empty context.
 * Settings (thinking level, model in both shapes, ttsr rules, mode) come from the whole path;
 * the last compaction on the path emits its summary, then the kept entries from its
 * `firstKeptEntryId` up to it, then everything after it.
 */
export function buildSessionContext(
  entries: readonly SessionEntry[],
  leafId?: string | null,
  byId?: ReadonlyMap<string, SessionEntry>,
): SessionContext {
  if (leafId === null) return emptyContext();
  let index = byId;
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
        if (isRecord(message) && message.role === 'assistant') {
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

  const messages = context.messages;
  const emit = (entry: SessionEntry): void => {
    const message = contextMessageOf(entry);
    if (message) messages.push(message);
  };

  if (compactionIndex < 0) {
    for (const entry of path) emit(entry);
    return context;
  }

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
  return context;
}

// ---------------------------------------------------------------- LLM wire form

/** A message as sent to the model: only these three roles exist on the wire. */
export type LlmMessage = UserMessage | AssistantMessage | ToolResultMessage;

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

/** One context message in wire form, or undefined when it never reaches the model. */
export function messageToLlm(message: AgentMessage): LlmMessage | undefined {
  if (!isRecord(message)) return undefined;
  const timestamp = message.timestamp as number;
  switch (message.role) {
    case 'user':
    case 'assistant':
    case 'toolResult':
      return message as LlmMessage;
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
      // Roles this version does not know (developer, pythonExecution, …) are not sent.
      return undefined;
  }
}

/** The context messages in wire form, order kept, messages that never reach the model dropped. */
export function convertToLlm(messages: readonly AgentMessage[]): LlmMessage[] {
  const result: LlmMessage[] = [];
  for (const message of messages) {
    const converted = messageToLlm(message);
    if (converted) result.push(converted);
  }
  return result;
}

/** Sum of the per-message estimates (ceil(chars / 4) each) of a context. */
export function estimateContextTokens(messages: readonly AgentMessage[]): number {
  let total = 0;
  for (const message of messages) total += estimateTokens(message);
  return total;
}
