import type { SessionEntry } from '@canopy/session-core';
import { AppError } from './errors';

// The summariser interface of @canopy/summarizer, declared here until that package is merged.
export interface SummaryProgress {
  phase: 'preparing' | 'generating' | 'finishing';
  /** 0..1 when known. */
  fraction?: number;
  /** The text generated so far, when the summariser streams. */
  text?: string;
}

export interface SummarizeOptions {
  signal: AbortSignal;
  customInstructions?: string;
  replaceInstructions?: boolean;
  onProgress?: (progress: SummaryProgress) => void;
}

export interface SummaryDetails {
  readFiles: string[];
  modifiedFiles: string[];
}

export interface SummaryResult {
  summary: string;
  details: SummaryDetails;
}

/**
 * Turns entries (chronological) into a branch summary. Aborting `signal` rejects with an
 * AbortError (or resolves late); the server treats an aborted signal as a cancelled summary
 * either way.
 */
export interface Summarizer {
  readonly id: string;
  readonly label: string;
  summarize(entries: readonly SessionEntry[], options: SummarizeOptions): Promise<SummaryResult>;
}

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
