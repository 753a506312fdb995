// The one interface every summariser implements: abandoned or selected entries in (chronological),
// the summary text and the files it touched out.
import type { SessionEntry, Usage } from '@canopy/session-core';

/**
 * What a summariser reports while it works. Text arrives as increments (`delta`): the listener
 * appends them, so what is sent grows with the text, not with its square.
 */
export type SummaryProgress =
  | { phase: 'preparing'; fraction: 0 }
  /** The request is out; nothing has come back yet. `model` names who is being waited for. */
  | { phase: 'waiting'; model: string }
  /** New text of the answer; `tokens` counts the answer's text so far (characters / 4, rounded up). */
  | { phase: 'generating'; delta: string; tokens: number }
  /** The request failed in a way worth trying again: attempt `attempt` of `maxAttempts` after `delayMs`. */
  | { phase: 'retrying'; attempt: number; maxAttempts: number; delayMs: number; message: string }
  | { phase: 'finishing'; fraction: 1 };

export interface SummarizeOptions {
  signal: AbortSignal;
  customInstructions?: string;
  /** true: customInstructions replace the prompt; false/undefined: appended as "Additional focus". */
  replaceInstructions?: boolean;
  onProgress?: (progress: SummaryProgress) => void;
  /** The session's thinking level at its leaf (pi sends it as `reasoning` to a reasoning model). */
  thinkingLevel?: string;
  /** Whose rules the request follows: pi's (default) or oh-my-pi's (docs/summaries.md#oh-my-pi). */
  dialect?: 'pi' | 'omp';
  /**
   * Lines put into the conversation before the entry with that id (a branch boundary or a gap of a
   * selection), so the model reads where the selected entries come from. A navigation has none.
   */
  marks?: ReadonlyMap<string, string>;
  /** Replaces the preamble put before the summary (a selection is not "a branch the user left"). */
  preamble?: string;
}

/** What a `branch_summary` entry stores in `details`, so later summaries can track files cumulatively. */
export interface SummaryDetails {
  readFiles: string[];
  modifiedFiles: string[];
}

/** Why entries given to a summariser did not reach it. */
export type LeftOutReason =
  /** Older than what fits the model's token budget (the newest entries are kept). */
  | 'budget'
  /** Omitted from the model's context by a context edit (pi 1.x), so from its summary too. */
  | 'context-edit'
  /** Tool results: the call that made them says what was done, as pi summarises. */
  | 'tool-result'
  /** Entries that hold no conversation (labels, model and thinking changes, settings). */
  | 'no-content';

/** What a summariser actually read of the entries it was given (the honest preview). */
export interface SummarySent {
  /** Entries whose content went into the summary. */
  entries: number;
  /** Estimated tokens of that content (characters / 4). */
  tokens: number;
  /** The token budget the content had to fit; null when the summariser has none (offline). */
  budget: number | null;
  leftOut: Array<{ reason: LeftOutReason; entries: number; tokens: number }>;
}

/** Tokens and cost of the request, as pi-ai reports them (stored on the entry as `usage`). */
export type SummaryUsage = Usage;

export interface SummaryResult {
  summary: string;
  details: SummaryDetails;
  /** The provider's usage of a model request; absent when no model was asked. */
  usage?: SummaryUsage;
  sent?: SummarySent;
}

export interface Summarizer {
  /** Stable id used in settings and the API: 'offline' or 'llm:<provider>/<model>'. */
  readonly id: string;
  readonly label: string;
  /** Where its model and credentials come from, for the page (never a secret). */
  readonly source?: string;
  /**
   * Rejects with an error named 'AbortError' when `options.signal` aborts, and with an Error
   * naming the provider and model when the provider fails; never resolves with a partial summary.
   */
  summarize(entries: readonly SessionEntry[], options: SummarizeOptions): Promise<SummaryResult>;
}
