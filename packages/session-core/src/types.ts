// Types of the session file format, both dialects (pi and oh-my-pi), format version 3.
// Every interface is open-ended on purpose: unknown fields are kept verbatim on the objects,
// so a load/save round trip never loses what a newer agent wrote.
// Declarations only: one file, so the whole format reads top to bottom.

export const CURRENT_SESSION_VERSION = 3;

/** Which agent wrote the file; decides the shape of new model_change and flag fields. */
/** The two writers of session files: pi and oh-my-pi (see docs/format.md#dialects). */
export const DIALECTS = ['pi', 'omp'] as const;
export type Dialect = (typeof DIALECTS)[number];

// ---------------------------------------------------------------- content blocks

export interface TextContent {
  type: 'text';
  text: string;
  [key: string]: unknown;
}

export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
  [key: string]: unknown;
}

export interface ThinkingContent {
  type: 'thinking';
  thinking: string;
  [key: string]: unknown;
}

/** [OMP] Encrypted reasoning: no plain text, only an opaque `data` string. */
export interface RedactedThinkingContent {
  type: 'redactedThinking';
  data: string;
  [key: string]: unknown;
}

export interface ToolCall {
  type: 'toolCall';
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  [key: string]: unknown;
}

export type UserContentBlock = TextContent | ImageContent;
/** oh-my-pi assistant replies may also carry images and redacted thinking. */
export type AssistantContentBlock =
  TextContent | ThinkingContent | ToolCall | ImageContent | RedactedThinkingContent;

// ---------------------------------------------------------------- messages

export interface UsageCost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: UsageCost;
  [key: string]: unknown;
}

/** `deferred` (pi 1.x): the answer is fetched later through the message's `deferred` handle. */
export type StopReason = 'stop' | 'length' | 'toolUse' | 'error' | 'aborted' | 'deferred';

export interface UserMessage {
  role: 'user';
  content: string | UserContentBlock[];
  timestamp: number;
  [key: string]: unknown;
}

export interface AssistantMessage {
  role: 'assistant';
  content: AssistantContentBlock[];
  api: string;
  provider: string;
  model: string;
  usage: Usage;
  stopReason: StopReason;
  errorMessage?: string;
  timestamp: number;
  // pi 1.x (docs/format.md#messages): what was asked for and what answered.
  /** The pi thinking level requested for this response. */
  thinkingLevel?: string;
  /** The provider-native effort level used. */
  providerThinkingLevel?: string;
  /** The model that actually answered, when the provider names another than `model`. */
  responseModel?: string;
  responseId?: string;
  /** The provider's own stop reason, before pi mapped it. */
  rawStopReason?: string;
  /** Whether the model explicitly ended its turn. */
  endTurn?: boolean;
  diagnostics?: unknown[];
  /** With `stopReason: "deferred"`: the handle the answer is fetched by later. */
  deferred?: unknown;
  durationMs?: number;
  [key: string]: unknown;
}

/** [pi 1.x] One call a tool made to another tool while it ran (e.g. from a code-mode script). */
export interface NestedToolCall {
  id: string;
  name: string;
  /** Left out when too large; `argumentsBytes` then gives their size. */
  arguments?: Record<string, unknown>;
  argumentsBytes?: number;
  status: 'ok' | 'error' | 'unfinished' | (string & {});
  durationMs?: number;
  error?: string;
  [key: string]: unknown;
}

export interface ToolResultMessage {
  role: 'toolResult';
  toolCallId: string;
  toolName: string;
  content: UserContentBlock[];
  details?: unknown;
  isError: boolean;
  timestamp: number;
  /** [pi 1.x] What the tool's own model calls used; counted in the session's totals. */
  usage?: Usage;
  /** [pi 1.x] The calls this tool made to other tools; kept for the record, never sent to the model. */
  nestedCalls?: { calls: NestedToolCall[]; complete: boolean; [key: string]: unknown };
  durationMs?: number;
  [key: string]: unknown;
}

