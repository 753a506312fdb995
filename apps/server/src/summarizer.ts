import { AppError } from './errors';

import type { Summarizer } from '@canopy/summarizer';

export type {
  SummarizeOptions,
  Summarizer,
  SummaryDetails,
  SummaryProgress,
  SummaryResult,
} from '@canopy/summarizer';

/** The summarisers offered to browsers, and which one a request without a choice gets. */
export class SummarizerRegistry {
  private readonly byId = new Map<string, Summarizer>();

  constructor(
    summarizers: readonly Summarizer[],
    readonly defaultId: string | null = summarizers[0]?.id ?? null,
  ) {
    for (const summarizer of summarizers) this.byId.set(summarizer.id, summarizer);
    if (defaultId !== null && !this.byId.has(defaultId))
      throw new Error(`default summariser "${defaultId}" is not among the configured ones`);
  }

  get size(): number {
    return this.byId.size;
  }

  list(): Array<{ id: string; label: string }> {
    return [...this.byId.values()].map(({ id, label }) => ({ id, label }));
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
