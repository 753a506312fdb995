// Which summarisers a Canopy server offers, from the `summarizer` block of canopy.config.json and
// the CANOPY_SUMMARY_* environment variables (see this package's README for the format).
import { isRecord } from '@canopy/session-core';
import { createLlmSummarizer, llmSummarizerId, type LlmSummarizerConfig } from './llm';
import { createOfflineSummarizer, OFFLINE_SUMMARIZER_ID } from './offline';
import { loadPiAi, piAi } from './pi-ai';
import type { Summarizer } from './types';

export interface SummarizersFromConfig {
  /** The offline summariser first, then each usable LLM configuration. */
  available: Summarizer[];
  /** `summarizer.default` when it names an available summariser, else 'offline'. */
  defaultId: string;
  /** One sentence per configuration problem; the configuration in question is not offered. */
  problems: string[];
}

const LLM_FIELDS = ['provider', 'model', 'apiKey', 'baseUrl'] as const;
const LLM_NUMBER_FIELDS = ['contextWindow', 'maxTokens', 'reserveTokens'] as const;

function readLlmConfig(raw: unknown, where: string, problems: string[]): LlmSummarizerConfig | undefined {
  if (!isRecord(raw)) {
    problems.push(`${where} must be an object with "provider" and "model"`);
    return undefined;
  }
  const config: Partial<LlmSummarizerConfig> = {};
  let valid = true;
  for (const field of LLM_FIELDS) {
    const value = raw[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.trim() === '') {
      problems.push(`${where}.${field} must be a non-empty string`);
      valid = false;
    } else config[field] = value.trim();
  }
  for (const field of LLM_NUMBER_FIELDS) {
    const value = raw[field];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
      problems.push(`${where}.${field} must be a positive integer`);
      valid = false;
    } else config[field] = value;
  }
  if (!valid) return undefined;
  return config as LlmSummarizerConfig;
}

/** CANOPY_SUMMARY_PROVIDER / _MODEL / _API_KEY / _BASE_URL, field by field over the first configured LLM. */
function applyEnvironment(base: Partial<LlmSummarizerConfig> | undefined, env: NodeJS.ProcessEnv) {
  const fromEnv: Partial<LlmSummarizerConfig> = {};
  if (env.CANOPY_SUMMARY_PROVIDER) fromEnv.provider = env.CANOPY_SUMMARY_PROVIDER.trim();
  if (env.CANOPY_SUMMARY_MODEL) fromEnv.model = env.CANOPY_SUMMARY_MODEL.trim();
  if (env.CANOPY_SUMMARY_API_KEY) fromEnv.apiKey = env.CANOPY_SUMMARY_API_KEY.trim();
  if (env.CANOPY_SUMMARY_BASE_URL) fromEnv.baseUrl = env.CANOPY_SUMMARY_BASE_URL.trim();
  if (Object.keys(fromEnv).length === 0) return base;
  return { ...base, ...fromEnv };
}

function hasApiKey(config: LlmSummarizerConfig): boolean {
  // A local OpenAI-compatible server needs no key; pi-ai reads the provider's usual variable itself.
  return Boolean(config.apiKey || config.baseUrl || piAi().getEnvApiKey(config.provider));
}

/**
 * Reads `summarizer` from canopy.config.json content and CANOPY_SUMMARY_PROVIDER / _MODEL /
 * _API_KEY / _BASE_URL from `env` (the provider's usual API-key variables, such as
 * OPENAI_API_KEY, are read by pi-ai from `process.env`, as pi reads them). pi-ai is imported only
 * when an LLM summariser is configured.
 */
export async function summarizersFromConfig(
  config: unknown,
  env: NodeJS.ProcessEnv,
): Promise<SummarizersFromConfig> {
  const problems: string[] = [];
  const block = isRecord(config) ? config.summarizer : undefined;
  if (block !== undefined && !isRecord(block)) problems.push('summarizer must be an object');
  const settings = isRecord(block) ? block : {};

  let budgetChars: number | undefined;
  if (settings.offline !== undefined) {
    const budget = isRecord(settings.offline) ? settings.offline.budgetChars : undefined;
    if (budget !== undefined && typeof budget === 'number') budgetChars = budget;
    else if (!isRecord(settings.offline) || budget !== undefined)
      problems.push('summarizer.offline must be an object like { "budgetChars": 6000 }');
  }
  let offline: Summarizer;
  try {
    offline = createOfflineSummarizer({ budgetChars });
  } catch (error) {
    problems.push(`summarizer.offline.budgetChars: ${(error as Error).message}`);
    offline = createOfflineSummarizer();
  }
  const available: Summarizer[] = [offline];

  const rawLlms =
    settings.llm === undefined ? [] : Array.isArray(settings.llm) ? settings.llm : [settings.llm];
  const wheres = rawLlms.map((_, i) =>
    Array.isArray(settings.llm) ? `summarizer.llm[${i}]` : 'summarizer.llm',
  );
  const llmConfigs: (Partial<LlmSummarizerConfig> | undefined)[] = rawLlms.map((raw, i) =>
    readLlmConfig(raw, wheres[i] as string, problems),
  );
  const first = applyEnvironment(llmConfigs[0], env);
  if (first) llmConfigs[0] = first;
  if (llmConfigs.some((candidate) => candidate?.provider && candidate.model)) await loadPiAi();

  for (const [i, candidate] of llmConfigs.entries()) {
    if (!candidate) continue;
    if (!candidate.provider || !candidate.model) {
      const where = [wheres[i], i === 0 ? 'CANOPY_SUMMARY_PROVIDER / _MODEL' : undefined].filter(Boolean);
      problems.push(`An LLM summariser needs both a provider and a model (${where.join(' or ')})`);
      continue;
    }
    const llm = candidate as LlmSummarizerConfig;
    const id = llmSummarizerId(llm);
    if (!hasApiKey(llm)) {
      problems.push(
        `${id}: no API key; set the provider's usual variable (as for pi), CANOPY_SUMMARY_API_KEY or summarizer.llm.apiKey`,
      );
      continue;
    }
    if (available.some((summarizer) => summarizer.id === id)) {
      problems.push(`${id} is configured twice; the first configuration is used`);
      continue;
    }
    try {
      available.push(createLlmSummarizer(llm));
    } catch (error) {
      problems.push(`${id}: ${(error as Error).message}`);
    }
  }

  let defaultId = OFFLINE_SUMMARIZER_ID;
  if (settings.default !== undefined) {
    if (
      typeof settings.default === 'string' &&
      available.some((summarizer) => summarizer.id === settings.default)
    ) {
      defaultId = settings.default;
    } else {
      problems.push(
        `summarizer.default ${JSON.stringify(settings.default)} is not an available summariser (${available.map((s) => s.id).join(', ')}); using offline`,
      );
    }
  }
  return { available, defaultId, problems };
}
