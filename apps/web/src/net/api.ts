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
  type SessionSnapshot,
  type Settings,
  type SettingsPatch,
} from '@canopy/protocol';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

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
  let json: unknown = undefined;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  if (!response.ok) {
    const error = (json as { error?: { code?: string; message?: string } } | undefined)?.error;
    throw new ApiError(
      response.status,
      error?.code ?? `HTTP_${response.status}`,
      error?.message ?? response.statusText,
    );
  }
  return json as T;
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
  if (!response.ok) {
    let error: { code?: string; message?: string } | undefined;
    try {
      error = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
    } catch {
      error = undefined;
    }
    throw new ApiError(
      response.status,
      error?.code ?? `HTTP_${response.status}`,
      error?.message ?? response.statusText,
    );
  }
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
  getSession: (id: string) => call<SessionSnapshot>(API_ROUTES.getSession, { id }),
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
