// Public API of @canopy/summarizer.
export type {
  LeftOutReason,
  SummarizeOptions,
  Summarizer,
  SummaryDetails,
  SummaryProgress,
  SummaryResult,
  SummarySent,
  SummaryUsage,
} from './types';
export {
  createOfflineSummarizer,
  summarizeOffline,
  DEFAULT_OFFLINE_BUDGET_CHARS,
  MIN_OFFLINE_BUDGET_CHARS,
  OFFLINE_SUMMARIZER_ID,
} from './offline';
export {
  createLlmSummarizer,
  displayUrl,
  llmSummarizerId,
  llmTargetOf,
  resolveLlmModel,
  DEFAULT_RESERVE_TOKENS,
  DEFAULT_RETRY,
  LOCAL_SERVER_API_KEY,
  type LlmSummarizerConfig,
  type LlmSummarizerDeps,
  type LlmTarget,
  type RequestAuth,
  type RetryPolicy,
} from './llm';
export { summarizersFromConfig, type SummarizersFromConfig } from './config';
export { loadPiAi } from './pi-ai';
export {
  BRANCH_SUMMARY_PROMPT,
  OMP_BRANCH_SUMMARY_PREAMBLE,
  SUMMARIZATION_SYSTEM_PROMPT,
  summaryInstructions,
} from './prompts';
export { abortError } from './abort';
export { describeFailure, scrubSecrets, urlSecrets } from './errors';
