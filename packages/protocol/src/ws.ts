import { Type, type Static } from '@sinclair/typebox';
import { ErrorCode, JsonObject, Nullable, SessionId } from './common';
import { ListingProgress, SessionListItem } from './rest';
import { NodeColumns } from './node-columns';

// ---------------------------------------------------------------- server → browser

export const HelloEvent = Type.Object({
  type: Type.Literal('hello'),
  protocolVersion: Type.Integer(),
  /** Names this connection in summary requests, so its closing aborts their generation. */
  clientId: Type.Optional(Type.String()),
});

export const ENTRY_SOURCES = ['external', 'canopy'] as const;

export const LEAF_NOTICE_REASONS = ['stored-leaf-missing', 'file-changed'] as const;

/** Where the leaf is after a change, and why it went there when that needs telling. */
export const LeafChange = Type.Object({
  id: Nullable(Type.String()),
  previousId: Nullable(Type.String()),
  /** The branch summary written by a navigation that summarised the abandoned path. */
  summaryEntry: Type.Optional(JsonObject),
  /** The navigation came from an extension. */
  fromExtension: Type.Optional(Type.Boolean()),
  /** The leaf could not stay where it was stored; shown to the user. */
  notice: Type.Optional(
    Type.Object({
      reason: Type.Union(LEAF_NOTICE_REASONS.map((reason) => Type.Literal(reason))),
      message: Type.String(),
    }),
  ),
});

/**
 * Everything one change did to an open session, in one message: the nodes it appended, the nodes
 * whose row it changed (a label set or cleared, a tool result whose call arrived after it), where
 * the leaf went, and whether another process is writing. Absent fields did not change. Canopy's own
 * writes arrive through this event too, exactly once; REST replies carry ids, never nodes.
 */
export const SessionChangedEvent = Type.Object({
  type: Type.Literal('session_changed'),
  sessionId: SessionId,
  source: Type.Union(ENTRY_SOURCES.map((source) => Type.Literal(source))),
  /** New nodes, in file order. */
  added: Type.Optional(NodeColumns),
  /** Nodes sent before, replaced whole. */
  changed: Type.Optional(NodeColumns),
  leaf: Type.Optional(LeafChange),
  /** Another process started (true) or stopped (false) appending to the file. */
  writerActive: Type.Optional(Type.Boolean()),
});

export const RELOAD_REASONS = ['truncated', 'replaced', 'rewritten', 'migrated'] as const;
export type ReloadReason = (typeof RELOAD_REASONS)[number];

/** The file changed in a way that cannot be tailed; the browser should fetch a new snapshot. */
export const SessionReloadedEvent = Type.Object({
  type: Type.Literal('session_reloaded'),
  sessionId: SessionId,
  reason: Type.Union(RELOAD_REASONS.map((reason) => Type.Literal(reason))),
});

/**
 * Rows of the session list that changed (from an open session's own state, or a file under the
 * roots that appeared, grew or went away) — the browser patches its list, it never refetches it.
 */
export const SessionListChangedEvent = Type.Object({
  type: Type.Literal('session_list_changed'),
  upserted: Type.Array(SessionListItem),
  removed: Type.Array(SessionId),
  /**
   * Only during and at the end of the server's first reading of the folders: how far it is, or
   * `null` once every file is read (the list is whole: a page that missed rows fetches it again).
   */
  listing: Type.Optional(Nullable(ListingProgress)),
});

export const SUMMARY_PHASES = ['started', 'progress', 'done', 'aborted', 'failed'] as const;
/**
 * What the summariser is doing during `progress`: preparing the entries, waiting for the model's
 * first token, generating (text arrives), retrying after a transient failure, finishing.
 */
export const SUMMARY_STEPS = ['preparing', 'waiting', 'generating', 'retrying', 'finishing'] as const;
export const SUMMARY_KINDS = ['navigate', 'selection'] as const;