/** [pi 1.x] A tool as a system message declares it to the model. */
export interface ToolDeclaration {
  name: string;
  description?: string;
  parameters?: unknown;
  [key: string]: unknown;
}

/**
 * [pi 1.x] The system prompt and tool loadout, stored in the session (docs/format.md#system-messages):
 * the first request writes the whole prompt, later changes write patches (`sections` by name, `null`
 * removes one; `toolsAdded` / `toolsRemoved`). Replayed in order they give the current prompt.
 */
export interface SystemMessage {
  role: 'system';
  content: string | TextContent[];
  sections?: Record<string, string | null>;
  toolsAdded?: ToolDeclaration[];
  toolsRemoved?: { name: string; [key: string]: unknown }[];
  timestamp: number;
  [key: string]: unknown;
}

export interface BashExecutionMessage {
  role: 'bashExecution';
  command: string;
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
  excludeFromContext?: boolean;
  timestamp: number;
  [key: string]: unknown;
}

export interface CustomMessage {
  role: 'custom';
  customType: string;
  content: string | UserContentBlock[];
  display: boolean;
  details?: unknown;
  timestamp: number;
  [key: string]: unknown;
}

/** Legacy (v2) name of the custom role; the v2→v3 migration renames it, readers still accept it. */
export interface HookMessage extends Omit<CustomMessage, 'role'> {
  role: 'hookMessage';
}

/** [OMP] files mentioned with @path, sent to the model inside a system reminder. */
export interface FileMentionMessage {
  role: 'fileMention';
  files: { path: string; content: string; lineCount?: number }[];
  timestamp: number;
  [key: string]: unknown;
}

/** [OMP] A system-level instruction the agent injected; reaches the model as a developer message. */
export interface DeveloperMessage {
  role: 'developer';
  content: string | UserContentBlock[];
  timestamp: number;
  [key: string]: unknown;
}

/** [OMP] A Python cell the user ran (the `$` prefix); reaches the model as a user message. */
export interface PythonExecutionMessage {
  role: 'pythonExecution';
  code: string;
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated?: boolean;
  excludeFromContext?: boolean;
  timestamp: number;
  [key: string]: unknown;
}

/** Synthesized from branch_summary entries; never stored as a message entry. */
export interface BranchSummaryMessage {
  role: 'branchSummary';
  summary: string;
  fromId: string;
  timestamp: number;
}

/** Synthesized from compaction entries; never stored as a message entry. */
export interface CompactionSummaryMessage {
  role: 'compactionSummary';
  summary: string;
  tokensBefore: number;
  timestamp: number;
}

/** A role this version does not know: kept verbatim. */
export interface UnknownRoleMessage {
  role: string;
  timestamp?: number;
  [key: string]: unknown;
}

export type KnownAgentMessage =
  | SystemMessage
  | UserMessage
  | AssistantMessage
  | ToolResultMessage
  | BashExecutionMessage
  | CustomMessage
  | HookMessage
  | FileMentionMessage
  | DeveloperMessage
  | PythonExecutionMessage;

/** What a `message` entry may hold. */
export type StoredMessage = KnownAgentMessage | UnknownRoleMessage;

/** What buildSessionContext returns: stored messages plus the two synthesized summary roles. */
export type AgentMessage = StoredMessage | BranchSummaryMessage | CompactionSummaryMessage;

// ---------------------------------------------------------------- header and entries

export interface SessionHeader {
  type: 'session';
  version?: number;
  id: string;
  timestamp: string;
  cwd: string;
  parentSession?: string;
  /** [OMP] display title. */
  title?: string;
  [key: string]: unknown;
}

export interface EntryBase {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
  [key: string]: unknown;
}

export interface MessageEntry extends EntryBase {
  type: 'message';
  message: StoredMessage;
}

