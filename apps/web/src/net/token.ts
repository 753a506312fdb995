// The access token (docs/safety.md#access). The server prints it in the page's URL (`?token=`); the
// page keeps it in memory and in this tab's sessionStorage (a reload keeps it; only a page of this
// same origin, scheme, host and port, can read it), takes it out of the address bar, and sends it
// on purpose with each request: an `Authorization: Bearer` header on every fetch, a subprotocol on
// the WebSocket, which cannot carry a header. Never a cookie: a browser sends localhost cookies to
// every port, so any other local server would receive it. Images and downloads that need it are
// fetched with the header and shown from an object URL (resource.ts).

import { WS_PROTOCOL, WS_TOKEN_PROTOCOL_PREFIX } from '@canopy/protocol/values';

const STORAGE_KEY = 'canopy.token';

let token: string | null = null;

/** The tab's session storage, or undefined where there is none (a worker, a test, a locked-down page). */
function storage(): Storage | undefined {
  try {
    return typeof sessionStorage === 'undefined' ? undefined : sessionStorage;
  } catch {
    return undefined;
  }
}

/**
 * Takes the token from the page's query (`?token=`), into memory and the tab's session storage; with
 * none there, the one this tab kept (a reload). Answers the query without it, for the address bar.
 */
export function adoptToken(search: string): string {
  const params = new URLSearchParams(search);
  const given = params.get('token');
  if (given) {
    token = given;
    try {
      storage()?.setItem(STORAGE_KEY, given);
    } catch {
      // Storage full or refused: the token still lives in memory for this page.
    }
    params.delete('token');
  } else {
    token = storage()?.getItem(STORAGE_KEY) ?? null;
  }
  const rest = params.toString();
  return rest ? `?${rest}` : '';
}

/** Sets the token directly (the snapshot worker gets it from the page; tests). */
export function setAccessToken(value: string | null): void {
  token = value;
}

export function accessToken(): string | null {
  return token;
}

/** The header every request carries (none without a token: the server then says UNAUTHORIZED). */
export function authHeaders(): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** The subprotocols the WebSocket offers: `canopy`, and the token as `canopy.token.<token>`. */
export function socketProtocols(): string[] {
  return token ? [WS_PROTOCOL, `${WS_TOKEN_PROTOCOL_PREFIX}${token}`] : [WS_PROTOCOL];
}
