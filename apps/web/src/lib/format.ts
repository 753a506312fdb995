// Human-readable numbers for the UI. Counts and timestamps go through one Intl formatter each,
// made once: making one loads the browser's locale data (tens of ms the first time), and
// `toLocaleString` with options makes a new one on every call.

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 10 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(Math.round(tokens));
  if (tokens < 1_000_000) return `${(tokens / 1000).toFixed(tokens < 10_000 ? 1 : 0)}k`;
  return `${(tokens / 1_000_000).toFixed(2)}M`;
}

export function formatCost(dollars: number): string {
  if (dollars === 0) return '$0';
  if (dollars < 0.01) return `$${dollars.toFixed(4)}`;
  return `$${dollars.toFixed(2)}`;
}

/** "3 min ago", "yesterday", or a date; `now` is injected for tests. */
export function formatRelativeTime(ms: number, now: number = Date.now()): string {
  const seconds = Math.round((now - ms) / 1000);
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days === 1) return 'yesterday';
  if (days < 7) return `${days} days ago`;
  return new Date(ms).toISOString().slice(0, 10);
}

let countFormat: Intl.NumberFormat | undefined;
let timestampFormat: Intl.DateTimeFormat | undefined;

/** A count with the user's digit grouping ("12,345"): what `count.toLocaleString()` gives. */
export function formatCount(count: number): string {
  countFormat ??= new Intl.NumberFormat();
  return countFormat.format(count);
}

export function formatTimestamp(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  timestampFormat ??= new Intl.DateTimeFormat(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  return timestampFormat.format(date);
}

/**
 * Makes the formatters ahead of their first use, each in a task of its own (`schedule`), for a
 * page to call while it waits for the network: their cost then falls in short tasks instead of in
 * the first render of the session list or the tree. The browser keeps the locale data loaded, so
 * plain `toLocaleString()` calls elsewhere get cheaper too.
 */
export function prepareFormatters(schedule: (step: () => void) => void): void {
  schedule(() => {
    formatCount(0);
    schedule(() => formatTimestamp('2000-01-01T00:00:00.000Z'));
  });
}

/** "1 issue", "4 issues": a count with its noun in the right number. */
export function countOf(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatCount(count)} ${count === 1 ? singular : pluralForm}`;
}