export interface ThinkingLevelChangeEntry extends EntryBase {
  type: 'thinking_level_change';
  thinkingLevel: string | null;
}

/** pi writes `{provider, modelId}`; oh-my-pi writes `{model: "provider/id", role?}`. */
export interface ModelChangeEntry extends EntryBase {
  type: 'model_change';
  provider?: string;
  modelId?: string;
  model?: string;
  role?: string;
}

export interface FileOperationDetails {
  readFiles: string[];
  modifiedFiles: string[];
}

export interface CompactionEntry extends EntryBase {
  type: 'compaction';
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: unknown;
  /** pi's name of the extension flag. */
  fromHook?: boolean;
  /** oh-my-pi's name of the extension flag. */
  fromExtension?: boolean;
  /** [pi 1.x] The whole system prompt and tools at the compaction: it leads the compacted context. */
  systemMessage?: SystemMessage;
  /** [pi 1.x] What generating the summary used; counted in the session's totals. */
  usage?: Usage;
}

export interface BranchSummaryEntry extends EntryBase {
  type: 'branch_summary';
  /**
   * Which entry the summary is from; its meaning depends on the writer (docs/format.md#entry-types; the format branch adds its own section):
   * pi 0.73 and oh-my-pi write the branch-from position (the entry's own parent, or "root"), pi 1.x
   * the leaf that was left. Read it through `branchSummaryOrigin`.
   */
  fromId: string;
  summary: string;
  details?: unknown;
  fromHook?: boolean;
  fromExtension?: boolean;
  /** [pi 1.x] What generating the summary used; counted in the session's totals. */
  usage?: Usage;
}

export interface CustomEntry extends EntryBase {
  type: 'custom';
  customType: string;
  data?: unknown;
}

export interface CustomMessageEntry extends EntryBase {
  type: 'custom_message';
  customType: string;
  content: string | UserContentBlock[];
  display: boolean;
  details?: unknown;
}

export interface LabelEntry extends EntryBase {
  type: 'label';
  targetId: string;
  label?: string;
}

export interface SessionInfoEntry extends EntryBase {
  type: 'session_info';
  name?: string;
}

/**
 * [pi 1.x] An edit of what the model is sent for an earlier user, assistant, toolResult or
 * custom_message entry on the same path: `null` leaves it out, `{content}` replaces its content. The
 * target itself never changes; the latest edit on the active path wins (docs/tree-and-context.md#context-edits).
 */
export interface ContextEditEntry extends EntryBase {
  type: 'context_edit';
  targetId: string;
  replacement: { content: string | (TextContent | ImageContent)[]; [key: string]: unknown } | null;
}

/**
 * [pi 1.x] Model work outside the conversation (e.g. `kind: "cache_warm"`): never in the context,
 * hidden by pi's tree in every filter, counted in the session's totals.
 */
export interface UsageEntry extends EntryBase {
  type: 'usage';
  kind: string;
  provider: string;
  model: string;
  usage: Usage;
  note?: string;
}

export interface TtsrInjectionEntry extends EntryBase {
  type: 'ttsr_injection';
  injectedRules: string[];
}

export interface ModeChangeEntry extends EntryBase {
  type: 'mode_change';
  mode: string;
  data?: Record<string, unknown>;
}

/** [OMP] Audit record of a rename; the title line before the header holds the current title. */
export interface TitleChangeEntry extends EntryBase {
  type: 'title_change';
  title: string;
  previousTitle?: string;
  source?: 'auto' | 'user';
  trigger?: string;
}

/**
 * [OMP] Usage of a side call (a title, a summary, …) that is not part of the transcript. Its parent
 * is the leaf when the call started; it becomes the leaf only if that was still the leaf.
 */
export interface ModelUsageEntry extends EntryBase {
  type: 'model_usage';
  purpose: string;
  role?: string;
  api: string;
  provider: string;
  model: string;
  usage: Usage;
  stopReason: StopReason;
  errorMessage?: string;
}

