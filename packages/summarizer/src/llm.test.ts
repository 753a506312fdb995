// One file for the LLM summariser: every test shares the one loopback server and the two runners
// (Canopy's summariser and the reference's generateBranchSummary) that compare requests through it.
import { generateBranchSummary } from '@mariozechner/pi-coding-agent';
import type { SessionEntry } from '@canopy/session-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildEveryKindBranch, buildFixBugBranch, SessionBuilder } from '../test/sessions';
import { startFakeOpenAi, type FakeOpenAi, type RecordedRequest } from '../test/fake-openai';
import { createLlmSummarizer, resolveLlmModel, type LlmSummarizerConfig } from './llm';
import { loadPiAi } from './pi-ai';
import type { SummaryProgress } from './types';

let server: FakeOpenAi;
beforeAll(async () => {
  server = await startFakeOpenAi();
  // resolveLlmModel reads pi-ai's registry synchronously; the server loads pi-ai with its config.
  await loadPiAi();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.reply = { kind: 'stream', chunks: ['## Goal\n', 'Fix the parser.'] };
});

function config(overrides: Partial<LlmSummarizerConfig> = {}): LlmSummarizerConfig {
  return { provider: 'local', model: 'test-model', baseUrl: server.baseUrl, apiKey: 'sk-test', ...overrides };
}

const signal = () => new AbortController().signal;

function messagesOf(request: RecordedRequest | undefined): { role: string; content: string }[] {
  return request?.body.messages as { role: string; content: string }[];
}

/** The user prompt of a request: the conversation and the instructions after it. */
function promptOf(request: RecordedRequest | undefined): string {
  const user = messagesOf(request).find((message) => message.role === 'user');
  const content = user?.content as unknown;
  // The OpenAI client sends a single text block either as a string or as one text part.
  return typeof content === 'string' ? content : (content as { text: string }[]).map((p) => p.text).join('');
}

/** Runs the reference's generateBranchSummary with the same model against the same server. */
async function referenceRun(
  entries: SessionEntry[],
  cfg: LlmSummarizerConfig,
  options: { customInstructions?: string; replaceInstructions?: boolean } = {},
) {
  const before = server.requests.length;
  const result = await generateBranchSummary(entries as never, {
    model: resolveLlmModel(cfg),
    apiKey: cfg.apiKey as string,
    signal: signal(),
    reserveTokens: cfg.reserveTokens,
    ...options,
  });
  return { result, request: server.requests[before] };
}

async function canopyRun(
  entries: SessionEntry[],
  cfg: LlmSummarizerConfig,
  options: { customInstructions?: string; replaceInstructions?: boolean } = {},
) {
  const before = server.requests.length;
  const result = await createLlmSummarizer(cfg).summarize(entries, { signal: signal(), ...options });
  return { result, request: server.requests[before] };
}

