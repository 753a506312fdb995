// The LLM summariser: pi's `generateBranchSummary` (pi-coding-agent 0.73.1) through pi's own
// multi-provider client, @mariozechner/pi-ai, so the request is the one pi sends for the same
// entries and model. The differences are in the contract around it: progress is reported while the
// provider streams, and an abort or a provider failure rejects instead of resolving with a flag.
import {
  BRANCH_SUMMARY_PREAMBLE,
  computeFileLists,
  convertToLlm,
  formatFileListsSuffix,
  prepareBranchEntries,
  serializeConversation,
  type SessionEntry,
} from '@canopy/session-core';
import type { Api, AssistantMessage, Context, Message, Model, streamSimple } from '@mariozechner/pi-ai';
import { abortError, throwIfAborted } from './abort';
import { loadPiAi, piAi } from './pi-ai';
import { SUMMARIZATION_SYSTEM_PROMPT, summaryInstructions, summaryPromptText } from './prompts';
import type { SummarizeOptions, Summarizer, SummaryResult } from './types';

export interface LlmSummarizerConfig {
  /** A pi-ai provider id (`openai`, `anthropic`, `google`, …), or any name for an OpenAI-compatible server. */
  provider: string;
  /** The model id as pi-ai lists it, or the server's model name with `baseUrl`. */
  model: string;
  /** Else the provider's usual variable, read by pi-ai (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, …). */
  apiKey?: string;
  /** An OpenAI-compatible chat-completions endpoint (Ollama, llama.cpp, vLLM, …), e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl?: string;
  /** Overrides the model's context window, from which the token budget of the input is computed. */
  contextWindow?: number;
  /** The most tokens the summary may take (pi: 2048). */
  maxTokens?: number;
  /** Tokens of the context window kept free for the prompt and the answer (pi: 16384). */
  reserveTokens?: number;
}

/** Injectable for tests: pi-ai's `streamSimple` and the clock of the request's message timestamp. */
export interface LlmSummarizerDeps {
  streamSimple?: typeof streamSimple;
  now?: () => number;
}

/** pi's defaults: `branchSummary.reserveTokens` and the `maxTokens` of generateBranchSummary. */
export const DEFAULT_RESERVE_TOKENS = 16384;
export const DEFAULT_SUMMARY_MAX_TOKENS = 2048;
/** pi's fallback when a model does not state its context window. */
const DEFAULT_CONTEXT_WINDOW = 128000;
/**
 * Local OpenAI-compatible servers ignore the key, but pi-ai refuses to send a request without
 * one; this placeholder is sent instead (Ollama documents the same trick).
 */
export const LOCAL_SERVER_API_KEY = 'canopy-local';

export function llmSummarizerId(config: Pick<LlmSummarizerConfig, 'provider' | 'model'>): string {
  return `llm:${config.provider}/${config.model}`;
}

/**
 * The pi-ai model for a config: with `baseUrl`, an `openai-completions` model at that URL (with
 * the conservative compatibility flags local servers need); otherwise the model of pi-ai's registry.
 * Throws an Error saying what is wrong when the model cannot be resolved. pi-ai must be loaded
 * (`loadPiAi`), as for `resolveLlmApiKey` and `createLlmSummarizer`.
 */
export function resolveLlmModel(config: LlmSummarizerConfig): Model<Api> {
  let model: Model<Api>;
  if (config.baseUrl) {
    model = {
      id: config.model,
      name: config.model,
      api: 'openai-completions',
      provider: config.provider,
      baseUrl: config.baseUrl,
      reasoning: false,
      input: ['text'],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: config.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
      maxTokens: config.maxTokens ?? DEFAULT_SUMMARY_MAX_TOKENS,
      compat: {
        supportsStore: false,
        supportsDeveloperRole: false,
        supportsReasoningEffort: false,
        maxTokensField: 'max_tokens',
      },
    } satisfies Model<'openai-completions'>;
  } else {
    const { getModels } = piAi();
    const models = getModels(config.provider as Parameters<typeof getModels>[0]) as Model<Api>[];
    if (models.length === 0) {
      throw new Error(
        `Unknown summary provider "${config.provider}": use a provider of pi (openai, anthropic, google, …) or set a baseUrl for an OpenAI-compatible server`,
      );
    }
    const found = models.find((candidate) => candidate.id === config.model);
    if (!found) {
      throw new Error(
        `Unknown model "${config.model}" for summary provider "${config.provider}": use a model id pi knows, or set a baseUrl for an OpenAI-compatible server`,
      );
    }
    model = config.contextWindow ? { ...found, contextWindow: config.contextWindow } : found;
  }
  return model;
}