/** [OMP] Service tier by model family ("openai": "priority", …), or null for the default. */
export interface ServiceTierChangeEntry extends EntryBase {
  type: 'service_tier_change';
  serviceTier: Record<string, string> | null;
}

/** [OMP] Written by /clear: the model context starts after it (unless a later compaction). */
export interface ResetBoundaryEntry extends EntryBase {
  type: 'reset_boundary';
}

/** [OMP] Which account served a provider (a hash, never the account itself). */
export interface CredentialPinEntry extends EntryBase {
  type: 'credential_pin';
  provider: string;
  hash: string;
}

/** [OMP] The initial context of a subagent session (system prompt, task, tools). */
export interface SessionInitEntry extends EntryBase {
  type: 'session_init';
  systemPrompt: string;
  task: string;
  tools: string[];
  agent?: string;
}

export type KnownSessionEntry =
  | MessageEntry
  | ThinkingLevelChangeEntry
  | ModelChangeEntry
  | CompactionEntry
  | BranchSummaryEntry
  | CustomEntry
  | CustomMessageEntry
  | LabelEntry
  | SessionInfoEntry
  | ContextEditEntry
  | UsageEntry
  | TtsrInjectionEntry
  | ModeChangeEntry
  | TitleChangeEntry
  | ModelUsageEntry
  | ServiceTierChangeEntry
  | ResetBoundaryEntry
  | CredentialPinEntry
  | SessionInitEntry;

/** Entry types only oh-my-pi writes: one of them in a file makes it an oh-my-pi session. */
export const OMP_ENTRY_TYPES: ReadonlySet<string> = new Set([
  'ttsr_injection',
  'mode_change',
  'title_change',
  'model_usage',
  'service_tier_change',
  'reset_boundary',
  'credential_pin',
  'session_init',
]);

export const KNOWN_ENTRY_TYPES: ReadonlySet<string> = new Set([
  'message',
  'thinking_level_change',
  'model_change',
  'compaction',
  'branch_summary',
  'custom',
  'custom_message',
  'label',
  'session_info',
  'context_edit',
  'usage',
  ...OMP_ENTRY_TYPES,
]);

/** Any non-header line with an id. Unknown entry types keep all their fields. */
export type SessionEntry = KnownSessionEntry | EntryBase;

export type FileLine = SessionHeader | SessionEntry;

// ---------------------------------------------------------------- tree

export interface SessionTreeNode {
  entry: SessionEntry;
  children: SessionTreeNode[];
  label?: string;
  /** Timestamp of the label entry that set `label` (as the reference's tree nodes carry it). */
  labelTimestamp?: string;
}

// ---------------------------------------------------------------- context

export interface SessionContext {
  messages: AgentMessage[];
  thinkingLevel: string;
  /** pi shape: the model from the latest model_change or assistant message. */
  model: { provider: string; modelId: string } | null;
  /** oh-my-pi shape: "provider/id" by role ("default", "smol", …). */
  models: Record<string, string>;
  injectedTtsrRules: string[];
  mode: string;
  modeData?: Record<string, unknown>;
  /** [OMP] The latest service_tier_change on the path (null: back to the default). */
  serviceTier?: Record<string, string> | null;
}

// ---------------------------------------------------------------- load issues

/** Every kind of load problem (the wire schema of `ParseIssue` is derived from this list). */
export const ISSUE_KINDS = [
  'invalid-json',
  'not-object',
  'missing-header',
  'invalid-header',
  'extra-header',
  'invalid-entry',
  'missing-id',
  'duplicate-id',
  'self-parent',
  'parent-cycle',
  'orphan',
  'unknown-type',
  'truncated-line',
] as const;
export type IssueKind = (typeof ISSUE_KINDS)[number];

/** A problem found while loading; `line` is 1-based in the file as written. */
export interface ParseIssue {
  line: number;
  kind: IssueKind;
  message: string;
}
