// REST client. URLs come from the protocol's route table so the browser and the server cannot drift.
// Every request carries the access token as an Authorization header (net/token.ts), never a cookie.

import type {
  ArchiveResult,
  FamilyResponse,
  LaneResponse,
  TidyResponse,
  BranchResult,
  CompareResponse,
  FileLensResponse,
  FilesResponse,
  BringBackInfo,
  BringBackPreview,
  BringBackPreviewRequest,
  BringBackRequest,
  BringBackResult,
  BringBackUndoResult,
  ContextResponse,
  EntryDetail,
  ForkResult,
  InfoResponse,
  LabelResult,
  MessageResult,
  NavigateRequest,
  NavigateResult,
  SelectionSummaryRequest,
  SelectionSummaryResult,
  SummaryPreview,
  SummaryPreviewRequest,
  AbortSummaryResponse,
  SessionListResponse,
  Settings,
  SettingsPatch,
  CatalogResponse,
  ProviderInput,
  ProvidersResponse,
  ProviderTestRequest,
  ProviderTestResult,
} from '@canopy/protocol';
import { ROUTE_PATHS, apiPath } from '@canopy/protocol/values';
import { ApiError, errorOf } from './errors';
import { readSnapshot } from './snapshot';
import { authHeaders } from './token';

export { ApiError } from './errors';

type Route = { method: string; url: string };

async function call<T>(
  route: Route,
  params: Record<string, string> = {},
  body?: unknown,
  query?: string,
): Promise<T> {
  const url = apiPath(route.url, params) + (query ?? '');
  const init: RequestInit = { method: route.method, credentials: 'omit', headers: authHeaders() };
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

/** GET of a resource with the token's header; a refusal is its ApiError. */
async function fetchResource(url: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'omit', headers: authHeaders() });
  } catch (cause) {
    throw new ApiError(0, 'NETWORK', `Cannot reach the Canopy server (${(cause as Error).message})`);
  }
  if (!response.ok) throw await errorOf(response);
  return response;
}

async function getArtifact(id: string, artifactId: string): Promise<ArtifactText> {
  const response = await fetchResource(apiPath(ROUTE_PATHS.getArtifact.url, { id, artifactId }));
  const text = await response.text();
  return {
    text,
    name: response.headers.get('x-canopy-artifact-name') ?? `${artifactId}.log`,
    size: Number(response.headers.get('x-canopy-artifact-size') ?? text.length),
    truncated: response.headers.get('x-canopy-artifact-truncated') === '1',
  };
}

