// REST client. URLs come from the protocol's route table so the browser and the server cannot drift.
// The access token travels in the cookie the server set on the first page load.

import {
  API_ROUTES,
  apiPath,
  type BranchResult,
  type ContextResponse,
  type EntryDetail,
  type ForkResult,
  type InfoResponse,
  type LabelResult,
  type MessageResult,
  type NavigateRequest,
  type NavigateResult,
  type SelectionSummaryRequest,
  type SelectionSummaryResult,
  type SummaryPreview,
  type SummaryPreviewRequest,
  type AbortSummaryResponse,
  type SessionListResponse,
  type Settings,
  type SettingsPatch,
} from '@canopy/protocol';
import { ApiError, errorOf } from './errors';
import { readSnapshot } from './snapshot';

export { ApiError } from './errors';

type Route = { method: string; url: string };

async function call<T>(
  route: Route,
  params: Record<string, string> = {},
  body?: unknown,
  query?: string,
): Promise<T> {
  const url = apiPath(route.url, params) + (query ?? '');
  const init: RequestInit = { method: route.method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (cause) {
    throw new ApiError(0, 'NETWORK', `Cannot reach the Canopy server (${(cause as Error).message})`);
  }
  const text = await response.text();
  if (!response.ok) throw await errorOf(response, text);
  if (!text) return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ApiError(response.status, 'BAD_RESPONSE', `The server answered ${route.url} with invalid JSON`);
  }
}

/** [oh-my-pi] An artifact's text and how much of it the server sent. */
export interface ArtifactText {
  text: string;
  name: string;
  size: number;
  truncated: boolean;
}

async function getArtifact(id: string, artifactId: string): Promise<ArtifactText> {
  const url = apiPath(API_ROUTES.getArtifact.url, { id, artifactId });
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'same-origin' });
  } catch (cause) {
    throw new ApiError(0, 'NETWORK', `Cannot reach the Canopy server (${(cause as Error).message})`);
  }
  const text = await response.text();
  if (!response.ok) throw await errorOf(response, text);
  return {
    text,
    name: response.headers.get('x-canopy-artifact-name') ?? `${artifactId}.log`,
    size: Number(response.headers.get('x-canopy-artifact-size') ?? text.length),
    truncated: response.headers.get('x-canopy-artifact-truncated') === '1',
  };
}

export const api = {
  info: () => call<InfoResponse>(API_ROUTES.info),
  listSessions: () => call<SessionListResponse>(API_ROUTES.listSessions),
  /** The session's snapshot, part by part as it streams in. */
  getSession: readSnapshot,
  getEntry: (id: string, entryId: string) => call<EntryDetail>(API_ROUTES.getEntry, { id, entryId }),
  getContext: (id: string, at: string | null) =>
    call<ContextResponse>(
      API_ROUTES.getContext,
      { id },
      undefined,
      at ? `?at=${encodeURIComponent(at)}` : '',
    ),
  navigate: (id: string, request: NavigateRequest) =>
    call<NavigateResult>(API_ROUTES.navigate, { id }, request),
  setLabel: (id: string, entryId: string, label: string) =>
    call<LabelResult>(API_ROUTES.setLabel, { id, entryId }, { label }),
  clearLabel: (id: string, entryId: string) => call<LabelResult>(API_ROUTES.clearLabel, { id, entryId }),
  branch: (id: string, entryId: string) => call<BranchResult>(API_ROUTES.branch, { id }, { entryId }),
  fork: (id: string) => call<ForkResult>(API_ROUTES.fork, { id }),
  appendMessage: (id: string, text: string) =>
    call<MessageResult>(API_ROUTES.appendMessage, { id }, { text }),
  /** The URL of an image blob; an <img> sends the token cookie with it. */
  blobUrl: (id: string, hash: string) => apiPath(API_ROUTES.getBlob.url, { id, hash }),
  artifactUrl: (id: string, artifactId: string) => apiPath(API_ROUTES.getArtifact.url, { id, artifactId }),
  getArtifact,
  previewSummary: (id: string, request: SummaryPreviewRequest) =>
    call<SummaryPreview>(API_ROUTES.previewSummary, { id }, request),
  summarizeSelection: (id: string, request: SelectionSummaryRequest) =>
    call<SelectionSummaryResult>(API_ROUTES.summarizeSelection, { id }, request),
  abortSummary: (id: string) => call<AbortSummaryResponse>(API_ROUTES.abortSummary, { id }),
  getSettings: () => call<Settings>(API_ROUTES.getSettings),
  putSettings: (patch: SettingsPatch) => call<Settings>(API_ROUTES.putSettings, {}, patch),
};

export type Api = typeof api;
