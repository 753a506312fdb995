// Where every REST route and the WebSocket live: plain values, no schemas, so the web app builds
// its URLs from the same table the server registers (routes.ts adds each route's schemas).

/** Every REST route's method and URL pattern (Fastify syntax). */
export const ROUTE_PATHS = {
  info: { method: 'GET', url: '/api/info' },
  listSessions: { method: 'GET', url: '/api/sessions' },
  getSession: { method: 'GET', url: '/api/sessions/:id' },
  getEntry: { method: 'GET', url: '/api/sessions/:id/entries/:entryId' },
  getContext: { method: 'GET', url: '/api/sessions/:id/context' },
  /** Two branches compared from where they split (docs/branches.md#compare). */
  compareBranches: { method: 'GET', url: '/api/sessions/:id/compare' },
  /** What a path did to files (docs/branches.md#files). */
  getFiles: { method: 'GET', url: '/api/sessions/:id/files' },
  /** One file across every branch that touched it (docs/branches.md#file-lens). */
  getFileLens: { method: 'GET', url: '/api/sessions/:id/file-lens' },
  navigate: { method: 'POST', url: '/api/sessions/:id/navigate' },
  abortSummary: { method: 'POST', url: '/api/sessions/:id/navigate/abort' },
  previewSummary: { method: 'POST', url: '/api/sessions/:id/summary/preview' },
  summarizeSelection: { method: 'POST', url: '/api/sessions/:id/summary/selection' },
  /** Bringing entries of other branches into the current one (docs/bring-back.md). */
  previewBringBack: { method: 'POST', url: '/api/sessions/:id/bring-back/preview' },
  bringBack: { method: 'POST', url: '/api/sessions/:id/bring-back' },
  getBringBack: { method: 'GET', url: '/api/sessions/:id/bring-back/:entryId' },
  undoBringBack: { method: 'POST', url: '/api/sessions/:id/bring-back/:entryId/undo' },
  setLabel: { method: 'PUT', url: '/api/sessions/:id/labels/:entryId' },
  clearLabel: { method: 'DELETE', url: '/api/sessions/:id/labels/:entryId' },
  /** Archives or restores the branch under an entry (docs/archive-and-family.md#archive). */
  setArchived: { method: 'PUT', url: '/api/sessions/:id/archive/:entryId' },
  /** Branches worth archiving (docs/archive-and-family.md#tidy). */
  tidySuggestions: { method: 'GET', url: '/api/sessions/:id/tidy' },
  /** The files related to a session and where each is grafted (docs/archive-and-family.md#family-of-a-session). */
  getFamily: { method: 'GET', url: '/api/sessions/:id/family' },
  /** A file's run from its first entry to its leaf, drawn as a lane (docs/archive-and-family.md#subagent-lanes). */
  getLane: { method: 'GET', url: '/api/sessions/:id/lane' },
  branch: { method: 'POST', url: '/api/sessions/:id/branch' },
  fork: { method: 'POST', url: '/api/sessions/:id/fork' },
  appendMessage: { method: 'POST', url: '/api/sessions/:id/messages' },
  /** [oh-my-pi] An image blob of the session's agent folder (`<agent dir>/blobs/<hash>`), as bytes. */
  getBlob: { method: 'GET', url: '/api/sessions/:id/blobs/:hash' },
  /** [oh-my-pi] A saved tool output (`<session file without .jsonl>/N.<tool>.log`), as text. */
  getArtifact: { method: 'GET', url: '/api/sessions/:id/artifacts/:artifactId' },
  getSettings: { method: 'GET', url: '/api/settings' },
  putSettings: { method: 'PUT', url: '/api/settings' },
  /** Summary providers: the saved ones, pi's and oh-my-pi's models, configuration problems. */
  listProviders: { method: 'GET', url: '/api/providers' },
  saveProvider: { method: 'POST', url: '/api/providers' },
  deleteProvider: { method: 'DELETE', url: '/api/providers/:providerId' },
  testProvider: { method: 'POST', url: '/api/providers/test' },
  /** The models pi-ai knows for a provider. */
  providerCatalog: { method: 'GET', url: '/api/providers/catalog/:provider' },
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

/**
 * The WebSocket subprotocol the server answers with. A browser cannot put a header on a WebSocket,
 * so the page offers the access token as a second subprotocol, `WS_TOKEN_PROTOCOL_PREFIX + token`
 * (docs/safety.md#access); the server never echoes that one.
 */
export const WS_PROTOCOL = 'canopy';
export const WS_TOKEN_PROTOCOL_PREFIX = 'canopy.token.';
