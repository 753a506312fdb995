import type { SessionEntry } from '@canopy/session-core';

export interface SummaryProgress {
  message?: string;
  /** 0..1 when known. */
  fraction?: number;
}

export interface SummarizeOptions {
  signal: AbortSignal;
  customInstructions?: string;
  replaceInstructions?: boolean;
  onProgress?: (progress: SummaryProgress) => void;
}

export interface SummaryResult {
  summary: string;
  /** The reference stores `{ readFiles, modifiedFiles }`. */
  details?: unknown;
}

/**
 * Turns abandoned entries into a branch summary. Injected through buildApp's options so the
 * summariser package plugs in without the server depending on it. It should reject (or resolve
 * after) `signal` aborts; the server treats an aborted signal as a cancelled navigation either way.
 */
export interface Summarizer {
  summarize(entries: SessionEntry[], options: SummarizeOptions): Promise<SummaryResult>;
}
