// Reconnect delays: exponential with "equal jitter" so that many tabs do not reconnect in lockstep
// after a server restart, capped so a long outage still retries every few seconds.

export interface BackoffOptions {
  baseMs?: number;
  maxMs?: number;
  /** Injected for tests; defaults to Math.random. */
  random?: () => number;
}

export function backoffDelay(attempt: number, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? 300;
  const max = options.maxMs ?? 8000;
  const random = options.random ?? Math.random;
  const ceiling = Math.min(max, base * 2 ** Math.max(0, attempt));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
