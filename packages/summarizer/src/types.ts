// The one interface every summariser implements: abandoned or selected entries in (chronological),
// the summary text and the files it touched out.
import type { SessionEntry } from '@canopy/session-core';

export interface SummaryProgress {
  phase: 'preparing' | 'generating' | 'finishing';
  /** 0..1 when known. */
  fraction?: number;
  /** The text streamed so far, when the provider streams. */
  text?: string;
}

export interface SummarizeOptions {
  signal: AbortSignal;
  customInstructions?: string;
  /** true: customInstructions replace the prompt; false/undefined: appended as "Additional focus". */
  replaceInstructions?: boolean;
  onProgress?: (progress: SummaryProgress) => void;
}

/** What a `branch_summary` entry stores in `details`, so later summaries can track files cumulatively. */
export interface SummaryDetails {
  readFiles: string[];
  modifiedFiles: string[];
}

export interface SummaryResult {
  summary: string;
  details: SummaryDetails;
}

export interface Summarizer {
  /** Stable id used in settings and the API: 'offline' or 'llm:<provider>/<model>'. */
  readonly id: string;
  readonly label: string;
  /**
   * Rejects with an error named 'AbortError' when `options.signal` aborts, and with an Error
   * naming the provider and model when the provider fails; never resolves with a partial summary.
   */
  summarize(entries: readonly SessionEntry[], options: SummarizeOptions): Promise<SummaryResult>;
}
