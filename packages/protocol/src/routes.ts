import {
  CompareQuery,
  CompareResponse,
  FileLensQuery,
  FileLensResponse,
  FilesQuery,
  FilesResponse,
} from './branches';
import {
  BringBackInfo,
  BringBackPreview,
  BringBackPreviewRequest,
  BringBackRequest,
  BringBackResult,
  BringBackUndoResult,
} from './bring-back';
import { ErrorResponses } from './common';
import { ArchiveRequest, ArchiveResult, TidyResponse } from './archive';
import { FamilyResponse, LaneResponse } from './family';
import { ROUTE_PATHS } from './paths';
import {
  AbortSummaryResponse,
  ArtifactParams,
  BlobParams,
  BranchRequest,
  BranchResult,
  ContextQuery,
  ContextResponse,
  EntryDetail,
  EntryParams,
  ForkResult,
  InfoResponse,
  LabelRequest,
  LabelResult,
  MessageRequest,
  MessageResult,
  NavigateRequest,
  NavigateResult,
  SessionListResponse,
  SessionParams,
  SessionSnapshot,
} from './rest';
import {
  CatalogParams,
  CatalogResponse,
  ProviderInput,
  ProviderParams,
  ProvidersResponse,
  ProviderTestRequest,
  ProviderTestResult,
} from './providers';
import { Settings, SettingsPatch } from './settings';
import {
  SelectionSummaryRequest,
  SelectionSummaryResult,
  SummaryPreview,
  SummaryPreviewRequest,
} from './summary';

/**
 * Every REST route: its method and URL pattern (paths.ts) and its schemas. The server registers
 * exactly these; the browser builds its URLs from paths.ts alone.
 */
