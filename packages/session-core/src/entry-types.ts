// The entry-type table: the one place where an entry type of the session format (and a message role
// of `message` entries) is declared, with everything Canopy does with it: who writes it (the file's
// dialect and era), its tree row and searchable text (docs/tree-and-context.md#row-text, #search), its
// filter rule (#filters), what it adds to the model context (#context), the usage it adds to the
// totals, its colour kind, and the sections of its detail. Everything else dispatches through this
// table, with exhaustive cases the compiler checks (`satisfies Record<…>`, `never`), so a new type
// is a new row here and the compiler names every other place that must handle a new rule.
// One file because that is the point: a type's facts are read together, top to bottom.
// Session files are user data written by other programs: every function tolerates malformed shapes.

import type {
  BranchSummaryOrigin,
  DetailExtras,
  DetailField,
  DetailSection,
  NestedCallItem,
} from './detail-sections';
import { contentText, hasTextContent, isRecord } from './text';
import {
  capLength,
  capRow,
  finiteNumber,
  formatToolCall,
  hasImage,
  normalize,
  preview,
  str,
  ViewFlags,
  type RowTextOptions,
  type ToolCallLookup,
  type UnknownRecord,
} from './tree-view/row-format';
import type { Dialect, SessionEntry } from './types';

// ---------------------------------------------------------------- the vocabulary of the table

/** Who writes a type or role: both agents, only pi 1.x (dates a pi file), or only oh-my-pi (marks its files). */
export type EntryWriter = 'both' | 'pi' | 'pi-1' | 'omp';

/**
 * How the tree's filter modes treat an entry type (docs/tree-and-context.md#filters): a conversation
 * entry is shown by `default`; bookkeeping is hidden by `default` and `no-tools`; `never` is hidden in
 * every mode, even as the leaf (pi 1.x's `usage`).
 */
export type FilterRule = 'conversation' | 'bookkeeping' | 'never';

/**
 * What an entry type adds to the model context (docs/tree-and-context.md#context): its stored message,
 * a custom message, a branch summary, a compaction's summary (and system message), an edit of another
 * entry's contribution, a setting read from the path, oh-my-pi's context reset, or nothing.
 */
export type ContextRule =
  'message' | 'custom-message' | 'branch-summary' | 'compaction' | 'edit' | 'setting' | 'reset' | 'none';

/** A coarse kind per entry, for colours and badges (not for filtering). */
export type EntryKind = 'user' | 'assistant' | 'tool' | 'summary' | 'settings' | 'custom' | 'other';

/** What a row needs besides the entry: the session's tool calls and the display options. */
export interface RowContext {
  toolCalls: ToolCallLookup;
  options: RowTextOptions | undefined;
}

interface EntryTypeSpec {
  writer: EntryWriter;
  filter: FilterRule;
  context: ContextRule;
  /** The colour kind; a `message` entry's is its role's. */
  kind: EntryKind;
  /** The row text, one line, capped (docs/tree-and-context.md#row-text). */
  row(entry: UnknownRecord, context: RowContext): string;
  /** The searchable parts after the label (joined with spaces, lower-cased by the caller). */
  search(entry: UnknownRecord): string[];
  /** The usage object this entry adds to the session's totals, if any. */
  usage?(entry: UnknownRecord): unknown;
  /** Whether a field only pi 1.x writes is present (the file is then a pi 1.x one). */
  piOneFields?(entry: UnknownRecord): boolean;
  /** The sections of the entry's detail. */
  detail(entry: UnknownRecord, extras: DetailExtras): DetailSection[];
}

interface RoleSpec {
  writer: EntryWriter;
  kind: EntryKind;
  /** Which filter modes single the role out (user-only shows users, no-tools hides tool results). */
  filterRole?: 'user' | 'toolResult';
  row(message: UnknownRecord, context: RowContext): string;
  /** The {@link ViewFlags} of the message. */
  flags(message: UnknownRecord): number;
  usage?(message: UnknownRecord): unknown;
  piOneFields?(message: UnknownRecord): boolean;
  detail(message: UnknownRecord, extras: DetailExtras): DetailSection[];
}

// ---------------------------------------------------------------- helpers

function fields(entry: UnknownRecord, names: readonly string[]): DetailSection[] {
  const present: DetailField[] = [];
  for (const name of names) if (entry[name] !== undefined) present.push({ name, value: entry[name] });
  return present.length > 0 ? [{ kind: 'fields', fields: present }] : [];
}

function usageSection(value: unknown, title: string, testId = 'detail.usage'): DetailSection[] {
  return isRecord(value) && !Array.isArray(value) ? [{ kind: 'usage', title, usage: value, testId }] : [];
}

function json(title: string, value: unknown, testId?: string): DetailSection[] {
  if (value === undefined) return [];
  return [testId ? { kind: 'json', title, value, testId } : { kind: 'json', title, value }];
}

