import { Type, type Static } from '@sinclair/typebox';
import { EntryId, JsonObject, Nullable, SessionId } from './common';
import { NodeColumns } from './node-columns';
import { BranchSummaryOrigin, Dialect, LocatedToolCall, ParseIssue } from './vocabulary';
import { navigateSummaryFields, SummarizerInfo } from './summary';

// ---------------------------------------------------------------- shared pieces

export const RootInfo = Type.Object({
  /** Display name of the root (its last path components). */
  name: Type.String(),
  /** Absolute path, shown to the local user only. */
  path: Type.String(),
});
export type RootInfo = Static<typeof RootInfo>;

// ---------------------------------------------------------------- GET /api/info

export const InfoResponse = Type.Object({
  protocolVersion: Type.Integer(),
  roots: Type.Array(RootInfo),
  /** Whether a summariser is configured (summaries can be requested). */
  summarizer: Type.Boolean(),
  /** The summarisers offered, the offline one first. */
  summarizers: Type.Array(SummarizerInfo),
  /** The summariser used when a request names none (the settings may choose another). */
  defaultSummarizerId: Nullable(Type.String()),
  /** Home directory, so the browser can show `~` in tool rows exactly like the terminal. */
  home: Type.String(),
});
export type InfoResponse = Static<typeof InfoResponse>;

// ---------------------------------------------------------------- GET /api/sessions

export const SessionListItem = Type.Object({
  /** Opaque id used in every other URL. */
  id: SessionId,
  /** The id in the file's header (not unique across copies). */
  headerId: Type.String(),
  /** Display name of the root the file is under. */
  root: Type.String(),
  /** Path relative to its root, for display. */
  path: Type.String(),
  /** session_info name (pi) or header title (oh-my-pi). */
  name: Type.Optional(Type.String()),
  /** Text of the first user message, "" when there is none. */
  firstMessage: Type.String(),
  cwd: Type.String(),
  entryCount: Type.Integer(),
  messageCount: Type.Integer(),
  size: Type.Integer(),
  /** File modification time, Unix ms. */
  mtime: Type.Number(),
  /** Header timestamp (ISO). */
  created: Type.String(),
  version: Type.Integer(),
  /** Header `parentSession` verbatim (a path or an id). */
  parentSession: Type.Optional(Type.String()),
  /** The opaque id of the parent session when it resolves to a file under the roots. */
  parentId: Nullable(SessionId),
  issueCount: Type.Integer(),
  writerActive: Type.Boolean(),
  /** The file is not a session (no header): listed so the user sees it, but it cannot be opened. */
  invalid: Type.Optional(Type.Boolean()),
  /** Why an invalid file cannot be opened, when there is more to say (a damaged or oversized archive). */
  problem: Type.Optional(Type.String()),
  /**
   * [oh-my-pi] A subagent or advisor transcript kept in its parent session's folder; `parentId`
   * is then that parent session.
   */
  kind: Type.Optional(Type.Union([Type.Literal('subagent'), Type.Literal('advisor')])),
  /** Why the session opens read-only (an archived `.jsonl.gz`, an unknown format version). */
  readOnly: Type.Optional(Type.String()),
});
export type SessionListItem = Static<typeof SessionListItem>;

/**
 * How far the server's first reading of the session folders is, while it runs: the server listens
 * before it has read every file, so the list fills in (newest first) through `session_list_changed`.
 */
export const ListingProgress = Type.Object({
  /** Session files read so far. */
  read: Type.Integer({ minimum: 0 }),
  /** Session files found under the roots. */
  total: Type.Integer({ minimum: 0 }),
});
export type ListingProgress = Static<typeof ListingProgress>;

export const SessionListResponse = Type.Object({
  sessions: Type.Array(SessionListItem),
  /** Present while the first reading of the folders runs: the list is not whole yet. */
  listing: Type.Optional(ListingProgress),
});
export type SessionListResponse = Static<typeof SessionListResponse>;

// ---------------------------------------------------------------- params

export const SessionParams = Type.Object({ id: SessionId });
export type SessionParams = Static<typeof SessionParams>;

export const EntryParams = Type.Object({ id: SessionId, entryId: EntryId });
export type EntryParams = Static<typeof EntryParams>;

/** [oh-my-pi] An image stored as `blob:sha256:<hex>`: the 64 lower-case hex digits. */
export const BlobParams = Type.Object({ id: SessionId, hash: Type.String({ pattern: '^[a-f0-9]{64}$' }) });
export type BlobParams = Static<typeof BlobParams>;