export const API_ROUTES = {
  info: { ...ROUTE_PATHS.info, schema: { response: { 200: InfoResponse, ...ErrorResponses } } },
  listSessions: {
    ...ROUTE_PATHS.listSessions,
    schema: { response: { 200: SessionListResponse, ...ErrorResponses } },
  },
  getSession: {
    ...ROUTE_PATHS.getSession,
    schema: { params: SessionParams, response: { 200: SessionSnapshot, ...ErrorResponses } },
  },
  getEntry: {
    ...ROUTE_PATHS.getEntry,
    schema: { params: EntryParams, response: { 200: EntryDetail, ...ErrorResponses } },
  },
  getContext: {
    ...ROUTE_PATHS.getContext,
    schema: {
      params: SessionParams,
      querystring: ContextQuery,
      response: { 200: ContextResponse, ...ErrorResponses },
    },
  },
  compareBranches: {
    ...ROUTE_PATHS.compareBranches,
    schema: {
      params: SessionParams,
      querystring: CompareQuery,
      response: { 200: CompareResponse, ...ErrorResponses },
    },
  },
  getFiles: {
    ...ROUTE_PATHS.getFiles,
    schema: {
      params: SessionParams,
      querystring: FilesQuery,
      response: { 200: FilesResponse, ...ErrorResponses },
    },
  },
  getFileLens: {
    ...ROUTE_PATHS.getFileLens,
    schema: {
      params: SessionParams,
      querystring: FileLensQuery,
      response: { 200: FileLensResponse, ...ErrorResponses },
    },
  },
  navigate: {
    ...ROUTE_PATHS.navigate,
    schema: {
      params: SessionParams,
      body: NavigateRequest,
      response: { 200: NavigateResult, ...ErrorResponses },
    },
  },
  abortSummary: {
    ...ROUTE_PATHS.abortSummary,
    schema: { params: SessionParams, response: { 200: AbortSummaryResponse, ...ErrorResponses } },
  },
  previewSummary: {
    ...ROUTE_PATHS.previewSummary,
    schema: {
      params: SessionParams,
      body: SummaryPreviewRequest,
      response: { 200: SummaryPreview, ...ErrorResponses },
    },
  },
  summarizeSelection: {
    ...ROUTE_PATHS.summarizeSelection,
    schema: {
      params: SessionParams,
      body: SelectionSummaryRequest,
      response: { 200: SelectionSummaryResult, ...ErrorResponses },
    },
  },
  previewBringBack: {
    ...ROUTE_PATHS.previewBringBack,
    schema: {
      params: SessionParams,
      body: BringBackPreviewRequest,
      response: { 200: BringBackPreview, ...ErrorResponses },
    },
  },
  bringBack: {
    ...ROUTE_PATHS.bringBack,
    schema: {
      params: SessionParams,
      body: BringBackRequest,
      response: { 200: BringBackResult, ...ErrorResponses },
    },
  },
  getBringBack: {
    ...ROUTE_PATHS.getBringBack,
    schema: { params: EntryParams, response: { 200: BringBackInfo, ...ErrorResponses } },
  },
  undoBringBack: {
    ...ROUTE_PATHS.undoBringBack,
    schema: { params: EntryParams, response: { 200: BringBackUndoResult, ...ErrorResponses } },
  },
  setLabel: {
    ...ROUTE_PATHS.setLabel,
    schema: { params: EntryParams, body: LabelRequest, response: { 200: LabelResult, ...ErrorResponses } },
  },
  clearLabel: {
    ...ROUTE_PATHS.clearLabel,
    schema: { params: EntryParams, response: { 200: LabelResult, ...ErrorResponses } },
  },
  setArchived: {
    ...ROUTE_PATHS.setArchived,
    schema: {
      params: EntryParams,
      body: ArchiveRequest,
      response: { 200: ArchiveResult, ...ErrorResponses },
    },
  },
  tidySuggestions: {
    ...ROUTE_PATHS.tidySuggestions,
    schema: { params: SessionParams, response: { 200: TidyResponse, ...ErrorResponses } },
  },
  getFamily: {
    ...ROUTE_PATHS.getFamily,
    schema: { params: SessionParams, response: { 200: FamilyResponse, ...ErrorResponses } },
  },
  getLane: {
    ...ROUTE_PATHS.getLane,
    schema: { params: SessionParams, response: { 200: LaneResponse, ...ErrorResponses } },
  },
  branch: {
    ...ROUTE_PATHS.branch,
    schema: {
      params: SessionParams,
      body: BranchRequest,
      response: { 200: BranchResult, ...ErrorResponses },
    },
  },
  fork: {
    ...ROUTE_PATHS.fork,
    schema: { params: SessionParams, response: { 200: ForkResult, ...ErrorResponses } },
  },
  appendMessage: {
    ...ROUTE_PATHS.appendMessage,
    schema: {
      params: SessionParams,
      body: MessageRequest,
      response: { 200: MessageResult, ...ErrorResponses },
    },
  },
  getBlob: {
    ...ROUTE_PATHS.getBlob,
    schema: { params: BlobParams, response: ErrorResponses },
  },
  getArtifact: {
    ...ROUTE_PATHS.getArtifact,
    schema: { params: ArtifactParams, response: ErrorResponses },
  },
  getSettings: {
    ...ROUTE_PATHS.getSettings,
    schema: { response: { 200: Settings, ...ErrorResponses } },
  },
  putSettings: {
    ...ROUTE_PATHS.putSettings,
    schema: { body: SettingsPatch, response: { 200: Settings, ...ErrorResponses } },
  },
  listProviders: {
    ...ROUTE_PATHS.listProviders,
    schema: { response: { 200: ProvidersResponse, ...ErrorResponses } },
  },
  saveProvider: {
    ...ROUTE_PATHS.saveProvider,
    schema: { body: ProviderInput, response: { 200: ProvidersResponse, ...ErrorResponses } },
  },
  deleteProvider: {
    ...ROUTE_PATHS.deleteProvider,
    schema: { params: ProviderParams, response: { 200: ProvidersResponse, ...ErrorResponses } },
  },
  testProvider: {
    ...ROUTE_PATHS.testProvider,
    schema: { body: ProviderTestRequest, response: { 200: ProviderTestResult, ...ErrorResponses } },
  },
  providerCatalog: {
    ...ROUTE_PATHS.providerCatalog,
    schema: { params: CatalogParams, response: { 200: CatalogResponse, ...ErrorResponses } },
  },
} as const satisfies Record<keyof typeof ROUTE_PATHS, unknown>;
