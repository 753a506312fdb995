// Deep links: `?session=<id>&entry=<id>` in the page URL, plus `&compare=<a>,<b>` for an open compare
// view and `&file=<path>` for an open file lens (docs/branches.md#urls). They survive a reload and can
// be shared between tabs of the same Canopy. The access token (`?token=`) is dropped once the page has
// kept it (net/token.ts), so it never ends up in a shared link or the history.

export interface DeepLink {
  sessionId: string | null;
  entryId: string | null;
  /** The two compared entries (lane A, lane B). */
  compare?: readonly [string, string] | null;
  /** The file lens's path. */
  file?: string | null;
}

/** `a,b`: entry ids are hex or uuid-like and hold no comma; anything else is no compare. */
function parseCompare(text: string | null): readonly [string, string] | null {
  if (!text) return null;
  const parts = text.split(',');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return null;
  return [parts[0], parts[1]];
}

export function parseDeepLink(search: string): Required<DeepLink> {
  const params = new URLSearchParams(search);
  const sessionId = params.get('session') || null;
  const entryId = params.get('entry');
  return {
    sessionId,
    entryId: sessionId && entryId ? entryId : null,
    compare: sessionId ? parseCompare(params.get('compare')) : null,
    file: (sessionId && params.get('file')) || null,
  };
}

/** The query string for a link, keeping unrelated parameters and dropping the token. */
export function formatDeepLink(currentSearch: string, link: DeepLink): string {
  const params = new URLSearchParams(currentSearch);
  for (const key of ['token', 'session', 'entry', 'compare', 'file']) params.delete(key);
  if (link.sessionId) {
    params.set('session', link.sessionId);
    if (link.entryId) params.set('entry', link.entryId);
    if (link.compare) params.set('compare', link.compare.join(','));
    if (link.file) params.set('file', link.file);
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
