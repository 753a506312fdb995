import { ErrorResponses } from './common';
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
import { Settings, SettingsPatch } from './settings';
import {
  SelectionSummaryRequest,
  SelectionSummaryResult,
  SummaryPreview,
  SummaryPreviewRequest,
} from './summary';

/**
 * Every REST route: method, URL pattern (Fastify syntax) and its schemas. The server registers
 * exactly these; the browser builds its URLs from them.
 */
export const API_ROUTES = {
  info: { method: 'GET', url: '/api/info', schema: { response: { 200: InfoResponse, ...ErrorResponses } } },
  listSessions: {
    method: 'GET',
    url: '/api/sessions',
    schema: { response: { 200: SessionListResponse, ...ErrorResponses } },
  },
  getSession: {
    method: 'GET',
    url: '/api/sessions/:id',
    schema: { params: SessionParams, response: { 200: SessionSnapshot, ...ErrorResponses } },
  },
  getEntry: {
    method: 'GET',
    url: '/api/sessions/:id/entries/:entryId',
    schema: { params: EntryParams, response: { 200: EntryDetail, ...ErrorResponses } },
  },
  getContext: {
    method: 'GET',
    url: '/api/sessions/:id/context',
    schema: {
      params: SessionParams,
      querystring: ContextQuery,
      response: { 200: ContextResponse, ...ErrorResponses },
    },
  },
  navigate: {
    method: 'POST',
    url: '/api/sessions/:id/navigate',
    schema: {
      params: SessionParams,
      body: NavigateRequest,
      response: { 200: NavigateResult, ...ErrorResponses },
    },
  },
  abortSummary: {
    method: 'POST',
    url: '/api/sessions/:id/navigate/abort',
    schema: { params: SessionParams, response: { 200: AbortSummaryResponse, ...ErrorResponses } },
  },
  previewSummary: {
    method: 'POST',
    url: '/api/sessions/:id/summary/preview',
    schema: {
      params: SessionParams,
      body: SummaryPreviewRequest,
      response: { 200: SummaryPreview, ...ErrorResponses },
    },
  },
  summarizeSelection: {
    method: 'POST',
    url: '/api/sessions/:id/summary/selection',
    schema: {
      params: SessionParams,
      body: SelectionSummaryRequest,
      response: { 200: SelectionSummaryResult, ...ErrorResponses },
    },
  },
  setLabel: {
    method: 'PUT',
    url: '/api/sessions/:id/labels/:entryId',
    schema: { params: EntryParams, body: LabelRequest, response: { 200: LabelResult, ...ErrorResponses } },
  },
  clearLabel: {
    method: 'DELETE',
    url: '/api/sessions/:id/labels/:entryId',
    schema: { params: EntryParams, response: { 200: LabelResult, ...ErrorResponses } },
  },
  branch: {
    method: 'POST',
    url: '/api/sessions/:id/branch',
    schema: {
      params: SessionParams,
      body: BranchRequest,
      response: { 200: BranchResult, ...ErrorResponses },
    },
  },
  fork: {
    method: 'POST',
    url: '/api/sessions/:id/fork',
    schema: { params: SessionParams, response: { 200: ForkResult, ...ErrorResponses } },
  },
  appendMessage: {
    method: 'POST',
    url: '/api/sessions/:id/messages',
    schema: {
      params: SessionParams,
      body: MessageRequest,
      response: { 200: MessageResult, ...ErrorResponses },
    },
  },
  /** [oh-my-pi] An image blob of the session's agent folder (`<agent dir>/blobs/<hash>`), as bytes. */
  getBlob: {
    method: 'GET',
    url: '/api/sessions/:id/blobs/:hash',
    schema: { params: BlobParams, response: ErrorResponses },
  },
  /** [oh-my-pi] A saved tool output (`<session file without .jsonl>/N.<tool>.log`), as text. */
  getArtifact: {
    method: 'GET',
    url: '/api/sessions/:id/artifacts/:artifactId',
    schema: { params: ArtifactParams, response: ErrorResponses },
  },
  getSettings: {
    method: 'GET',
    url: '/api/settings',
    schema: { response: { 200: Settings, ...ErrorResponses } },
  },
  putSettings: {
    method: 'PUT',
    url: '/api/settings',
    schema: { body: SettingsPatch, response: { 200: Settings, ...ErrorResponses } },
  },
} as const;

/** Fills a route's `:param` placeholders (URL-encoded). */
export function apiPath(url: string, params: Record<string, string> = {}): string {
  return url.replace(/:([A-Za-z]+)/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing route parameter ${name}`);
    return encodeURIComponent(value);
  });
}

/** The WebSocket endpoint. */
export const WS_PATH = '/ws';
