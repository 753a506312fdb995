// Fetches one session's snapshot and hands its parts over as they are decoded. The same function
// runs in the snapshot worker (the browser) and on the calling thread (where there are no workers),
// so a refusal, a cut stream or a bad line is reported alike on both.

import { errorOf } from './errors';
import {
  SnapshotDecodeError,
  SnapshotDecoder,
  type SnapshotFailure,
  type SnapshotPart,
} from './snapshotDecoder';

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Thrown by `streamSnapshot`: what went wrong, as plain data that can cross to another thread. */
export class SnapshotStreamError extends Error {
  constructor(readonly failure: SnapshotFailure) {
    super(failure.message);
    this.name = 'SnapshotStreamError';
  }
}

function failed(status: number, code: string, message: string): SnapshotStreamError {
  return new SnapshotStreamError({ status, code, message });
}

/**
 * Streams `url` (requested with `headers`: the access token's) through a `SnapshotDecoder`, calling
 * `emit` with each part in order. Resolves when
 * every node came; throws SnapshotStreamError otherwise, or the abort's own error when `signal` fired.
 */
export async function streamSnapshot(
  url: string,
  signal: AbortSignal,
  emit: (part: SnapshotPart) => void,
  fetchImpl: FetchLike = fetch,
  headers: Record<string, string> = {},
): Promise<void> {
  let response: Response;
  try {
    // The access token goes as a header (net/token.ts), never as a cookie.
    response = await fetchImpl(url, { credentials: 'omit', headers, signal });
  } catch (cause) {
    signal.throwIfAborted();
    throw failed(0, 'NETWORK', `Cannot reach the Canopy server (${(cause as Error).message})`);
  }
  if (!response.ok || !response.body) {
    const error = await errorOf(response);
    throw failed(error.status, error.code, error.message);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const decoder = new SnapshotDecoder();
  let complete = false;
  // fetch() stops a body it was given the signal for; this stops any body (a test's, a proxy's).
  const stop = () => void reader.cancel(signal.reason).catch(() => undefined);
  signal.addEventListener('abort', stop);
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<string>;
      try {
        chunk = await reader.read();
      } catch (cause) {
        signal.throwIfAborted();
        throw failed(0, 'SNAPSHOT_CUT', `The snapshot stopped arriving (${(cause as Error).message})`);
      }
      signal.throwIfAborted();
      if (chunk.done) break;
      for (const part of decoder.push(chunk.value)) emit(part);
    }
    for (const part of decoder.end()) emit(part);
    complete = true;
  } catch (error) {
    if (error instanceof SnapshotDecodeError) throw failed(0, error.code, error.message);
    throw error;
  } finally {
    signal.removeEventListener('abort', stop);
    // A failed decode leaves the rest unread: stop the download instead of letting it run on.
    if (!complete) void reader.cancel().catch(() => undefined);
  }
}
