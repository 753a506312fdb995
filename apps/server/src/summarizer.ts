import { AppError } from './errors';

import type { Summarizer } from '@canopy/summarizer';

export type {
  SummarizeOptions,
  Summarizer,
  SummaryDetails,
  SummaryProgress,
  SummaryResult,
} from '@canopy/summarizer';

/**
 * The summarisers offered to browsers, and which one a request without a choice gets. Replaced as a
 * whole when providers change (the settings dialog, pi's configuration read again): no restart.
 */
export class SummarizerRegistry {
  private byId = new Map<string, Summarizer>();
  private currentDefault: string | null;

  constructor(summarizers: readonly Summarizer[], defaultId: string | null = summarizers[0]?.id ?? null) {
    this.currentDefault = null;
    this.replace(summarizers, defaultId);
  }

  get defaultId(): string | null {
    return this.currentDefault;
  }

  /** Offers these summarisers from now on; requests already running keep theirs. */
  replace(summarizers: readonly Summarizer[], defaultId: string | null = summarizers[0]?.id ?? null): void {
    const byId = new Map<string, Summarizer>();
    for (const summarizer of summarizers) byId.set(summarizer.id, summarizer);
    if (defaultId !== null && !byId.has(defaultId))
      throw new Error(`default summariser "${defaultId}" is not among the configured ones`);
    this.byId = byId;
    this.currentDefault = defaultId;
  }

  get size(): number {
    return this.byId.size;
  }

  list(): Array<{ id: string; label: string; source?: string }> {
    return [...this.byId.values()].map(({ id, label, source }) => ({
      id,
      label,
      ...(source ? { source } : {}),
    }));
  }

  /**
   * The summariser a request asked for; else the preferred one (the settings' choice) when it is
   * still offered; else the default.
   */
  resolve(requestedId: string | undefined, preferredId?: string): Summarizer {
    if (requestedId !== undefined) {
      const chosen = this.byId.get(requestedId);
      if (!chosen) {
        const offered = [...this.byId.keys()].join(', ') || 'none';
        throw new AppError(
          'UNKNOWN_SUMMARIZER',
          `No summariser "${requestedId}" is configured (offered: ${offered}).`,
        );
      }
      return chosen;
    }
    const fallback =
      (preferredId !== undefined ? this.byId.get(preferredId) : undefined) ??
      (this.defaultId !== null ? this.byId.get(this.defaultId) : undefined);
    if (!fallback) {
      throw new AppError(
        'NO_SUMMARIZER',
        'No summariser is configured, so nothing can be summarised; navigate without a summary.',
      );
    }
    return fallback;
  }
}
