// Public API of @canopy/protocol: the one source of truth for every REST body and WebSocket message.
export {
  ERROR_CODES,
  ErrorCode,
  ErrorInfo,
  ErrorBody,
  ErrorResponses,
  EntryId,
  SessionId,
  JsonObject,
  Nullable,
} from './common';
export { UsageNumbers, NodeColumns } from './node-columns';
export type { TreeNode } from './node-columns';
export { FilterMode, Dialect, ParseIssue, LocatedToolCall, BranchSummaryOrigin } from './vocabulary';
export type { SameType, Assert } from './vocabulary';
export { DoubleEscapeAction, Settings, SettingsPatch } from './settings';
export {
  RootInfo,
  InfoResponse,
  SessionListItem,
  SessionListResponse,
  ListingProgress,
  SessionParams,
  EntryParams,
  BlobParams,
  ArtifactParams,
  SessionSnapshot,
  SessionSnapshotHead,
  SessionSnapshotEnd,
  SnapshotReadLine,
  SnapshotClosingLine,
  SNAPSHOT_CONTENT_TYPE,
  EntryDetail,
  ContextQuery,
  ContextMessageText,
  ContextResponse,
  NavigateRequest,
  NavigateResult,
  AbortSummaryResponse,
  LabelRequest,
  LabelResult,
  BranchRequest,
  BranchResult,
  ForkResult,
  MessageRequest,
  MessageResult,
} from './rest';
export {
  HelloEvent,
  ENTRY_SOURCES,
  LEAF_NOTICE_REASONS,
  LeafChange,
  SessionChangedEvent,
  RELOAD_REASONS,
  SessionReloadedEvent,
  SessionListChangedEvent,
  SUMMARY_PHASES,
  SUMMARY_STEPS,
  SUMMARY_KINDS,
  SummaryProgressEvent,
  ErrorEvent,
  PongEvent,
  SubscribedEvent,
  ServerEvent,
  SubscribeMessage,
  UnsubscribeMessage,
  PingMessage,
  AbortSummaryMessage,
  ClientMessage,
  MAX_CLIENT_MESSAGE_BYTES,
} from './ws';
export {
  ProvidedSummary,
  SelectionIds,
  NavigateSummarySource,
  SelectionSummarySource,
  SummaryPreviewRequest,
  SummaryPreview,
  SelectionSummaryRequest,
  SelectionSummaryResult,
  SummarizerInfo,
  SummarySent,
  SelectionShape,
  LEFT_OUT_REASONS,
} from './summary';
export type { ReloadReason, ServerEventType, ServerEventOf, ClientMessageType } from './ws';
export { createValidator, clientMessageValidator, serverEventValidator } from './validate';
export type { Validator } from './validate';
export { API_ROUTES } from './routes';
export { ArchiveRequest, ArchiveResult, TidyReason, TidySuggestionItem, TidyResponse } from './archive';
export {
  FamilyKind,
  FamilyMemberItem,
  FamilyProblemCode,
  FamilyResponse,
  LaneEntryItem,
  LaneResponse,
  MAX_LANE_ENTRIES,
} from './family';
export {
  BringBackForm,
  BringBackPreviewRequest,
  BringBackPreview,
  BringBackRequest,
  BringBackResult,
  BringBackUndoState,
  BringBackInfo,
  BringBackUndoResult,
} from './bring-back';
export {
  CatalogModel,
  CatalogParams,
  CatalogResponse,
  DiscoveredView,
  ProviderInput,
  ProviderParams,
  ProviderProblem,
  ProvidersResponse,
  ProviderTestRequest,
  ProviderTestResult,
  ProviderView,
} from './providers';
// Every plain value too, as `@canopy/protocol/values` lists them.
export * from './values';
export {
  CompareQuery,
  CompareResponse,
  DiffHunk,
  DiffLine,
  FILE_LENS_MAX_BRANCHES,
  FileLensQuery,
  FileLensResponse,
  FilesQuery,
  FilesResponse,
} from './branches';