export const SummaryProgressEvent = Type.Object({
  type: Type.Literal('summary_progress'),
  sessionId: SessionId,
  /** The navigation target, or for a selection its newest entry. */
  targetId: Type.String(),
  kind: Type.Optional(Type.Union(SUMMARY_KINDS.map((kind) => Type.Literal(kind)))),
  phase: Type.Union(SUMMARY_PHASES.map((phase) => Type.Literal(phase))),
  step: Type.Optional(Type.Union(SUMMARY_STEPS.map((step) => Type.Literal(step)))),
  /** The error of a failed summary, or (step `retrying`) why the request is tried again. */
  message: Type.Optional(Type.String()),
  /** 0..1 when the summariser can tell. */
  fraction: Type.Optional(Type.Number()),
  /**
   * Text generated since the previous event (step `generating`): the page appends it. Increments
   * that arrive together are sent as one, at most one event per frame (about 16 ms).
   */
  delta: Type.Optional(Type.String()),
  /** Tokens of the answer so far (characters / 4), with `delta`. */
  tokens: Type.Optional(Type.Integer()),
  /** Step `waiting`: the model being waited for (`provider/model`). */
  model: Type.Optional(Type.String()),
  /** Step `retrying`: which try comes next, of how many, after how long. */
  attempt: Type.Optional(Type.Integer()),
  maxAttempts: Type.Optional(Type.Integer()),
  delayMs: Type.Optional(Type.Integer()),
});

export const ErrorEvent = Type.Object({
  type: Type.Literal('error'),
  code: ErrorCode,
  message: Type.String(),
  sessionId: Type.Optional(Type.String()),
});

export const PongEvent = Type.Object({
  type: Type.Literal('pong'),
  id: Type.Optional(Type.String()),
});

/** Acknowledges a subscribe; events for the session follow. */
export const SubscribedEvent = Type.Object({
  type: Type.Literal('subscribed'),
  sessionId: SessionId,
  leafId: Nullable(Type.String()),
});

export const ServerEvent = Type.Union([
  HelloEvent,
  SessionChangedEvent,
  SessionReloadedEvent,
  SessionListChangedEvent,
  SummaryProgressEvent,
  ErrorEvent,
  PongEvent,
  SubscribedEvent,
]);
export type ServerEvent = Static<typeof ServerEvent>;
export type ServerEventType = ServerEvent['type'];
export type ServerEventOf<T extends ServerEventType> = Extract<ServerEvent, { type: T }>;

export type HelloEvent = Static<typeof HelloEvent>;
export type LeafChange = Static<typeof LeafChange>;
export type SessionChangedEvent = Static<typeof SessionChangedEvent>;
export type SessionReloadedEvent = Static<typeof SessionReloadedEvent>;
export type SessionListChangedEvent = Static<typeof SessionListChangedEvent>;
export type SummaryProgressEvent = Static<typeof SummaryProgressEvent>;
export type ErrorEvent = Static<typeof ErrorEvent>;
export type PongEvent = Static<typeof PongEvent>;
export type SubscribedEvent = Static<typeof SubscribedEvent>;

// ---------------------------------------------------------------- browser → server

export const SubscribeMessage = Type.Object(
  { type: Type.Literal('subscribe'), sessionId: SessionId },
  { additionalProperties: false },
);
export const UnsubscribeMessage = Type.Object(
  { type: Type.Literal('unsubscribe'), sessionId: SessionId },
  { additionalProperties: false },
);
export const PingMessage = Type.Object(
  { type: Type.Literal('ping'), id: Type.Optional(Type.String({ maxLength: 64 })) },
  { additionalProperties: false },
);
/** Abort the summary being generated for a navigation on that session. */
export const AbortSummaryMessage = Type.Object(
  { type: Type.Literal('abort_summary'), sessionId: SessionId },
  { additionalProperties: false },
);

export const ClientMessage = Type.Union([
  SubscribeMessage,
  UnsubscribeMessage,
  PingMessage,
  AbortSummaryMessage,
]);
export type ClientMessage = Static<typeof ClientMessage>;
export type ClientMessageType = ClientMessage['type'];

export type SubscribeMessage = Static<typeof SubscribeMessage>;
export type UnsubscribeMessage = Static<typeof UnsubscribeMessage>;
export type PingMessage = Static<typeof PingMessage>;
export type AbortSummaryMessage = Static<typeof AbortSummaryMessage>;

/** Largest WebSocket message the server accepts from a browser. */
export const MAX_CLIENT_MESSAGE_BYTES = 4096;