/** [oh-my-pi] A tool output saved as `artifact://N`: the decimal N. */
export const ArtifactParams = Type.Object({
  id: SessionId,
  artifactId: Type.String({ pattern: '^[0-9]{1,9}$' }),
});
export type ArtifactParams = Static<typeof ArtifactParams>;

// ---------------------------------------------------------------- GET /api/sessions/:id

/**
 * The first line of the streamed snapshot: what is known before the file is parsed. A session
 * being opened is streamed while the server still reads its file, so everything that is known only
 * at the end of that read (the leaf, the node count, the issues, the name) is in the closing line.
 */
export const SessionSnapshotHead = Type.Object({
  /** The session's list row as it was when the snapshot started (the closing line has the final one). */
  session: SessionListItem,
  /** The file's size in bytes when the server started reading it: `read` lines count towards it. */
  bytes: Type.Integer({ minimum: 0 }),
  /** How many nodes the snapshot holds, when that is known at the start (the session was open). */
  nodeCount: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type SessionSnapshotHead = Static<typeof SessionSnapshotHead>;

/** A line of the snapshot between node lines while the file is being read: the bytes read so far. */
export const SnapshotReadLine = Type.Object({ read: Type.Integer({ minimum: 0 }) });
export type SnapshotReadLine = Static<typeof SnapshotReadLine>;

/** What the closing line says about the session: everything but its nodes, as of the snapshot's end. */
export const SessionSnapshotEnd = Type.Object({
  session: SessionListItem,
  header: JsonObject,
  version: Type.Integer(),
  dialect: Dialect,
  leafId: Nullable(Type.String()),
  /** How many nodes the node lines held in all. */
  nodeCount: Type.Integer({ minimum: 0 }),
  issues: Type.Array(ParseIssue),
  writerActive: Type.Boolean(),
  /** A legacy file: the first write migrates it (after a backup). */
  needsMigration: Type.Boolean(),
  /** Bytes of a cut-off last line that are waiting for the rest of the line. */
  pendingBytes: Type.Integer(),
  name: Type.Optional(Type.String()),
  /**
   * Nodes sent earlier in this snapshot whose row is different now (a label entry later in the file
   * labels an earlier node; a tool call after its result re-renders the result). They replace the
   * nodes of the same id; an empty `NodeColumns` when nothing changed.
   */
  changed: NodeColumns,
});
export type SessionSnapshotEnd = Static<typeof SessionSnapshotEnd>;

/**
 * The last line of a snapshot, one of three: `end`, the session as the nodes sent describe it;
 * `restart`, the file was replaced while it was read, so the nodes sent are not its nodes (read the
 * snapshot again); `error`, the read failed (nothing of this snapshot is the session).
 */
export const SnapshotClosingLine = Type.Union([
  Type.Object({ end: SessionSnapshotEnd }),
  Type.Object({ restart: Type.Object({ message: Type.String() }) }),
  Type.Object({ error: Type.Object({ code: Type.String(), message: Type.String() }) }),
]);
export type SnapshotClosingLine = Static<typeof SnapshotClosingLine>;

/**
 * GET /api/sessions/:id answers `application/x-ndjson`, so a large tree is drawn while it arrives
 * (docs/architecture.md#opening-a-session), even while the server is still reading the file:
 *
 * 1. a `SessionSnapshotHead`;
 * 2. any number of `NodeColumns` lines (the nodes in file order, as first rendered) and, while the
 *    file is being read, `SnapshotReadLine`s (progress by bytes);
 * 3. one `SnapshotClosingLine`. Only `end` completes the snapshot: its `nodeCount` is the number
 *    of nodes the node lines held, its `changed` nodes replace theirs. A stream without a closing
 *    line was cut off.
 *
 * A snapshot is this, assembled (`SessionSnapshot`). The state it describes is the session's at one
 * moment: a change published after it reaches a subscriber as an event; none before it does.
 */
export const SNAPSHOT_CONTENT_TYPE = 'application/x-ndjson';

export const SessionSnapshot = Type.Composite([
  Type.Omit(SessionSnapshotEnd, ['nodeCount', 'changed']),
  Type.Object({
    /** Every entry, in file order. */
    nodes: NodeColumns,
  }),
]);
export type SessionSnapshot = Static<typeof SessionSnapshot>;

// ---------------------------------------------------------------- GET /api/sessions/:id/entries/:entryId

export const EntryDetail = Type.Object({
  /** The entry exactly as in the file (after migration of legacy files). */
  entry: JsonObject,
  label: Type.Optional(Type.String()),
  /** For a toolResult: the tool call it answers, when found. */
  toolCall: Type.Optional(LocatedToolCall),
  /** For a branch_summary: what its `fromId` names in this file (the leaf left, or the branch point). */
  summaryOrigin: Type.Optional(BranchSummaryOrigin),
  /** For an assistant message: its usage object verbatim. */
  usage: Type.Optional(JsonObject),
  /** Ids of the children, oldest first. */
  childIds: Type.Array(Type.String()),
});
export type EntryDetail = Static<typeof EntryDetail>;

// ---------------------------------------------------------------- GET /api/sessions/:id/context

export const ContextQuery = Type.Object({
  /** The node to build the context at; the current leaf when absent. */
  at: Type.Optional(EntryId),
});
export type ContextQuery = Static<typeof ContextQuery>;

export const ContextMessageText = Type.Object({
  role: Type.String(),
  text: Type.String(),
});

export const ContextResponse = Type.Object({
  at: Nullable(Type.String()),
  /** buildSessionContext().messages verbatim. */
  messages: Type.Array(JsonObject),
  /** convertToLlm output as role + plain text, what the model sees. */
  llm: Type.Array(ContextMessageText),
  thinkingLevel: Type.String(),
  model: Nullable(Type.Object({ provider: Type.String(), modelId: Type.String() })),
  models: Type.Record(Type.String(), Type.String()),
  mode: Type.String(),
  /** Estimated context tokens. */
  tokens: Type.Integer(),
});
export type ContextResponse = Static<typeof ContextResponse>;

// ---------------------------------------------------------------- POST /api/sessions/:id/navigate

export const NavigateRequest = Type.Object(
  {
    targetId: EntryId,
    summarize: Type.Optional(Type.Boolean()),
    label: Type.Optional(Type.String({ maxLength: 1_000 })),
    // customInstructions, replaceInstructions, summarizerId, onlyIds, summary, clientId
    ...navigateSummaryFields,
  },
  { additionalProperties: false },
);
export type NavigateRequest = Static<typeof NavigateRequest>;

export const NavigateResult = Type.Object({
  /** The target was the current leaf: nothing happened. */
  alreadyAtTarget: Type.Boolean(),
  /** An extension cancelled, or the summary was aborted: nothing was written, the leaf did not move. */
  cancelled: Type.Boolean(),
  aborted: Type.Optional(Type.Boolean()),
  /** Text to prefill the composer (user message or custom_message target). */
  editorText: Type.Optional(Type.String()),
  oldLeafId: Nullable(Type.String()),
  /** The leaf after the move (after any label entry). */
  newLeafId: Nullable(Type.String()),
  summaryEntry: Type.Optional(JsonObject),
});
export type NavigateResult = Static<typeof NavigateResult>;

export const AbortSummaryResponse = Type.Object({ aborted: Type.Boolean() });
export type AbortSummaryResponse = Static<typeof AbortSummaryResponse>;

// ---------------------------------------------------------------- PUT/DELETE /api/sessions/:id/labels/:entryId

export const LabelRequest = Type.Object(
  {
    /** Trimmed by the server; empty clears the label. */
    label: Type.String({ maxLength: 1_000 }),
  },
  { additionalProperties: false },
);
export type LabelRequest = Static<typeof LabelRequest>;

export const LabelResult = Type.Object({
  targetId: Type.String(),
  label: Type.Optional(Type.String()),
  labelEntryId: Type.String(),
  leafId: Nullable(Type.String()),
});
export type LabelResult = Static<typeof LabelResult>;

// ---------------------------------------------------------------- POST /api/sessions/:id/branch, /fork

export const BranchRequest = Type.Object({ entryId: EntryId }, { additionalProperties: false });
export type BranchRequest = Static<typeof BranchRequest>;

export const BranchResult = Type.Object({
  cancelled: Type.Boolean(),
  /** The new session, absent when cancelled. */
  sessionId: Type.Optional(SessionId),
  session: Type.Optional(SessionListItem),
  /** The selected user message's text, to prefill the composer. */
  editorText: Type.String(),
});
export type BranchResult = Static<typeof BranchResult>;

export const ForkResult = Type.Object({
  sessionId: SessionId,
  session: SessionListItem,
});
export type ForkResult = Static<typeof ForkResult>;

// ---------------------------------------------------------------- POST /api/sessions/:id/messages

export const MessageRequest = Type.Object(
  { text: Type.String({ minLength: 1, maxLength: 1_000_000 }) },
  { additionalProperties: false },
);
export type MessageRequest = Static<typeof MessageRequest>;

export const MessageResult = Type.Object({
  entryId: Type.String(),
  leafId: Nullable(Type.String()),
});
export type MessageResult = Static<typeof MessageResult>;