export const api = {
  info: () => call<InfoResponse>(ROUTE_PATHS.info),
  listSessions: () => call<SessionListResponse>(ROUTE_PATHS.listSessions),
  /** The session's snapshot, part by part as it streams in. */
  getSession: readSnapshot,
  getEntry: (id: string, entryId: string) => call<EntryDetail>(ROUTE_PATHS.getEntry, { id, entryId }),
  getContext: (id: string, at: string | null) =>
    call<ContextResponse>(
      ROUTE_PATHS.getContext,
      { id },
      undefined,
      at ? `?at=${encodeURIComponent(at)}` : '',
    ),
  compareBranches: (id: string, a: string, b: string) =>
    call<CompareResponse>(
      ROUTE_PATHS.compareBranches,
      { id },
      undefined,
      `?${new URLSearchParams({ a, b }).toString()}`,
    ),
  /** The files the path to `at` (the leaf when null) changed, counted after `from` when given. */
  getFiles: (id: string, at: string | null, from: string | null) => {
    const query = new URLSearchParams();
    if (at) query.set('at', at);
    if (from) query.set('from', from);
    const text = query.toString();
    return call<FilesResponse>(ROUTE_PATHS.getFiles, { id }, undefined, text ? `?${text}` : '');
  },
  getFileLens: (id: string, path: string) =>
    call<FileLensResponse>(
      ROUTE_PATHS.getFileLens,
      { id },
      undefined,
      `?${new URLSearchParams({ path }).toString()}`,
    ),
  navigate: (id: string, request: NavigateRequest) =>
    call<NavigateResult>(ROUTE_PATHS.navigate, { id }, request),
  setLabel: (id: string, entryId: string, label: string) =>
    call<LabelResult>(ROUTE_PATHS.setLabel, { id, entryId }, { label }),
  clearLabel: (id: string, entryId: string) => call<LabelResult>(ROUTE_PATHS.clearLabel, { id, entryId }),
  setArchived: (id: string, entryId: string, archived: boolean) =>
    call<ArchiveResult>(ROUTE_PATHS.setArchived, { id, entryId }, { archived }),
  tidySuggestions: (id: string) => call<TidyResponse>(ROUTE_PATHS.tidySuggestions, { id }),
  family: (id: string) => call<FamilyResponse>(ROUTE_PATHS.getFamily, { id }),
  /** A family member's run, root to leaf, for its lane in the graph (docs/archive-and-family.md#subagent-lanes). */
  lane: (id: string) => call<LaneResponse>(ROUTE_PATHS.getLane, { id }),
  branch: (id: string, entryId: string) => call<BranchResult>(ROUTE_PATHS.branch, { id }, { entryId }),
  fork: (id: string) => call<ForkResult>(ROUTE_PATHS.fork, { id }),
  appendMessage: (id: string, text: string) =>
    call<MessageResult>(ROUTE_PATHS.appendMessage, { id }, { text }),
  /**
   * An image blob's bytes, fetched with the token's header: the page shows it from an object URL (an
   * <img src> to the API would need a credential the browser sends by itself).
   */
  getBlob: async (id: string, hash: string): Promise<Blob> =>
    (await fetchResource(apiPath(ROUTE_PATHS.getBlob.url, { id, hash }))).blob(),
  getArtifact,
  previewSummary: (id: string, request: SummaryPreviewRequest) =>
    call<SummaryPreview>(ROUTE_PATHS.previewSummary, { id }, request),
  summarizeSelection: (id: string, request: SelectionSummaryRequest) =>
    call<SelectionSummaryResult>(ROUTE_PATHS.summarizeSelection, { id }, request),
  abortSummary: (id: string) => call<AbortSummaryResponse>(ROUTE_PATHS.abortSummary, { id }),
  previewBringBack: (id: string, request: BringBackPreviewRequest) =>
    call<BringBackPreview>(ROUTE_PATHS.previewBringBack, { id }, request),
  bringBack: (id: string, request: BringBackRequest) =>
    call<BringBackResult>(ROUTE_PATHS.bringBack, { id }, request),
  getBringBack: (id: string, entryId: string) =>
    call<BringBackInfo>(ROUTE_PATHS.getBringBack, { id, entryId }),
  undoBringBack: (id: string, entryId: string) =>
    call<BringBackUndoResult>(ROUTE_PATHS.undoBringBack, { id, entryId }),
  getSettings: () => call<Settings>(ROUTE_PATHS.getSettings),
  putSettings: (patch: SettingsPatch) => call<Settings>(ROUTE_PATHS.putSettings, {}, patch),
  listProviders: () => call<ProvidersResponse>(ROUTE_PATHS.listProviders),
  saveProvider: (input: ProviderInput) => call<ProvidersResponse>(ROUTE_PATHS.saveProvider, {}, input),
  deleteProvider: (providerId: string) => call<ProvidersResponse>(ROUTE_PATHS.deleteProvider, { providerId }),
  testProvider: (request: ProviderTestRequest) =>
    call<ProviderTestResult>(ROUTE_PATHS.testProvider, {}, request),
  providerCatalog: (provider: string) => call<CatalogResponse>(ROUTE_PATHS.providerCatalog, { provider }),
};

export type Api = typeof api;