/** The API key a request will carry, or undefined when the provider has none configured. */
export function resolveLlmApiKey(config: LlmSummarizerConfig): string | undefined {
  return (
    config.apiKey ||
    piAi().getEnvApiKey(config.provider) ||
    (config.baseUrl ? LOCAL_SERVER_API_KEY : undefined)
  );
}

function responseText(message: Pick<AssistantMessage, 'content'>): string {
  return message.content
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

export function createLlmSummarizer(config: LlmSummarizerConfig, deps: LlmSummarizerDeps = {}): Summarizer {
  const model = resolveLlmModel(config);
  const now = deps.now ?? Date.now;
  const reserveTokens = config.reserveTokens ?? DEFAULT_RESERVE_TOKENS;
  const maxTokens = config.maxTokens ?? DEFAULT_SUMMARY_MAX_TOKENS;
  const contextWindow = model.contextWindow || DEFAULT_CONTEXT_WINDOW;
  // pi treats a budget of 0 or less as no limit at all: a small local model would be sent the
  // whole branch. Refuse the configuration instead of overflowing the model.
  if (contextWindow <= reserveTokens) {
    throw new Error(
      `the context window (${contextWindow} tokens) leaves no room for the conversation after reserveTokens (${reserveTokens}); set reserveTokens below the context window, e.g. ${Math.floor(contextWindow / 4)}`,
    );
  }
  const name = `${config.provider}/${config.model}`;
  const label = config.baseUrl ? `${name} at ${config.baseUrl}` : name;

  async function summarize(
    entries: readonly SessionEntry[],
    options: SummarizeOptions,
  ): Promise<SummaryResult> {
    const { signal, onProgress } = options;
    throwIfAborted(signal);
    onProgress?.({ phase: 'preparing', fraction: 0 });

    const tokenBudget = contextWindow - reserveTokens;
    const { messages, fileOps } = prepareBranchEntries(entries, tokenBudget);
    const details = computeFileLists(fileOps);
    if (messages.length === 0) {
      onProgress?.({ phase: 'finishing', fraction: 1 });
      return { summary: 'No content to summarize', details };
    }

    const conversationText = serializeConversation(convertToLlm(messages));
    const instructions = summaryInstructions(options.customInstructions, options.replaceInstructions);
    const request: Message = {
      role: 'user',
      content: [{ type: 'text', text: summaryPromptText(conversationText, instructions) }],
      timestamp: now(),
    };
    const context: Context = { systemPrompt: SUMMARIZATION_SYSTEM_PROMPT, messages: [request] };

    onProgress?.({ phase: 'generating', text: '' });
    let response: AssistantMessage;
    try {
      const stream = deps.streamSimple ?? (await loadPiAi()).streamSimple;
      const events = stream(model, context, { apiKey: resolveLlmApiKey(config), signal, maxTokens });
      // Accumulated from the deltas: an event's `partial` is the live message, already ahead of
      // the event when the consumer is behind the stream.
      const streamedBlocks: string[] = [];
      for await (const event of events) {
        if (event.type !== 'text_delta') continue;
        streamedBlocks[event.contentIndex] = (streamedBlocks[event.contentIndex] ?? '') + event.delta;
        onProgress?.({ phase: 'generating', text: streamedBlocks.filter((t) => t !== undefined).join('\n') });
      }
      response = await events.result();
    } catch (error) {
      if (signal.aborted) throw abortError();
      throw new Error(
        `Summary by ${label} failed: ${error instanceof Error ? error.message : String(error)}`,
        {
          cause: error,
        },
      );
    }
    if (response.stopReason === 'aborted' || signal.aborted) throw abortError();
    if (response.stopReason === 'error') {
      throw new Error(
        `Summary by ${label} failed: ${response.errorMessage || 'the provider reported an error'}`,
      );
    }

    onProgress?.({ phase: 'finishing', fraction: 1 });
    const summary =
      BRANCH_SUMMARY_PREAMBLE +
      responseText(response) +
      formatFileListsSuffix(details.readFiles, details.modifiedFiles);
    return { summary, details };
  }

  return { id: llmSummarizerId(config), label, summarize };
}
