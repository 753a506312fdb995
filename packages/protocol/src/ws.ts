import { Type, type Static } from '@sinclair/typebox';
import { ErrorCode, JsonObject, Nullable, SessionId } from './common';
import { SkeletonNode } from './skeleton';

// ---------------------------------------------------------------- server → browser

export const HelloEvent = Type.Object({
  type: Type.Literal('hello'),
  protocolVersion: Type.Integer(),
  /** Names this connection in summary requests, so its closing aborts their generation. */
  clientId: Type.Optional(Type.String()),
});

/** The leaf moved (a navigation here, from another tab, or from an extension). */
export const SessionTreeEvent = Type.Object({
  type: Type.Literal('session_tree'),
  sessionId: SessionId,
  newLeafId: Nullable(Type.String()),
  oldLeafId: Nullable(Type.String()),
  summaryEntry: Type.Optional(JsonObject),
  fromExtension: Type.Optional(Type.Boolean()),
});

export const ENTRY_SOURCES = ['external', 'canopy'] as const;

/** New entries: tailed from another writer, or written by Canopy itself. */
export const EntriesAppendedEvent = Type.Object({
  type: Type.Literal('entries_appended'),
  sessionId: SessionId,
  nodes: Type.Array(SkeletonNode),
  /** The leaf after these entries (it follows an external writer continuing from the leaf). */
  leafId: Nullable(Type.String()),
  source: Type.Union(ENTRY_SOURCES.map((source) => Type.Literal(source))),
});

export const LabelChangedEvent = Type.Object({
  type: Type.Literal('label_changed'),
  sessionId: SessionId,
  targetId: Type.String(),
  /** Absent when cleared. */
  label: Type.Optional(Type.String()),
  labelEntryId: Type.String(),
});

export const RELOAD_REASONS = ['truncated', 'replaced', 'rewritten', 'migrated'] as const;
export type ReloadReason = (typeof RELOAD_REASONS)[number];

/** The file changed in a way that cannot be tailed; the browser should fetch a new snapshot. */
export const SessionReloadedEvent = Type.Object({
  type: Type.Literal('session_reloaded'),
  sessionId: SessionId,
  reason: Type.Union(RELOAD_REASONS.map((reason) => Type.Literal(reason))),
});

/** The session list changed (a file added, removed, or grown); refetch GET /api/sessions. */
export const SessionsChangedEvent = Type.Object({
  type: Type.Literal('sessions_changed'),
});

export const SUMMARY_PHASES = ['started', 'progress', 'done', 'aborted', 'failed'] as const;
/** What the summariser is doing during `progress`. */
export const SUMMARY_STEPS = ['preparing', 'generating', 'finishing'] as const;
export const SUMMARY_KINDS = ['navigate', 'selection'] as const;

export const SummaryProgressEvent = Type.Object({
  type: Type.Literal('summary_progress'),
  sessionId: SessionId,
  /** The navigation target, or for a selection its newest entry. */
  targetId: Type.String(),
  kind: Type.Optional(Type.Union(SUMMARY_KINDS.map((kind) => Type.Literal(kind)))),
  phase: Type.Union(SUMMARY_PHASES.map((phase) => Type.Literal(phase))),
  step: Type.Optional(Type.Union(SUMMARY_STEPS.map((step) => Type.Literal(step)))),
  /** The error of a failed summary. */
  message: Type.Optional(Type.String()),
  /** 0..1 when the summariser can tell. */
  fraction: Type.Optional(Type.Number()),
  /** The text generated so far, when the summariser streams. */
  text: Type.Optional(Type.String()),
});

/** Another process is (or stopped) appending to the file. */
export const WriterActiveEvent = Type.Object({
  type: Type.Literal('writer_active'),
  sessionId: SessionId,
  active: Type.Boolean(),
});

export const LEAF_NOTICE_REASONS = ['stored-leaf-missing', 'file-changed'] as const;

/** The stored leaf could not be kept; the leaf fell back to the last line. */
export const LeafNoticeEvent = Type.Object({
  type: Type.Literal('leaf_notice'),
  sessionId: SessionId,
  leafId: Nullable(Type.String()),
  previousLeafId: Nullable(Type.String()),
  reason: Type.Union(LEAF_NOTICE_REASONS.map((reason) => Type.Literal(reason))),
  message: Type.String(),
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
  SessionTreeEvent,
  EntriesAppendedEvent,
  LabelChangedEvent,
  SessionReloadedEvent,
  SessionsChangedEvent,
  SummaryProgressEvent,
  WriterActiveEvent,
  LeafNoticeEvent,
  ErrorEvent,
  PongEvent,
  SubscribedEvent,
]);
export type ServerEvent = Static<typeof ServerEvent>;
export type ServerEventType = ServerEvent['type'];
export type ServerEventOf<T extends ServerEventType> = Extract<ServerEvent, { type: T }>;

export type HelloEvent = Static<typeof HelloEvent>;
export type SessionTreeEvent = Static<typeof SessionTreeEvent>;
export type EntriesAppendedEvent = Static<typeof EntriesAppendedEvent>;
export type LabelChangedEvent = Static<typeof LabelChangedEvent>;
export type SessionReloadedEvent = Static<typeof SessionReloadedEvent>;
export type SessionsChangedEvent = Static<typeof SessionsChangedEvent>;
export type SummaryProgressEvent = Static<typeof SummaryProgressEvent>;
export type WriterActiveEvent = Static<typeof WriterActiveEvent>;
export type LeafNoticeEvent = Static<typeof LeafNoticeEvent>;
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