describe('the LLM summariser sends what the reference sends', () => {
  it('sends the system prompt, the serialised conversation and pi structured prompt with maxTokens 2048', async () => {
    const s = new SessionBuilder();
    s.user('Rename parse to parseInput');
    s.useTools([s.toolCall('read', { path: 'src/parser.ts' })]);
    s.say('Renamed it.');
    const entries = s.entries();

    const ours = await canopyRun(entries, config());
    const reference = await referenceRun(entries, config());

    expect(ours.request?.url).toBe('/v1/chat/completions');
    expect(ours.request?.headers.authorization).toBe('Bearer sk-test');
    expect(ours.request?.body).toEqual(reference.request?.body);
    expect(ours.request?.body.model).toBe('test-model');
    expect(ours.request?.body.max_tokens).toBe(2048);
    expect(ours.request?.body.stream).toBe(true);
    const [system] = messagesOf(ours.request);
    expect(system?.role).toBe('system');
    expect(system?.content).toMatch(/^You are a context summarization assistant\./);
    expect(system?.content).toContain('Do NOT continue the conversation.');
    const prompt = promptOf(ours.request);
    expect(prompt).toMatch(
      /^<conversation>\n\[User\]: Rename parse to parseInput\n\n\[Assistant tool calls\]: read\(path="src\/parser\.ts"\)\n\n\[Assistant\]: Renamed it\.\n<\/conversation>\n\nCreate a structured summary of this conversation branch/,
    );
    for (const heading of [
      '## Goal',
      '## Constraints & Preferences',
      '## Progress',
      '### Done',
      '### In Progress',
      '### Blocked',
      '## Key Decisions',
      '## Next Steps',
    ]) {
      expect(prompt).toContain(`\n${heading}\n`);
    }
    expect(prompt).not.toContain('Additional focus');
  });

  it('returns the preamble, the streamed text and the file lists, as the reference does', async () => {
    const entries = buildFixBugBranch().entries();
    const ours = await canopyRun(entries, config());
    const reference = await referenceRun(entries, config());

    expect(ours.result.summary).toBe(reference.result.summary);
    expect(ours.result.summary).toBe(
      'The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n' +
        '## Goal\nFix the parser.' +
        '\n\n<read-files>\ntest/parser.test.ts\n</read-files>' +
        '\n\n<modified-files>\nsrc/parser.ts\ntest/empty-input.test.ts\n</modified-files>',
    );
    expect(ours.result.details).toEqual({
      readFiles: reference.result.readFiles,
      modifiedFiles: reference.result.modifiedFiles,
    });
    expect(ours.request?.body).toEqual(reference.request?.body);
  });

  it('appends custom instructions as "Additional focus", as the reference does', async () => {
    const entries = buildFixBugBranch().entries();
    const options = { customInstructions: 'the failing tests' };
    const ours = await canopyRun(entries, config(), options);
    const reference = await referenceRun(entries, config(), options);

    expect(ours.request?.body).toEqual(reference.request?.body);
    expect(promptOf(ours.request)).toMatch(
      /Preserve exact file paths, function names, and error messages\.\n\nAdditional focus: the failing tests$/,
    );
  });

  it('replaces the prompt with the custom instructions in replace mode, as the reference does', async () => {
    const entries = buildFixBugBranch().entries();
    const options = { customInstructions: 'List the files only.', replaceInstructions: true };
    const ours = await canopyRun(entries, config(), options);
    const reference = await referenceRun(entries, config(), options);

    expect(ours.request?.body).toEqual(reference.request?.body);
    const prompt = promptOf(ours.request);
    expect(prompt).toMatch(/\n<\/conversation>\n\nList the files only\.$/);
    expect(prompt).not.toContain('Create a structured summary');
  });

  it('keeps only the newest messages that fit a small context window, as the reference does', async () => {
    const s = new SessionBuilder();
    // 400 characters each: 100 estimated tokens per user message.
    s.user(`First request ${'a'.repeat(386)}`);
    s.user(`Second request ${'b'.repeat(385)}`);
    s.user(`Third request ${'c'.repeat(386)}`);
    const entries = s.entries();
    // A budget of 250 tokens: the two newest messages fit, the first does not.
    const small = config({ contextWindow: 1250, reserveTokens: 1000 });

    const ours = await canopyRun(entries, small);
    const reference = await referenceRun(entries, small);

    expect(ours.request?.body).toEqual(reference.request?.body);
    const prompt = promptOf(ours.request);
    expect(prompt).not.toContain('First request');
    expect(prompt).toContain('[User]: Second request');
    expect(prompt).toContain('[User]: Third request');
  });

  it('serialises every kind of entry as the reference does, with and without a budget cut', async () => {
    const entries = buildEveryKindBranch().entries();
    const ours = await canopyRun(entries, config());
    const reference = await referenceRun(entries, config());
    expect(ours.request?.body).toEqual(reference.request?.body);
    expect(ours.result.summary).toBe(reference.result.summary);
    const prompt = promptOf(ours.request);
    expect(prompt).toContain(
      '[Assistant thinking]: The importer parses each row twice.\n\n[Assistant]: I will profile it first.\n\n[Assistant tool calls]: bash(command="node --prof import.js", timeout=60)',
    );
    expect(prompt).toContain('[User]: Here is the flame graph');
    expect(prompt).not.toContain('rrrr');

    // 60 tokens of budget: the two newest messages (about 30 tokens), then the 100-token branch
    // summary, taken although it overruns because the total is still under 90%, then nothing.
    const small = config({ contextWindow: 1060, reserveTokens: 1000 });
    const oursCut = await canopyRun(entries, small);
    const referenceCut = await referenceRun(entries, small);
    expect(oursCut.request?.body).toEqual(referenceCut.request?.body);
    const cutPrompt = promptOf(oursCut.request);
    expect(cutPrompt).toContain('Tried streaming rows; no gain.');
    expect(cutPrompt).toContain('[Assistant]: Parsing once per row halves the import time.');
    expect(cutPrompt).not.toContain('wc -l data.csv');
    expect(cutPrompt).not.toContain('Speed up the importer');
    expect(oursCut.result.details).toEqual({
      readFiles: ['src/stream.ts'],
      modifiedFiles: ['src/import.ts', 'src/rows.ts'],
    });
  });

  it('asks for the configured maxTokens', async () => {
    const ours = await canopyRun(buildFixBugBranch().entries(), config({ maxTokens: 512 }));
    expect(ours.request?.body.max_tokens).toBe(512);
  });

  it('sends nothing and answers "No content to summarize" when no entry has conversation content', async () => {
    const s = new SessionBuilder();
    s.manager.appendModelChange('openai', 'gpt-4o');
    s.manager.appendThinkingLevelChange('high');
    const result = await createLlmSummarizer(config()).summarize(s.entries(), { signal: signal() });
    expect(result).toEqual({
      summary: 'No content to summarize',
      details: { readFiles: [], modifiedFiles: [] },
    });
    expect(server.requests).toHaveLength(0);
  });
});

