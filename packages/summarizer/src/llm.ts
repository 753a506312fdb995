// The LLM summariser: pi 1.6's `generateBranchSummary` through pi's own multi-provider client,
// @earendil-works/pi-ai 1.6, so the request is the one pi sends for the same entries, model and
// thinking level (oh-my-pi's rules for oh-my-pi files: docs/summaries.md#oh-my-pi). The differences
// are in the contract around it: progress is reported while the provider streams (as increments,
// with retries said), an abort or a failure rejects instead of resolving with a flag, and what was
// read of the entries is reported (`sent`).
import {
  BRANCH_SUMMARY_PREAMBLE,
  computeFileLists,
  convertToLlm,
  formatFileListsSuffix,
  type SessionEntry,
} from '@canopy/session-core';
import type {
  Api,
  AssistantMessage,
  AssistantMessageEventStream,
  Context,
  Model,
  SimpleStreamOptions,
} from '@earendil-works/pi-ai';
import { abortError, throwIfAborted } from './abort';
import { describeFailure, scrubSecrets, urlSecrets } from './errors';
import { loadPiAi, piAi } from './pi-ai';
import { prepareForSummary } from './prepare';
import {
  OMP_BRANCH_SUMMARY_PREAMBLE,
  OMP_SUMMARIZATION_SYSTEM_PROMPT,
  OMP_SUMMARY_MAX_TOKENS,
  SUMMARIZATION_SYSTEM_PROMPT,
  summaryInstructions,
  summaryPromptText,
} from './prompts';
import type { SummarizeOptions, Summarizer, SummaryResult, SummaryUsage } from './types';

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
  /** The most tokens the answer may take (the model's output limit; pi 1.6 asks for no less). */
  maxTokens?: number;
  /** Tokens of the context window kept free for the prompt and the answer (pi: 16384). */
  reserveTokens?: number;
  /** A model at `baseUrl` that thinks: the session's thinking level is sent as `reasoning`, as pi does. */
  reasoning?: boolean;
  /** pi's `settings.retry` (default DEFAULT_RETRY). */
  retry?: Partial<RetryPolicy>;
}

/** How a request authenticates: what pi-ai's provider auth resolves to (key, headers, base URL). */
export interface RequestAuth {
  apiKey?: string;
  /** A null value removes a header the provider would send (pi-ai's ProviderHeaders). */
  headers?: Record<string, string | null>;
  baseUrl?: string;
  env?: Record<string, string>;
}

/** pi's retry policy (`settings.retry`): transient failures are tried again with backoff. */
export interface RetryPolicy {
  enabled: boolean;
  maxRetries: number;
  baseDelayMs: number;
  maxAgentDelayMs?: number;
}

/** pi 1.6's default `retry` settings. */
export const DEFAULT_RETRY: RetryPolicy = { enabled: true, maxRetries: 3, baseDelayMs: 2000 };

/** A model ready to be asked: pi-ai's model, how to authenticate, and the limits pi applies. */
export interface LlmTarget {
  /** `llm:<provider>/<model>`, or with a source prefix for a model found in pi's or oh-my-pi's setup. */
  id: string;
  /** What the page shows: the model, and where its endpoint is (never a credential). */
  label: string;
  model: Model<Api>;
  /** Resolved per request, so a key changed in a file or a variable is used without a restart. */
  auth: (signal: AbortSignal) => Promise<RequestAuth>;
  reserveTokens: number;
  retry: RetryPolicy;
}

/** Injectable for tests: pi-ai's `streamSimple` and the clock of the request's message timestamp. */
export interface LlmSummarizerDeps {
  streamSimple?: (
    model: Model<Api>,
    context: Context,
    options?: SimpleStreamOptions,
  ) => AssistantMessageEventStream;
  now?: () => number;
}

/** pi's default `branchSummary.reserveTokens`. */
export const DEFAULT_RESERVE_TOKENS = 16384;
/** pi's fallback when a model does not state its context window, and a models.json model's output limit. */
export const DEFAULT_CONTEXT_WINDOW = 128000;
export const DEFAULT_MODEL_MAX_TOKENS = 16384;
/**
 * Local OpenAI-compatible servers ignore the key, but pi-ai refuses to send a request without
 * one; this placeholder is sent instead (Ollama documents the same trick).
 */
export const LOCAL_SERVER_API_KEY = 'canopy-local';

export function llmSummarizerId(config: Pick<LlmSummarizerConfig, 'provider' | 'model'>): string {
  return `llm:${config.provider}/${config.model}`;
}

/** A base URL as shown: without user name, password, query or fragment (they may carry a secret). */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(an invalid URL)';
  }
}