function extensionFlag(entry: UnknownRecord): boolean {
  return entry.fromExtension === true || entry.fromHook === true;
}

/** [OMP] `details.kind` of an empty-summary branch marker (e.g. "discarded-entry-branch"). */
export function branchMarkerKind(entry: UnknownRecord): string | undefined {
  const details = entry.details;
  if (!isRecord(details)) return undefined;
  return typeof details.kind === 'string' && details.kind !== '' ? details.kind : undefined;
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

/** "omit" or "replace": what a context_edit does to its target. */
function editAction(entry: UnknownRecord): 'omit' | 'replace' {
  return entry.replacement === null ? 'omit' : 'replace';
}

function has(record: UnknownRecord, names: readonly string[]): boolean {
  for (const name of names) if (record[name] !== undefined) return true;
  return false;
}

// ---------------------------------------------------------------- message roles

function assistantRowText(message: UnknownRecord): string {
  const text = normalize(preview(message.content));
  if (text) return `assistant: ${text}`;
  if (message.stopReason === 'aborted') return 'assistant: (aborted)';
  const error = str(message.errorMessage);
  if (error) return `assistant: ${normalize(error).slice(0, 80)}`;
  return 'assistant: (no content)';
}

function assistantFlags(message: UnknownRecord): number {
  let flags = 0;
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
  // docs/tree-and-context.md#filters: any stop reason other than "stop" and "toolUse" (length, error,
  // aborted, deferred, or one a newer agent invents) keeps the message visible.
  const errorOrAbort =
    typeof stopReason === 'string' && stopReason !== '' && stopReason !== 'stop' && stopReason !== 'toolUse';
  if (!hasTextContent(message.content) && !errorOrAbort) flags |= ViewFlags.ToolOnlyAssistant;
  return flags;
}

/** Fields only pi 1.x writes on an assistant message (0.73 already wrote responseModel, responseId, diagnostics). */
const PI_ONE_ASSISTANT_FIELDS = [
  'thinkingLevel',
  'providerThinkingLevel',
  'rawStopReason',
  'endTurn',
  'deferred',
  'durationMs',
];

function assistantDetail(message: UnknownRecord): DetailSection[] {
  const items: { text: string; mono?: boolean; testId?: string }[] = [
    { text: `${str(message.provider) ?? ''}/${str(message.model) ?? ''}`, mono: true },
  ];
  const responseModel = str(message.responseModel);
  if (responseModel && responseModel !== message.model)
    items.push({ text: `answered by ${responseModel}`, mono: true, testId: 'detail.response-model' });
  const stop = str(message.stopReason);
  if (stop) items.push({ text: `stop: ${stop}` });
  const raw = str(message.rawStopReason);
  if (raw && raw !== stop) items.push({ text: `provider stop: ${raw}`, mono: true });
  const thinking = str(message.thinkingLevel);
  if (thinking) items.push({ text: `thinking: ${thinking}`, testId: 'detail.thinking-level' });
  const providerThinking = str(message.providerThinkingLevel);
  if (providerThinking) items.push({ text: `provider effort: ${providerThinking}`, mono: true });
  const sections: DetailSection[] = [{ kind: 'meta', items }];
  if (message.errorMessage !== undefined)
    sections.push({
      kind: 'note',
      tone: 'error',
      text: str(message.errorMessage) ?? '',
      testId: 'detail.error',
    });
  if (stop === 'deferred')
    sections.push({
      kind: 'note',
      tone: 'help',
      text: 'Deferred: the provider answers later; pi fetches the reply through the stored handle.',
      testId: 'detail.deferred',
    });
  sections.push({ kind: 'assistantContent', blocks: Array.isArray(message.content) ? message.content : [] });
  sections.push(...usageSection(message.usage, 'usage'));
  sections.push(...json('diagnostics', message.diagnostics));
  sections.push(...json('deferred handle', message.deferred));
  const rest = fields(message, ['responseId', 'endTurn', 'durationMs']);
  sections.push(...rest);
  return sections;
}

function toolResultUsage(message: UnknownRecord): unknown {
  // pi 1.x: the tool's own model calls. oh-my-pi: a `task` tool's subagent run, in its details.
  if (message.usage !== undefined) return message.usage;
  if (message.toolName === 'task' && isRecord(message.details)) return message.details.usage;
  return undefined;
}

function nestedCallsSection(value: unknown): DetailSection[] {
  if (!isRecord(value) || !Array.isArray(value.calls)) return [];
  const calls = (value.calls as unknown[]).filter(isRecord).map((call) => {
    const item: NestedCallItem = {
      id: str(call.id) ?? '',
      name: str(call.name) ?? '',
      status: str(call.status) ?? '',
    };
    if (call.arguments !== undefined) item.arguments = call.arguments;
    const bytes = finiteNumber(call.argumentsBytes);
    if (bytes !== undefined) item.argumentsBytes = bytes;
    const error = str(call.error);
    if (error !== undefined) item.error = error;
    return item;
  });
  return [{ kind: 'nestedCalls', calls, complete: value.complete === true }];
}

function commandHead(message: UnknownRecord, first: string): string[] {
  const head = [first];
  if (message.exitCode !== undefined) head.push(`exit ${String(message.exitCode)}`);
  if (message.cancelled === true) head.push('cancelled');
  if (message.truncated === true) head.push('truncated');
  if (message.excludeFromContext === true) head.push('not in context');
  return head;
}

function bracketRow(message: UnknownRecord): string {
  return capRow(`[${str(message.role) ?? ''}]`);
}

function imageFlag(message: UnknownRecord): number {
  return hasImage(message.content) ? ViewFlags.HasImage : 0;
}

function systemPromptSection(message: UnknownRecord): DetailSection {
  const sections = isRecord(message.sections)
    ? Object.entries(message.sections).map(([name, text]) => ({
        name,
        text: typeof text === 'string' ? text : null,
      }))
    : [];
  const toolsAdded = Array.isArray(message.toolsAdded)
    ? (message.toolsAdded as unknown[])
        .filter(isRecord)
        .map((tool) => ({ name: str(tool.name) ?? '', description: str(tool.description) ?? '' }))
    : [];
  const toolsRemoved = Array.isArray(message.toolsRemoved)
    ? (message.toolsRemoved as unknown[]).filter(isRecord).map((tool) => str(tool.name) ?? '')
    : [];
  return {
    kind: 'systemPrompt',
    content: contentText(message.content, { separator: '\n' }),
    sections,
    toolsAdded,
    toolsRemoved,
  };
}

/** An extension's message in the conversation (`custom`, and its legacy name `hookMessage`). */
const CUSTOM_ROLE: RoleSpec = {
  writer: 'both',
  kind: 'custom',
  row: bracketRow,
  flags: imageFlag,
  detail: (m) => [
    ...fields(m, ['customType', 'display']),
    { kind: 'content', content: m.content, as: 'markdown' },
  ],
};

/** Every message role either agent stores, with its row, flags, usage and detail. */
export const MESSAGE_ROLES = {
  user: {
    writer: 'both',
    kind: 'user',
    filterRole: 'user',
    row: (m) => capLength(`user: ${normalize(preview(m.content))}`),
    flags: imageFlag,
    detail: (m) => [{ kind: 'content', content: m.content, as: 'markdown' }],
  },
  assistant: {
    writer: 'both',
    kind: 'assistant',
    row: (m) => capLength(assistantRowText(m)),
    flags: assistantFlags,
    usage: (m) => m.usage,
    piOneFields: (m) => m.stopReason === 'deferred' || has(m, PI_ONE_ASSISTANT_FIELDS),
    detail: assistantDetail,
  },
  toolResult: {
    writer: 'both',
    kind: 'tool',
    filterRole: 'toolResult',
    row: (m, { toolCalls, options }) => {
      const callId = str(m.toolCallId);
      const call = callId ? toolCalls.get(callId) : undefined;
      if (call) return capRow(call.row ?? formatToolCall(call.name, call.arguments, options));
      return capRow(`[${str(m.toolName) || 'tool'}]`);
    },
    flags: (m) => (m.isError === true ? ViewFlags.ToolError : 0) | imageFlag(m),
    usage: toolResultUsage,
    piOneFields: (m) => has(m, ['usage', 'nestedCalls', 'durationMs']),
    detail: (m, extras) => [
      { kind: 'toolCall', call: extras.toolCall, callId: str(m.toolCallId) ?? '' },
      {
        kind: 'toolResult',
        toolName: str(m.toolName) ?? '',
        isError: m.isError === true,
        content: m.content,
      },
      { kind: 'artifacts', content: m.content },
      ...nestedCallsSection(m.nestedCalls),
      ...usageSection(m.usage, 'usage of the tool’s own model calls', 'detail.tool-usage'),
      ...json('details', m.details),
    ],
  },
  bashExecution: {
    writer: 'both',
    kind: 'tool',
    row: (m) => capLength(`[bash]: ${normalize(str(m.command) ?? '')}`),
    flags: (m) =>
      (typeof m.exitCode === 'number' && m.exitCode !== 0 ? ViewFlags.Error : 0) |
      (m.cancelled === true ? ViewFlags.Aborted : 0) |
      (m.excludeFromContext === true ? ViewFlags.ExcludedFromContext : 0),
    detail: (m) => [
      {
        kind: 'command',
        head: commandHead(m, `$ ${str(m.command) ?? ''}`),
        body: [str(m.output) || '(no output)'],
      },
    ],
  },
  custom: CUSTOM_ROLE,
  // The legacy (v2) name of `custom`, which oh-my-pi still reads.
  hookMessage: CUSTOM_ROLE,
  system: {
    writer: 'pi-1',
    // Dim, like pi's `[system]` row.
    kind: 'settings',
    row: bracketRow,
    flags: imageFlag,
    detail: (m) => [
      {
        kind: 'note',
        tone: 'help',
        text: 'The system prompt and tools from here on: the first one is the whole prompt, later ones patch it (a section by name, tools added or removed).',
      },
      systemPromptSection(m),
    ],
  },
  fileMention: {
    writer: 'omp',
    kind: 'custom',
    row: bracketRow,
    flags: imageFlag,
    detail: (m) =>
      (Array.isArray(m.files) ? (m.files as unknown[]).filter(isRecord) : []).map((file) => ({
        kind: 'folded',
        title: str(file.path) ?? '',
        text: str(file.content) ?? '',
      })),
  },
  developer: {
    writer: 'omp',
    kind: 'custom',
    // Newer oh-my-pi's developer messages carry text worth showing.
    row: (m) => capLength(`developer: ${normalize(preview(m.content))}`),
    flags: imageFlag,
    detail: (m) => [
      {
        kind: 'note',
        tone: 'help',
        text: 'Instructions the agent gave the model (oh-my-pi developer message)',
      },
      { kind: 'content', content: m.content, as: 'markdown' },
    ],
  },
  pythonExecution: {
    writer: 'omp',
    kind: 'tool',
    row: bracketRow,
    flags: imageFlag,
    detail: (m) => [
      {
        kind: 'command',
        head: commandHead(m, 'python'),
        body: [str(m.code) ?? '', str(m.output) || '(no output)'],
      },
    ],
  },
} as const satisfies Record<string, RoleSpec>;

export type KnownRole = keyof typeof MESSAGE_ROLES;

const ROLES: ReadonlyMap<string, RoleSpec> = new Map(Object.entries(MESSAGE_ROLES));

/** The table's row of a message role, or undefined for a role it does not know. */
export function roleSpecOf(role: unknown): RoleSpec | undefined {
  return typeof role === 'string' ? ROLES.get(role) : undefined;
}

function messageRecord(entry: UnknownRecord): UnknownRecord | undefined {
  return isRecord(entry.message) ? entry.message : undefined;
}

// ---------------------------------------------------------------- entry types

function messageRow(entry: UnknownRecord, context: RowContext): string {
  const message = messageRecord(entry);
  if (message === undefined) return '[message]';
  const role = str(message.role);
  if (role === undefined) return '[message]';
  return roleSpecOf(role)?.row(message, context) ?? capRow(`[${role}]`);
}

function messageSearch(entry: UnknownRecord): string[] {
  const message = messageRecord(entry);
  if (message === undefined) return [];
  const parts: string[] = [];
  const role = str(message.role);
  if (role !== undefined) parts.push(role);
  if (message.content) parts.push(preview(message.content));
  if (role === 'bashExecution') {
    const command = str(message.command);
    if (command) parts.push(command);
  }
  return parts;
}

function messageDetail(entry: UnknownRecord, extras: DetailExtras): DetailSection[] {
  const message = messageRecord(entry);
  if (message === undefined)
    return [{ kind: 'note', tone: 'warn', text: 'This message entry holds no message.' }];
  const spec = roleSpecOf(message.role);
  if (spec) return spec.detail(message, extras);
  return [
    { kind: 'note', tone: 'help', text: `Message role “${str(message.role) ?? ''}” is not known to Canopy.` },
    { kind: 'json', title: 'message', value: message },
  ];
}

function branchSummaryRow(entry: UnknownRecord): string {
  const summary = normalize(str(entry.summary) ?? '');
  // [OMP] An empty summary is a marker that keeps a chosen branch on reload; oh-my-pi's row would be
  // blank after the colon, so name the marker's kind instead.
  const kind = summary === '' ? branchMarkerKind(entry) : undefined;
  return capRow(`[branch summary]: ${kind !== undefined ? `(${kind})` : summary}`);
}

function originSection(entry: UnknownRecord, origin: BranchSummaryOrigin | undefined): DetailSection[] {
  const from = origin ?? { meaning: 'branch-point', id: str(entry.parentId) ?? null };
  return [
    from.meaning === 'left-leaf'
      ? {
          kind: 'entryLink',
          text: 'summarises the branch left at',
          id: from.id,
          testId: 'detail.summary-from',
        }
      : { kind: 'entryLink', text: 'the branch continues from', id: from.id, testId: 'detail.summary-from' },
  ];
}

function branchSummaryDetail(entry: UnknownRecord, extras: DetailExtras): DetailSection[] {
  const sections = originSection(entry, extras.summaryOrigin);
  if (extensionFlag(entry)) sections.push({ kind: 'meta', items: [{ text: 'from an extension' }] });
  const markerKind = str(entry.summary) === '' ? branchMarkerKind(entry) : undefined;
  if (markerKind !== undefined) {
    sections.push({
      kind: 'note',
      tone: 'help',
      text: `A branch marker (${markerKind}) with no summary: oh-my-pi writes it so the chosen branch survives a reload. It adds nothing to the model context.`,
      testId: 'detail.marker',
    });
    sections.push({ kind: 'json', title: 'details', value: entry.details });
    return sections;
  }
  sections.push({ kind: 'markdown', text: str(entry.summary) ?? '', testId: 'detail.summary' });
  if (entry.details !== undefined) sections.push({ kind: 'fileLists', details: entry.details });
  sections.push(...usageSection(entry.usage, 'usage of the summary', 'detail.summary-usage'));
  return sections;
}

function compactionDetail(entry: UnknownRecord): DetailSection[] {
  const tokens = finiteNumber(entry.tokensBefore) ?? 0;
  const firstKept = str(entry.firstKeptEntryId);
  const sections: DetailSection[] = [
    { kind: 'meta', items: [{ text: `${tokens.toLocaleString('en-US')} tokens before` }] },
    firstKept !== undefined && firstKept === entry.id
      ? {
          kind: 'note',
          tone: 'help',
          text: 'Keeps nothing from before it: the summary stands for all of it.',
        }
      : { kind: 'entryLink', text: 'first kept entry', id: firstKept ?? null, testId: 'detail.first-kept' },
  ];
  if (extensionFlag(entry)) sections.push({ kind: 'meta', items: [{ text: 'from an extension' }] });
  sections.push({ kind: 'markdown', text: str(entry.summary) ?? '', testId: 'detail.summary' });
  if (entry.details !== undefined) sections.push({ kind: 'fileLists', details: entry.details });
  sections.push(...usageSection(entry.usage, 'usage of the summary', 'detail.summary-usage'));
  if (isRecord(entry.systemMessage)) {
    sections.push({
      kind: 'note',
      tone: 'help',
      text: 'The system prompt and tools at the compaction: the compacted context starts with them.',
    });
    sections.push(systemPromptSection(entry.systemMessage));
  }
  return sections;
}

function contextEditDetail(entry: UnknownRecord): DetailSection[] {
  const action = editAction(entry);
  const sections: DetailSection[] = [
    {
      kind: 'note',
      tone: 'help',
      text:
        action === 'omit'
          ? 'Leaves its target out of what the model is sent from here on, on this branch; the target itself is unchanged.'
          : 'Replaces what the model is sent of its target from here on, on this branch; the target itself is unchanged.',
      testId: 'detail.context-edit',
    },
    {
      kind: 'entryLink',
      text: action === 'omit' ? 'omits' : 'replaces',
      id: str(entry.targetId) ?? null,
      testId: 'detail.edit-target',
    },
  ];
  if (isRecord(entry.replacement)) {
    sections.push({ kind: 'meta', items: [{ text: 'sent instead:' }] });
    sections.push({ kind: 'content', content: entry.replacement.content, as: 'markdown' });
  }
  return sections;
}

/** Every entry type either agent writes, with everything Canopy does with it. */
export const ENTRY_TYPES = {
  message: {
    writer: 'both',
    filter: 'conversation',
    context: 'message',
    kind: 'other',
    row: messageRow,
    search: messageSearch,
    usage: (e) => {
      const message = messageRecord(e);
      return message && roleSpecOf(message.role)?.usage?.(message);
    },
    piOneFields: (e) => {
      const message = messageRecord(e);
      if (!message) return false;
      const spec = roleSpecOf(message.role);
      return spec?.writer === 'pi-1' || (spec?.piOneFields?.(message) ?? false);
    },
    detail: messageDetail,
  },
  custom_message: {
    writer: 'both',
    filter: 'conversation',
    context: 'custom-message',
    kind: 'custom',
    row: (e) => capRow(`[${str(e.customType) ?? ''}]: ${normalize(contentText(e.content))}`),
    // As in the reference: a string content is searched whole, text blocks by their preview.
    search: (e) => [str(e.customType) ?? '', typeof e.content === 'string' ? e.content : preview(e.content)],
    detail: (e) => [
      ...fields(e, ['customType', 'display']),
      { kind: 'content', content: e.content, as: 'markdown' },
      ...json('details', e.details),
    ],
  },
  compaction: {
    writer: 'both',
    filter: 'conversation',
    context: 'compaction',
    kind: 'summary',
    row: (e) => `[compaction: ${Math.round((finiteNumber(e.tokensBefore) ?? 0) / 1000)}k tokens]`,
    search: () => ['compaction'],
    usage: (e) => e.usage,
    piOneFields: (e) => has(e, ['systemMessage', 'usage']),
    detail: compactionDetail,
  },
  branch_summary: {
    writer: 'both',
    filter: 'conversation',
    context: 'branch-summary',
    kind: 'summary',
    row: branchSummaryRow,
    search: (e) => [
      'branch summary',
      str(e.summary) ?? '',
      ...(str(e.summary) ? [] : [branchMarkerKind(e) ?? '']),
    ],
    usage: (e) => e.usage,
    piOneFields: (e) => e.usage !== undefined,
    detail: branchSummaryDetail,
  },
  model_change: {
    writer: 'both',
    filter: 'bookkeeping',
    context: 'setting',
    kind: 'settings',
    row: (e, { options }) => capRow(`[model: ${modelChangeText(e, options?.dialect)}]`),
    search: (e) => ['model', str(e.modelId) ?? str(e.model) ?? ''],
    detail: (e) => fields(e, ['provider', 'modelId', 'model', 'role', 'resolvedModelIsFallback']),
  },
  thinking_level_change: {
    writer: 'both',
    filter: 'bookkeeping',
    context: 'setting',
    kind: 'settings',
    row: (e) => capRow(`[thinking: ${thinkingLevelText(e)}]`),
    search: (e) => ['thinking', thinkingLevelText(e)],
    detail: (e) => fields(e, ['thinkingLevel', 'configured']),
  },
  custom: {
    writer: 'both',
    filter: 'bookkeeping',
    context: 'none',
    kind: 'settings',
    row: (e) => capRow(`[custom: ${str(e.customType) ?? ''}]`),
    search: (e) => ['custom', str(e.customType) ?? ''],
    detail: (e) => [...fields(e, ['customType']), ...json('data', e.data)],
  },
  label: {
    writer: 'both',
    filter: 'bookkeeping',
    context: 'none',
    kind: 'settings',
    row: (e) => {
      // An empty label clears, exactly like an absent one (docs/format.md#labels), so it reads "(cleared)" too.
      const label = str(e.label);
      return capRow(`[label: ${label ? normalize(label) : '(cleared)'}]`);
    },
    search: (e) => ['label', str(e.label) ?? ''],
    detail: (e) => [
      { kind: 'entryLink', text: 'labels', id: str(e.targetId) ?? null, testId: 'detail.label-target' },
      ...fields(e, ['label']),
    ],
  },
  session_info: {
    writer: 'pi',
    // Hidden like pi 1.x and 0.73.1 hide it: `/name` moves the leaf onto it.
    filter: 'bookkeeping',
    context: 'none',
    kind: 'settings',
    row: (e) => {
      const name = str(e.name);
      return capRow(`[title: ${name ? normalize(name) : 'empty'}]`);
    },
    search: (e) => ['title', str(e.name) ?? ''],
    detail: (e) => fields(e, ['name']),
  },
  context_edit: {
    writer: 'pi-1',
    filter: 'bookkeeping',
    context: 'edit',
    kind: 'settings',
    row: (e) => capRow(`[context ${editAction(e)}: ${str(e.targetId) ?? ''}]`),
    search: (e) => ['context edit', editAction(e), str(e.targetId) ?? ''],
    detail: contextEditDetail,
  },
  usage: {
    writer: 'pi-1',
    filter: 'never',
    context: 'none',
    kind: 'settings',
    // pi draws no row for it (it is hidden in every filter); named all the same, never blank.
    row: (e) =>
      capRow(
        `[usage: ${normalize(str(e.kind) ?? '')} ${normalize(str(e.provider) ?? '')}/${normalize(str(e.model) ?? '')}]`,
      ),
    search: (e) => ['usage', str(e.kind) ?? '', str(e.provider) ?? '', str(e.model) ?? ''],
    usage: (e) => e.usage,
    detail: (e) => [
      {
        kind: 'note',
        tone: 'help',
        text: 'Model work outside the conversation (never sent to the model); it counts in the totals.',
      },
      ...fields(e, ['kind', 'provider', 'model', 'note']),
      ...usageSection(e.usage, 'usage'),
    ],
  },
  ttsr_injection: {
    writer: 'omp',
    filter: 'bookkeeping',
    context: 'setting',
    kind: 'settings',
    row: () => '[ttsr injection]',
    search: (e) =>
      [
        'ttsr injection',
        ...(Array.isArray(e.injectedRules)
          ? (e.injectedRules as unknown[]).filter((r) => typeof r === 'string')
          : []),
      ] as string[],
    detail: (e) => fields(e, ['injectedRules']),
  },
  mode_change: {
    writer: 'omp',
    filter: 'bookkeeping',
    context: 'setting',
    kind: 'settings',
    row: (e) => capRow(`[mode: ${str(e.mode) ?? ''}]`),
    search: (e) => ['mode', str(e.mode) ?? ''],
    detail: (e) => fields(e, ['mode', 'data']),
  },
  title_change: {
    writer: 'omp',
    filter: 'bookkeeping',
    context: 'none',
    kind: 'settings',
    row: (e) => capRow(`[title: ${normalize(str(e.title) ?? '')}]`),
    search: (e) => ['title', str(e.title) ?? ''],
    detail: (e) => fields(e, ['title', 'previousTitle', 'source', 'trigger']),
  },
  model_usage: {
    writer: 'omp',
    filter: 'bookkeeping',
    context: 'none',
    kind: 'settings',
    row: (e) => {
      const role = str(e.role) ? `${normalize(str(e.role) ?? '')} ` : '';
      return capRow(
        `[model usage: ${normalize(str(e.purpose) ?? '')} ${role}${normalize(str(e.provider) ?? '')}/${normalize(str(e.model) ?? '')}]`,
      );
    },
    search: (e) => [
      'model usage',
      str(e.purpose) ?? '',
      str(e.role) ?? '',
      str(e.provider) ?? '',
      str(e.model) ?? '',
    ],
    usage: (e) => e.usage,
    detail: (e) => [
      { kind: 'note', tone: 'help', text: 'A side call (not part of the conversation) and what it used.' },
      ...fields(e, ['purpose', 'role', 'provider', 'model', 'api', 'stopReason', 'errorMessage']),
      ...usageSection(e.usage, 'usage'),
    ],
  },
  service_tier_change: {
    writer: 'omp',
    filter: 'bookkeeping',
    context: 'setting',
    kind: 'settings',
    row: (e) => capRow(`[service tier: ${serviceTierText(e.serviceTier)}]`),
    search: (e) => {
      const parts = ['service tier'];
      if (isRecord(e.serviceTier)) {
        for (const [family, tier] of Object.entries(e.serviceTier))
          if (typeof tier === 'string' && tier) parts.push(family, tier);
      }
      return parts;
    },
    detail: (e) => fields(e, ['serviceTier']),
  },
  reset_boundary: {
    writer: 'omp',
    filter: 'bookkeeping',
    context: 'reset',
    kind: 'settings',
    row: () => '[reset boundary]',
    search: () => ['reset boundary'],
    detail: () => [
      {
        kind: 'note',
        tone: 'help',
        text: 'Written by /clear: the model context starts after this entry (unless a later compaction).',
        testId: 'detail.reset',
      },
    ],
  },
  credential_pin: {
    writer: 'omp',
    filter: 'bookkeeping',
    context: 'none',
    kind: 'settings',
    row: (e) => capRow(`[credential pin: ${str(e.provider) ?? ''}]`),
    search: (e) => ['credential pin', str(e.provider) ?? ''],
    detail: (e) => fields(e, ['provider', 'hash']),
  },
  session_init: {
    writer: 'omp',
    filter: 'bookkeeping',
    context: 'none',
    kind: 'settings',
    row: () => '[session init]',
    search: () => ['session init'],
    detail: (e) => [
      ...fields(e, ['agent', 'task', 'tools', 'modelRole', 'resolvedModel', 'readOnly']),
      {
        kind: 'folded',
        title: `system prompt (${(str(e.systemPrompt) ?? '').length.toLocaleString('en-US')} characters)`,
        text: str(e.systemPrompt) ?? '',
      },
    ],
  },
  /** Newer (unreleased) oh-my-pi: hides or restores a branch. */
  archive: {
    writer: 'omp',
    filter: 'bookkeeping',
    context: 'none',
    kind: 'settings',
    row: (e) => capRow(`[${e.archived ? 'archived' : 'restored'}: ${str(e.targetId) ?? ''}]`),
    search: () => ['archive'],
    detail: (e) => [
      {
        kind: 'entryLink',
        text: e.archived ? 'archives' : 'restores',
        id: str(e.targetId) ?? null,
        testId: 'detail.archive-target',
      },
    ],
  },
} as const satisfies Record<string, EntryTypeSpec>;

export type KnownEntryType = keyof typeof ENTRY_TYPES;

const SPECS: ReadonlyMap<string, EntryTypeSpec> = new Map(Object.entries(ENTRY_TYPES));

/** The table's row of an entry type, or undefined for a type it does not know. */
export function entrySpecOf(type: unknown): EntryTypeSpec | undefined {
  return typeof type === 'string' ? SPECS.get(type) : undefined;
}

/** Every entry type Canopy knows: any other is kept, shown as `[type]` and reported once. */
export const KNOWN_ENTRY_TYPES: ReadonlySet<string> = new Set(SPECS.keys());

/** Entry types only oh-my-pi writes: one of them in a file makes it an oh-my-pi session. */
export const OMP_ENTRY_TYPES: ReadonlySet<string> = new Set(
  [...SPECS].filter(([, spec]) => spec.writer === 'omp').map(([type]) => type),
);

/** Entry types hidden by the `default` and `no-tools` filters (docs/tree-and-context.md#filters). */
export const BOOKKEEPING_ENTRY_TYPES: ReadonlySet<string> = new Set(
  [...SPECS].filter(([, spec]) => spec.filter === 'bookkeeping').map(([type]) => type),
);

/** Entry types hidden by every filter, even as the leaf (pi 1.x's `usage`). */
export const NEVER_SHOWN_ENTRY_TYPES: ReadonlySet<string> = new Set(
  [...SPECS].filter(([, spec]) => spec.filter === 'never').map(([type]) => type),
);

// ---------------------------------------------------------------- what the rest of Canopy asks

/** The colour kind of an entry by its type and (for a `message`) its role. */
export function entryKind(type: string, role: string | undefined): EntryKind {
  if (type === 'message') return roleSpecOf(role)?.kind ?? 'other';
  return entrySpecOf(type)?.kind ?? 'other';
}

/** The badge title of an entry: a message's role, else its type in words. */
export function kindTitle(type: string, role: string | undefined): string {
  if (type === 'message') return role ?? 'message';
  return type.replace(/_/g, ' ');
}

/** Whether an entry shows that oh-my-pi wrote the file (its own type, role or field shapes). */
export function isOmpEntry(entry: SessionEntry): boolean {
  const e = entry as UnknownRecord;
  switch (entry.type) {
    case 'model_change':
      return e.model !== undefined;
    case 'compaction':
    case 'branch_summary':
      return e.fromExtension !== undefined;
    case 'message': {
      const role = messageRecord(e)?.role;
      // fileMention and developer messages: older pi files may hold them too (through extensions).
      return role === 'pythonExecution';
    }
    default:
      return OMP_ENTRY_TYPES.has(entry.type);
  }
}

/** Whether an entry shows that pi 1.x wrote the file: a type, role or field only pi 1.x writes. */
export function isPiOneEntry(entry: SessionEntry): boolean {
  const spec = entrySpecOf(entry.type);
  if (!spec) return false;
  return spec.writer === 'pi-1' || (spec.piOneFields?.(entry as UnknownRecord) ?? false);
}

/**
 * What a branch_summary's `fromId` names (docs/format.md#branch-summary-fromid). oh-my-pi and pi 0.73
 * write the position the branch continues from, which is the summary's own parent (or "root"); pi 1.x
 * writes the leaf that was left. In a pi file with pi 1.x evidence, or where `fromId` is not the
 * summary's own position (no 0.73 summary ever is), it is the leaf that was left.
 */
export function branchSummaryOrigin(
  entry: SessionEntry,
  file: { dialect: Dialect; piOne: boolean },
): BranchSummaryOrigin {
  const fromId = str((entry as UnknownRecord).fromId);
  const id = fromId === undefined || fromId === 'root' ? null : fromId;
  const ownPosition = fromId === (entry.parentId ?? 'root');
  if (file.dialect === 'omp') return { meaning: 'branch-point', id: str(entry.parentId) ?? null };
  if (file.piOne || !ownPosition) return { meaning: 'left-leaf', id };
  return { meaning: 'branch-point', id };
}

/** The usage object an entry adds to the session's totals (every source pi 1.x and oh-my-pi count). */
export function rawUsageOf(entry: SessionEntry): unknown {
  return entrySpecOf(entry.type)?.usage?.(entry as UnknownRecord);
}

/** The token and cost numbers an entry adds to the totals (the tree's per-node usage). */
export interface UsageNumbers {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  /** `cost.total`. */
  cost: number;
}

/** A usage number as counted: a finite number, else 0. */
function usageNumber(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/**
 * The numbers of {@link rawUsageOf}: each that is not a finite number counts 0; an entry with no usage
 * object (or a usage that is not an object) has none. Every source counts, as pi 1.x's session totals
 * and cost count them: assistant replies, `usage` entries, tool results' own usage, compactions' and
 * branch summaries' usage, and oh-my-pi's side calls and subagent runs.
 */
export function usageNumbersOf(entry: SessionEntry): UsageNumbers | undefined {
  const raw = rawUsageOf(entry);
  if (!isRecord(raw) || Array.isArray(raw)) return undefined;
  const cost = isRecord(raw.cost) ? raw.cost : undefined;
  return {
    input: usageNumber(raw.input),
    output: usageNumber(raw.output),
    cacheRead: usageNumber(raw.cacheRead),
    cacheWrite: usageNumber(raw.cacheWrite),
    totalTokens: usageNumber(raw.totalTokens),
    cost: usageNumber(cost?.total),
  };
}

/** The sections of an entry's detail (detail-sections.ts); an unknown type says so. */
export function detailSections(entry: SessionEntry, extras: DetailExtras = {}): DetailSection[] {
  const spec = entrySpecOf(entry.type);
  if (spec) return spec.detail(entry as UnknownRecord, extras);
  return [
    {
      kind: 'note',
      tone: 'help',
      text: `Entry type “${String(entry.type)}” is not known to Canopy; its raw content is below.`,
      testId: 'detail.unknown-type',
    },
  ];
}
