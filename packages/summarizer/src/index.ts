// Public API of @canopy/summarizer.
export type { SummarizeOptions, Summarizer, SummaryDetails, SummaryProgress, SummaryResult } from './types';
export {
  createOfflineSummarizer,
  summarizeOffline,
  DEFAULT_OFFLINE_BUDGET_CHARS,
  MIN_OFFLINE_BUDGET_CHARS,
  OFFLINE_SUMMARIZER_ID,
} from './offline';
export {
  createLlmSummarizer,
  llmSummarizerId,
  resolveLlmModel,
  DEFAULT_RESERVE_TOKENS,
  DEFAULT_SUMMARY_MAX_TOKENS,
  LOCAL_SERVER_API_KEY,
  type LlmSummarizerConfig,
  type LlmSummarizerDeps,
} from './llm';
export { summarizersFromConfig, type SummarizersFromConfig } from './config';
export { loadPiAi } from './pi-ai';
export { BRANCH_SUMMARY_PROMPT, SUMMARIZATION_SYSTEM_PROMPT, summaryInstructions } from './prompts';
export { abortError } from './abort';
