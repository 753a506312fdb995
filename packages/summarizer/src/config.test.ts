import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionBuilder } from '../test/sessions';
import { summarizersFromConfig } from './config';
import { isPiAiLoaded } from './pi-ai';
import type { Summarizer } from './types';

const ids = (result: Awaited<ReturnType<typeof summarizersFromConfig>>) => result.available.map((s) => s.id);

beforeEach(() => {
  // pi-ai reads the provider's key variables from process.env; start each test without them.
  vi.stubEnv('OPENAI_API_KEY', '');
  vi.stubEnv('ANTHROPIC_API_KEY', '');
  vi.stubEnv('ANTHROPIC_OAUTH_TOKEN', '');
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('summarizersFromConfig', () => {
  it('offers only the offline summariser, as the default, without configuration', async () => {
    const result = await summarizersFromConfig({}, {});
    expect(ids(result)).toEqual(['offline']);
    expect(result.defaultId).toBe('offline');
    expect(result.problems).toEqual([]);
    expect(result.available[0]?.label).toBe('Offline (no model)');
  });

  // This test runs first in its file (a fresh module state): nothing before it configured an LLM.
  it('imports pi-ai only once an LLM summariser is configured', async () => {
    await summarizersFromConfig({ summarizer: { offline: { budgetChars: 2000 } } }, {});
    await summarizersFromConfig({}, { CANOPY_SUMMARY_PROVIDER: 'openai' });
    expect(isPiAiLoaded()).toBe(false);
    await summarizersFromConfig({}, { CANOPY_SUMMARY_PROVIDER: 'local', CANOPY_SUMMARY_MODEL: 'm' });
    expect(isPiAiLoaded()).toBe(true);
  });

  it('offers an OpenAI-compatible server from the config file, and makes it the default when asked', async () => {
    const result = await summarizersFromConfig(
      {
        summarizer: {
          default: 'llm:ollama/llama3.2',
          llm: { provider: 'ollama', model: 'llama3.2', baseUrl: 'http://127.0.0.1:11434/v1' },
        },
      },
      {},
    );
    expect(ids(result)).toEqual(['offline', 'llm:ollama/llama3.2']);
    expect(result.available[1]?.label).toBe('ollama/llama3.2 at http://127.0.0.1:11434/v1');
    expect(result.defaultId).toBe('llm:ollama/llama3.2');
    expect(result.problems).toEqual([]);
  });

  it('defines or overrides the first LLM field by field from CANOPY_SUMMARY_* variables', async () => {
    const fromEnvOnly = await summarizersFromConfig(
      {},
      {
        CANOPY_SUMMARY_PROVIDER: 'vllm',
        CANOPY_SUMMARY_MODEL: 'qwen2.5',
        CANOPY_SUMMARY_BASE_URL: 'http://127.0.0.1:8000/v1',
      },
    );
    expect(ids(fromEnvOnly)).toEqual(['offline', 'llm:vllm/qwen2.5']);

    const overridden = await summarizersFromConfig(
      {
        summarizer: {
          llm: [{ provider: 'ollama', model: 'llama3.2', baseUrl: 'http://127.0.0.1:11434/v1' }],
        },
      },
      { CANOPY_SUMMARY_MODEL: 'mistral' },
    );
    expect(ids(overridden)).toEqual(['offline', 'llm:ollama/mistral']);
  });

  it('offers a provider of pi only with an API key: from the config, CANOPY_SUMMARY_API_KEY or the provider variable', async () => {
    const config = { summarizer: { llm: { provider: 'openai', model: 'gpt-4o-mini' } } };
    const without = await summarizersFromConfig(config, {});
    expect(ids(without)).toEqual(['offline']);
    expect(without.problems).toEqual([
      "llm:openai/gpt-4o-mini: no API key; set the provider's usual variable (as for pi), CANOPY_SUMMARY_API_KEY or summarizer.llm.apiKey",
    ]);

    expect(ids(await summarizersFromConfig(config, { CANOPY_SUMMARY_API_KEY: 'sk-canopy' }))).toEqual([
      'offline',
      'llm:openai/gpt-4o-mini',
    ]);
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-env');
    expect(ids(await summarizersFromConfig(config, {}))).toEqual(['offline', 'llm:openai/gpt-4o-mini']);
  });

  it('does not offer an unknown model or an incomplete configuration, and says why', async () => {
    const result = await summarizersFromConfig(
      {
        summarizer: {
          llm: [
            { provider: 'openai', model: 'gpt-0', apiKey: 'k' },
            { provider: 'ollama' },
            { provider: 42, model: 'x' },
            { provider: 'ollama', model: 'm', baseUrl: 'http://127.0.0.1:1/v1', contextWindow: -5 },
            { provider: 'ollama', model: 'small', baseUrl: 'http://127.0.0.1:1/v1', contextWindow: 8192 },
          ],
        },
      },
      {},
    );
    expect(ids(result)).toEqual(['offline']);
    expect(result.problems).toEqual([
      'summarizer.llm[2].provider must be a non-empty string',
      'summarizer.llm[3].contextWindow must be a positive integer',
      'llm:openai/gpt-0: Unknown model "gpt-0" for summary provider "openai": use a model id pi knows, or set a base URL for an OpenAI-compatible server',
      'An LLM summariser needs both a provider and a model (summarizer.llm[1])',
      'llm:ollama/small: the context window (8192 tokens) leaves no room for the conversation after reserveTokens (16384); set reserveTokens below the context window, e.g. 2048',
    ]);
  });

  it('says which variables are missing when the environment defines only part of an LLM', async () => {
    expect((await summarizersFromConfig({}, { CANOPY_SUMMARY_PROVIDER: 'openai' })).problems).toEqual([
      'An LLM summariser needs both a provider and a model (CANOPY_SUMMARY_PROVIDER / _MODEL)',
    ]);
  });

  it('falls back to the offline default when the named default is not offered', async () => {
    const result = await summarizersFromConfig({ summarizer: { default: 'llm:openai/gpt-4o' } }, {});
    expect(result.defaultId).toBe('offline');
    expect(result.problems).toEqual([
      'summarizer.default "llm:openai/gpt-4o" is not an available summariser (offline); using offline',
    ]);
  });

  it('applies the offline budget and reports a bad one', async () => {
    const configured = await summarizersFromConfig({ summarizer: { offline: { budgetChars: 1000 } } }, {});
    expect(configured.problems).toEqual([]);
    const s = new SessionBuilder();
    for (let i = 0; i < 50; i++) s.user(`Request ${i} ${'z'.repeat(80)}`);
    const { summary } = await (configured.available[0] as Summarizer).summarize(s.entries(), {
      signal: new AbortController().signal,
    });
    expect(summary.length).toBeLessThanOrEqual(1000);
    expect(summary).toContain('more omitted');
    expect(
      (await summarizersFromConfig({ summarizer: { offline: { budgetChars: 10 } } }, {})).problems,
    ).toEqual(['summarizer.offline.budgetChars: budgetChars must be an integer of at least 1000, got 10']);
    expect((await summarizersFromConfig({ summarizer: 'llm' }, {})).problems).toEqual([
      'summarizer must be an object',
    ]);
  });
});