/**
 * The pi-ai model for a config: with `baseUrl`, an `openai-completions` model at that URL (with
 * the conservative compatibility flags local servers need); otherwise the model of pi-ai's registry.
 * Throws an Error saying what is wrong when the model cannot be resolved. pi-ai must be loaded
 * (`loadPiAi`).
 */
export function resolveLlmModel(config: LlmSummarizerConfig): Model<Api> {
  if (config.baseUrl) {
    return {
      id: config.model,
      name: config.model,
      api: 'openai-completions',
      provider: config.provider,
      baseUrl: config.baseUrl,
      reasoning: config.reasoning ?? false,
      input: ['text'],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: config.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
      maxTokens: config.maxTokens ?? DEFAULT_MODEL_MAX_TOKENS,
      compat: {
        supportsStore: false,
        supportsDeveloperRole: false,
        supportsReasoningEffort: config.reasoning ?? false,
        maxTokensField: 'max_tokens',
      },
    } as Model<'openai-completions'>;
  }
  const { getModels } = piAi();
  const models = getModels(config.provider as Parameters<typeof getModels>[0]) as Model<Api>[];
  if (models.length === 0) {
    throw new Error(
      `Unknown summary provider "${config.provider}": use a provider of pi (openai, anthropic, google, …) or set a base URL for an OpenAI-compatible server`,
    );
  }
  const found = models.find((candidate) => candidate.id === config.model);
  if (!found) {
    throw new Error(
      `Unknown model "${config.model}" for summary provider "${config.provider}": use a model id pi knows, or set a base URL for an OpenAI-compatible server`,
    );
  }
  return {
    ...found,
    ...(config.contextWindow ? { contextWindow: config.contextWindow } : {}),
    ...(config.maxTokens ? { maxTokens: config.maxTokens } : {}),
  };
}

/** The API key a request will carry, or undefined when the provider has none configured. */
export function resolveLlmApiKey(
  config: LlmSummarizerConfig,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  return (
    config.apiKey || envApiKey(config.provider, env) || (config.baseUrl ? LOCAL_SERVER_API_KEY : undefined)
  );
}

/** pi-ai's provider variable (`OPENAI_API_KEY`, …) read from `env` as pi-ai reads process.env. */
function envApiKey(provider: string, env: NodeJS.ProcessEnv): string | undefined {
  const saved = process.env;
  if (env === saved) return piAi().getEnvApiKey(provider);
  try {
    process.env = env;
    return piAi().getEnvApiKey(provider);
  } finally {
    process.env = saved;
  }
}

/** An LLM target from a canopy configuration (the config file, the variables or the settings dialog). */
export function llmTargetOf(config: LlmSummarizerConfig, env: NodeJS.ProcessEnv = process.env): LlmTarget {
  const model = resolveLlmModel(config);
  const name = `${config.provider}/${config.model}`;
  return {
    id: llmSummarizerId(config),
    label: config.baseUrl ? `${name} at ${displayUrl(config.baseUrl)}` : name,
    model,
    auth: async () => {
      const apiKey = resolveLlmApiKey(config, env);
      return apiKey ? { apiKey } : {};
    },
    reserveTokens: config.reserveTokens ?? DEFAULT_RESERVE_TOKENS,
    retry: { ...DEFAULT_RETRY, ...config.retry },
  };
}

function checkBudget(target: LlmTarget): void {
  const contextWindow = target.model.contextWindow || DEFAULT_CONTEXT_WINDOW;
  // pi treats a budget of 0 or less as no limit at all: a small local model would be sent the
  // whole branch. Refuse the configuration instead of overflowing the model.
  if (contextWindow <= target.reserveTokens) {
    throw new Error(
      `the context window (${contextWindow} tokens) leaves no room for the conversation after reserveTokens (${target.reserveTokens}); set reserveTokens below the context window, e.g. ${Math.floor(contextWindow / 4)}`,
    );
  }
}

