/** The rejection of an aborted summary: an Error named 'AbortError', as `fetch` and Node reject. */
export function abortError(message = 'The summary was aborted'): Error {
  const error = new Error(message);
  error.name = 'AbortError';
  return error;
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortError();
}