describe('the LLM summariser while it runs', () => {
  it('reports preparing, then the streamed text so far, then finishing', async () => {
    server.reply = { kind: 'stream', chunks: ['## Goal', '\nFix', ' the parser.'] };
    const progress: SummaryProgress[] = [];
    await createLlmSummarizer(config()).summarize(buildFixBugBranch().entries(), {
      signal: signal(),
      onProgress: (p) => progress.push(p),
    });
    expect(progress).toEqual([
      { phase: 'preparing', fraction: 0 },
      { phase: 'generating', text: '' },
      { phase: 'generating', text: '## Goal' },
      { phase: 'generating', text: '## Goal\nFix' },
      { phase: 'generating', text: '## Goal\nFix the parser.' },
      { phase: 'finishing', fraction: 1 },
    ]);
  });

  it('rejects with an AbortError when aborted mid-stream, and the request is closed', async () => {
    server.reply = { kind: 'hang', chunks: ['## Goal\n'] };
    const controller = new AbortController();
    const run = createLlmSummarizer(config()).summarize(buildFixBugBranch().entries(), {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.text === '## Goal\n') controller.abort();
      },
    });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    await server.clientGone();
  });

  it('rejects with an AbortError when aborted while waiting for the first byte of the answer', async () => {
    server.reply = { kind: 'silent' };
    const controller = new AbortController();
    const run = createLlmSummarizer(config()).summarize(buildFixBugBranch().entries(), {
      signal: controller.signal,
    });
    // Polls for the state, with a timeout only as a guard against hanging.
    await vi.waitFor(() => expect(server.requests).toHaveLength(1), { timeout: 30_000 });
    controller.abort();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    await server.clientGone();
  });

  it('rejects with an AbortError without sending anything when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      createLlmSummarizer(config()).summarize(buildFixBugBranch().entries(), { signal: controller.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.requests).toHaveLength(0);
  });

  it('rejects with the provider, the model and the HTTP status when the server answers 401', async () => {
    server.reply = { kind: 'status', status: 401, body: { error: { message: 'Invalid API key' } } };
    await expect(
      createLlmSummarizer(config()).summarize(buildFixBugBranch().entries(), { signal: signal() }),
    ).rejects.toThrow(
      /^Summary by local\/test-model at http:\/\/127\.0\.0\.1:\d+\/v1 failed: 401 Invalid API key$/,
    );
  });

  it('rejects with the provider, the model and the HTTP status when the server answers 500', async () => {
    server.reply = { kind: 'status', status: 500, body: { error: { message: 'model crashed' } } };
    const error = await createLlmSummarizer(config())
      .summarize(buildFixBugBranch().entries(), { signal: signal() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('Error');
    expect((error as Error).message).toMatch(
      /^Summary by local\/test-model at .* failed: 500 model crashed$/,
    );
  });

  it('rejects naming the connection failure when nothing listens at the base URL', async () => {
    const closed = await startFakeOpenAi();
    await closed.close();
    const summarizer = createLlmSummarizer(config({ baseUrl: closed.baseUrl }));
    await expect(summarizer.summarize(buildFixBugBranch().entries(), { signal: signal() })).rejects.toThrow(
      /^Summary by local\/test-model at http:\/\/127\.0\.0\.1:\d+\/v1 failed: Connection error\.$/,
    );
  });
});

describe('resolveLlmModel', () => {
  it('takes a model of pi-ai registry with its context window, or the configured one', () => {
    const model = resolveLlmModel({ provider: 'openai', model: 'gpt-4o-mini' });
    expect(model).toMatchObject({ id: 'gpt-4o-mini', provider: 'openai', contextWindow: 128000 });
    expect(
      resolveLlmModel({ provider: 'openai', model: 'gpt-4o-mini', contextWindow: 5000 }).contextWindow,
    ).toBe(5000);
  });

  it('builds an openai-completions model at the base URL for an OpenAI-compatible server', () => {
    expect(
      resolveLlmModel({ provider: 'ollama', model: 'llama3.2', baseUrl: 'http://127.0.0.1:11434/v1' }),
    ).toMatchObject({
      id: 'llama3.2',
      api: 'openai-completions',
      provider: 'ollama',
      baseUrl: 'http://127.0.0.1:11434/v1',
      contextWindow: 128000,
    });
  });

  it('refuses an unknown provider or model without a base URL, saying what to do', () => {
    expect(() => resolveLlmModel({ provider: 'nope', model: 'x' })).toThrow(
      'Unknown summary provider "nope": use a provider of pi (openai, anthropic, google, …) or set a baseUrl for an OpenAI-compatible server',
    );
    expect(() => resolveLlmModel({ provider: 'openai', model: 'gpt-0' })).toThrow(
      'Unknown model "gpt-0" for summary provider "openai": use a model id pi knows, or set a baseUrl for an OpenAI-compatible server',
    );
  });
});