function responseText(message: Pick<AssistantMessage, 'content'>): string {
  return message.content
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/**
 * The summariser of one LLM target. Accepts a configuration (the config file, the variables, the
 * settings dialog) or a target already resolved (a model of pi's or oh-my-pi's own setup).
 */
export function createLlmSummarizer(
  configOrTarget: LlmSummarizerConfig | LlmTarget,
  deps: LlmSummarizerDeps = {},
): Summarizer {
  const target = 'auth' in configOrTarget ? configOrTarget : llmTargetOf(configOrTarget);
  checkBudget(target);
  const now = deps.now ?? Date.now;
  const { model, label } = target;
  const contextWindow = model.contextWindow || DEFAULT_CONTEXT_WINDOW;
  const tokenBudget = contextWindow - target.reserveTokens;

  async function summarize(
    entries: readonly SessionEntry[],
    options: SummarizeOptions,
  ): Promise<SummaryResult> {
    const { signal, onProgress } = options;
    const omp = options.dialect === 'omp';
    throwIfAborted(signal);
    onProgress?.({ phase: 'preparing', fraction: 0 });

    const prepared = prepareForSummary(entries, tokenBudget, options.marks);
    const details = computeFileLists(prepared.fileOps);
    if (prepared.messages.length === 0) {
      onProgress?.({ phase: 'finishing', fraction: 1 });
      return { summary: 'No content to summarize', details, sent: prepared.sent };
    }

    const pi = await loadPiAi();
    const conversationText = prepared.serialize((messages) => convertToLlm(messages));
    const instructions = summaryInstructions(
      options.customInstructions,
      options.replaceInstructions,
      options.dialect,
    );
    const context = pi.normalizeContext({
      systemPrompt: omp ? OMP_SUMMARIZATION_SYSTEM_PROMPT : SUMMARIZATION_SYSTEM_PROMPT,
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: summaryPromptText(conversationText, instructions) }],
          timestamp: now(),
        },
      ],
    });

    let auth: RequestAuth;
    try {
      auth = await target.auth(signal);
    } catch (error) {
      if (signal.aborted) throw abortError();
      throw new Error(`Summary by ${label} failed: ${(error as Error).message}`, { cause: error });
    }
    const secrets = [
      auth.apiKey,
      ...Object.values(auth.headers ?? {}),
      ...urlSecrets(auth.baseUrl ?? model.baseUrl),
    ].filter((value): value is string => typeof value === 'string');
    const requestModel = auth.baseUrl ? { ...model, baseUrl: auth.baseUrl } : model;
    // What pi 1.6's completeSummarization asks for: no cache writes, a fresh routing id, the
    // session's thinking level for a reasoning model, and no output cap but the model's own.
    // oh-my-pi keeps its 2,048-token cap and sends no reasoning.
    const requestOptions: SimpleStreamOptions = {
      apiKey: auth.apiKey,
      headers: auth.headers,
      env: auth.env,
      signal,
      cacheRetention: 'none',
      sessionId: pi.uuidv7(),
    } as SimpleStreamOptions;
    if (omp) requestOptions.maxTokens = OMP_SUMMARY_MAX_TOKENS;
    else if (model.reasoning && options.thinkingLevel && options.thinkingLevel !== 'off') {
      requestOptions.reasoning = options.thinkingLevel as SimpleStreamOptions['reasoning'];
    }

    const stream = deps.streamSimple ?? pi.streamSimple;
    const produce = async (): Promise<AssistantMessage> => {
      onProgress?.({ phase: 'waiting', model: `${model.provider}/${model.id}` });
      const events = stream(requestModel, context, requestOptions);
      let characters = 0;
      for await (const event of events) {
        if (event.type !== 'text_delta' || event.delta === '') continue;
        characters += event.delta.length;
        onProgress?.({ phase: 'generating', delta: event.delta, tokens: Math.ceil(characters / 4) });
      }
      return events.result();
    };

    let response: AssistantMessage;
    try {
      response = await pi.retryAssistantCall(produce, target.retry, signal, {
        onRetryScheduled: (attempt, maxAttempts, delayMs, message) =>
          onProgress?.({
            phase: 'retrying',
            attempt,
            maxAttempts,
            delayMs,
            message: scrubSecrets(describeFailure(message, requestModel.baseUrl), secrets),
          }),
      });
    } catch (error) {
      if (signal.aborted) throw abortError();
      const message = describeFailure(
        error instanceof Error ? error.message : String(error),
        requestModel.baseUrl,
      );
      throw new Error(`Summary by ${label} failed: ${scrubSecrets(message, secrets)}`);
    }
    if (response.stopReason === 'aborted' || signal.aborted) throw abortError();
    const failure =
      response.stopReason === 'error'
        ? describeFailure(response.errorMessage || 'the provider reported an error', requestModel.baseUrl)
        : response.stopReason === 'length'
          ? 'the answer hit the output token limit and the summary is incomplete'
          : response.content.some((block) => block.type === 'toolCall')
            ? 'the model answered with a tool call instead of a summary (a summary needs a text answer; try another model or a custom prompt)'
            : undefined;
    if (failure !== undefined)
      throw new Error(`Summary by ${label} failed: ${scrubSecrets(failure, secrets)}`);

    onProgress?.({ phase: 'finishing', fraction: 1 });
    const preamble = options.preamble ?? (omp ? OMP_BRANCH_SUMMARY_PREAMBLE : BRANCH_SUMMARY_PREAMBLE);
    const summary =
      preamble + responseText(response) + formatFileListsSuffix(details.readFiles, details.modifiedFiles);
    return {
      summary,
      details,
      usage: response.usage as unknown as SummaryUsage,
      sent: prepared.sent,
    };
  }

  return { id: target.id, label, summarize };
}
