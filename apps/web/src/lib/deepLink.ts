// Deep links: `?session=<id>&entry=<id>` in the page URL. They survive a reload and can be shared
// between tabs of the same Canopy. The access token (`?token=`) is dropped once the page has kept it
// (net/token.ts), so it never ends up in a shared link or the history.

export interface DeepLink {
  sessionId: string | null;
  entryId: string | null;
}

export function parseDeepLink(search: string): DeepLink {
  const params = new URLSearchParams(search);
  const sessionId = params.get('session');
  const entryId = params.get('entry');
  return { sessionId: sessionId || null, entryId: sessionId && entryId ? entryId : null };
}

/** The query string for a link, keeping unrelated parameters and dropping the token. */
export function formatDeepLink(currentSearch: string, link: DeepLink): string {
  const params = new URLSearchParams(currentSearch);
  params.delete('token');
  params.delete('session');
  params.delete('entry');
  if (link.sessionId) {
    params.set('session', link.sessionId);
    if (link.entryId) params.set('entry', link.entryId);
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
