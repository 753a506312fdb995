// Types of the session file format, both dialects (pi and oh-my-pi), format version 3.
// Every interface is open-ended on purpose: unknown fields are kept verbatim on the objects,
// so a load/save round trip never loses what a newer agent wrote.

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

export interface ToolCall {
  type: 'toolCall';
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  [key: string]: unknown;
}

export type UserContentBlock = TextContent | ImageContent;
export type AssistantContentBlock = TextContent | ThinkingContent | ToolCall;

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

export type StopReason = 'stop' | 'length' | 'toolUse' | 'error' | 'aborted';

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

/** A role this version does not know (newer oh-my-pi's `developer`, `pythonExecution`, …): kept verbatim. */
export interface UnknownRoleMessage {
  role: string;
  timestamp?: number;
  [key: string]: unknown;
}

export type KnownAgentMessage =
  | UserMessage
  | AssistantMessage
  | ToolResultMessage
  | BashExecutionMessage
  | CustomMessage
  | HookMessage
  | FileMentionMessage;

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
}

export interface BranchSummaryEntry extends EntryBase {
  type: 'branch_summary';
  /** The branch-from id as the reference writes it, or "root". Readers must not depend on it. */
  fromId: string;
  summary: string;
  details?: unknown;
  fromHook?: boolean;
  fromExtension?: boolean;
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

export interface TtsrInjectionEntry extends EntryBase {
  type: 'ttsr_injection';
  injectedRules: string[];
}

export interface ModeChangeEntry extends EntryBase {
  type: 'mode_change';
  mode: string;
  data?: Record<string, unknown>;
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
  | TtsrInjectionEntry
  | ModeChangeEntry;

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
  'ttsr_injection',
  'mode_change',
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
