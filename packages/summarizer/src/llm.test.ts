// One file for the LLM summariser: every test shares the one loopback server and the two runners
// (Canopy's summariser and pi 1.6's own generateBranchSummary, loaded from the published package by
// file) that compare requests through it.
import type { SessionEntry } from '@canopy/session-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { generateBranchSummary } from '../../../node_modules/@earendil-works/pi-coding-agent/dist/core/compaction/branch-summarization.js';
import { buildEveryKindBranch, buildFixBugBranch, SessionBuilder } from '../test/sessions';
import { startFakeOpenAi, type FakeOpenAi, type RecordedRequest } from '../test/fake-openai';
import { createLlmSummarizer, resolveLlmModel, type LlmSummarizerConfig } from './llm';
import { loadPiAi } from './pi-ai';
import { OMP_BRANCH_SUMMARY_PREAMBLE } from './prompts';
import type { SummarizeOptions, SummaryProgress } from './types';

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
  server.queue.length = 0;
  server.reply = { kind: 'stream', chunks: ['## Goal\n', 'Fix the parser.'] };
});

/** No retry unless a test asks for one: pi's reference run is given none either. */
function config(overrides: Partial<LlmSummarizerConfig> = {}): LlmSummarizerConfig {
  return {
    provider: 'local',
    model: 'test-model',
    baseUrl: server.baseUrl,
    apiKey: 'sk-test',
    retry: { enabled: false },
    ...overrides,
  };
}

const signal = () => new AbortController().signal;

type RunOptions = Pick<SummarizeOptions, 'customInstructions' | 'replaceInstructions' | 'thinkingLevel'>;

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

/** Runs pi 1.6's generateBranchSummary with the same model against the same server. */
async function referenceRun(entries: SessionEntry[], cfg: LlmSummarizerConfig, options: RunOptions = {}) {
  const before = server.requests.length;
  const result = await generateBranchSummary(
    entries as never,
    {
      model: resolveLlmModel(cfg) as never,
      apiKey: cfg.apiKey as string,
      signal: signal(),
      reserveTokens: cfg.reserveTokens,
      ...options,
    } as never,
  );
  return { result, request: server.requests[before] };
}

async function canopyRun(
  entries: SessionEntry[],
  cfg: LlmSummarizerConfig,
  options: Partial<SummarizeOptions> = {},
) {
  const before = server.requests.length;
  const result = await createLlmSummarizer(cfg).summarize(entries, { signal: signal(), ...options });
  return { result, request: server.requests[before] };
}

describe('the LLM summariser sends what pi 1.6 sends', () => {
  it("sends the system prompt, the serialised conversation and the structured prompt, with the model's output limit", async () => {
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
    // No 2,048-token cap: the model's own output limit.
    expect(ours.request?.body.max_tokens).toBe(16384);
    expect(ours.request?.body.stream).toBe(true);
    const [system] = messagesOf(ours.request);
    expect(system?.role).toBe('system');
    expect(system?.content).toMatch(
      /^You are a context summarization assistant\. Your task is to read a conversation between a user and an AI assistant,/,
    );
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

  it('returns the preamble, the streamed text, the file lists and the usage, as pi does', async () => {
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
    expect(ours.result.usage).toEqual(reference.result.usage);
    expect(ours.result.usage).toMatchObject({ input: 1200, output: 80, totalTokens: 1280 });
    expect(ours.request?.body).toEqual(reference.request?.body);
  });

  it("sends the session's thinking level as reasoning to a reasoning model, and none to others, as pi does", async () => {
    const entries = buildFixBugBranch().entries();
    const thinking = config({ reasoning: true });
    const ours = await canopyRun(entries, thinking, { thinkingLevel: 'high' });
    const reference = await referenceRun(entries, thinking, { thinkingLevel: 'high' });
    expect(ours.request?.body).toEqual(reference.request?.body);
    expect(ours.request?.body.reasoning_effort).toBe('high');

    const off = await canopyRun(entries, thinking, { thinkingLevel: 'off' });
    const referenceOff = await referenceRun(entries, thinking, { thinkingLevel: 'off' });
    expect(off.request?.body).toEqual(referenceOff.request?.body);
    expect(off.request?.body).not.toHaveProperty('reasoning_effort', 'high');

    const plain = await canopyRun(entries, config(), { thinkingLevel: 'high' });
    const referencePlain = await referenceRun(entries, config(), { thinkingLevel: 'high' });
    expect(plain.request?.body).toEqual(referencePlain.request?.body);
    expect(plain.request?.body.reasoning_effort).toBeUndefined();
  });

  it('appends custom instructions as "Additional focus", as pi does', async () => {
    const entries = buildFixBugBranch().entries();
    const options = { customInstructions: 'the failing tests' };
    const ours = await canopyRun(entries, config(), options);
    const reference = await referenceRun(entries, config(), options);

    expect(ours.request?.body).toEqual(reference.request?.body);
    expect(promptOf(ours.request)).toMatch(
      /Preserve exact file paths, function names, and error messages\.\n\nAdditional focus: the failing tests$/,
    );
  });

  it('replaces the prompt with the custom instructions in replace mode, as pi does', async () => {
    const entries = buildFixBugBranch().entries();
    const options = { customInstructions: 'List the files only.', replaceInstructions: true };
    const ours = await canopyRun(entries, config(), options);
    const reference = await referenceRun(entries, config(), options);

    expect(ours.request?.body).toEqual(reference.request?.body);
    const prompt = promptOf(ours.request);
    expect(prompt).toMatch(/\n<\/conversation>\n\nList the files only\.$/);
    expect(prompt).not.toContain('Create a structured summary');
  });

  it('keeps only the newest messages that fit a small context window, and says what it left out', async () => {
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
    expect(ours.result.sent).toEqual({
      entries: 2,
      tokens: 200,
      budget: 250,
      leftOut: [{ reason: 'budget', entries: 1, tokens: 100 }],
    });
  });

  it('serialises every kind of entry as pi does (thinking left out), with and without a budget cut', async () => {
    const entries = buildEveryKindBranch().entries();
    const ours = await canopyRun(entries, config());
    const reference = await referenceRun(entries, config());
    expect(ours.request?.body).toEqual(reference.request?.body);
    expect(ours.result.summary).toBe(reference.result.summary);
    const prompt = promptOf(ours.request);
    expect(prompt).toContain(
      '[Assistant]: I will profile it first.\n\n[Assistant tool calls]: bash(command="node --prof import.js", timeout=60)',
    );
    expect(prompt).not.toContain('The importer parses each row twice.');
    expect(prompt).not.toContain('[Assistant thinking]');
    expect(prompt).toContain('[User]: Here is the flame graph');
    expect(prompt).not.toContain('rrrr');

    const small = config({ contextWindow: 1060, reserveTokens: 1000 });
    const oursCut = await canopyRun(entries, small);
    const referenceCut = await referenceRun(entries, small);
    expect(oursCut.request?.body).toEqual(referenceCut.request?.body);
    expect(oursCut.result.details).toEqual({
      readFiles: referenceCut.result.readFiles,
      modifiedFiles: referenceCut.result.modifiedFiles,
    });
  });

  it('honours context edits as pi 1.6 does: an omitted reply is not sent, a replaced message sends its new text', async () => {
    const s = new SessionBuilder();
    const ask = s.user('Port the importer to streams, and here is my API token abc123');
    const wrong = s.say('Ported it with a wrong buffer size.');
    s.user('Use 64 KiB buffers');
    s.say('Done with 64 KiB buffers.');
    const built = s.entries();
    let parent = built.at(-1)?.id ?? null;
    const edit = (id: string, targetId: string, replacement: unknown): SessionEntry => {
      const entry = {
        type: 'context_edit',
        id,
        parentId: parent,
        timestamp: '2025-01-01T00:01:00.000Z',
        targetId,
        replacement,
      };
      parent = id;
      return entry as unknown as SessionEntry;
    };
    const entries = [
      ...built,
      edit('edit0001', wrong, null),
      edit('edit0002', ask, { content: 'Port the importer to streams' }),
      // The latest edit of a target wins.
      edit('edit0003', ask, { content: 'Port the importer to streams (token removed)' }),
    ];
    const ours = await canopyRun(entries, config(), { thinkingLevel: 'high' });
    const reference = await referenceRun(entries, config(), { thinkingLevel: 'high' });
    expect(ours.request?.body).toEqual(reference.request?.body);
    const prompt = promptOf(ours.request);
    expect(prompt).toContain('[User]: Port the importer to streams (token removed)');
    expect(prompt).not.toContain('abc123');
    expect(prompt).not.toContain('wrong buffer size');
    expect(ours.result.sent?.leftOut).toContainEqual({ reason: 'context-edit', entries: 1, tokens: 0 });
  });

  it('summarises a failed assistant reply exactly as pi does', async () => {
    const s = new SessionBuilder();
    s.user('Port the importer to streams');
    s.assistant([{ type: 'text', text: 'Half an answer' }], 'error', '500 upstream failed');
    s.user('Try again');
    s.say('Ported.');
    const entries = s.entries();
    const ours = await canopyRun(entries, config());
    const reference = await referenceRun(entries, config());
    expect(ours.request?.body).toEqual(reference.request?.body);
    expect(ours.result.summary).toBe(reference.result.summary);
  });

  it('sends nothing and answers "No content to summarize" when no entry has conversation content', async () => {
    const s = new SessionBuilder();
    s.manager.appendModelChange('openai', 'gpt-4o');
    s.manager.appendThinkingLevelChange('high');
    const result = await createLlmSummarizer(config()).summarize(s.entries(), { signal: signal() });
    expect(result.summary).toBe('No content to summarize');
    expect(result.details).toEqual({ readFiles: [], modifiedFiles: [] });
    expect(result.sent?.leftOut).toEqual([{ reason: 'no-content', entries: 2, tokens: 0 }]);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses an answer that is a tool call, with a clear message, as pi refuses it', async () => {
    server.reply = { kind: 'toolcall', name: 'read', args: '{"path":"a.ts"}' };
    const entries = buildFixBugBranch().entries();
    await expect(canopyRun(entries, config())).rejects.toThrow(
      /^Summary by local\/test-model at http:\/\/127\.0\.0\.1:\d+\/v1 failed: the model answered with a tool call instead of a summary/,
    );
    const reference = await referenceRun(entries, config());
    expect(reference.result.error).toBe('Branch summarization attempted to call a tool');
  });
});

describe('the LLM summariser for an oh-my-pi file', () => {
  it("sends oh-my-pi's system prompt and template, caps the answer at 2,048 tokens and sends no reasoning", async () => {
    const entries = buildFixBugBranch().entries();
    const ours = await canopyRun(entries, config({ reasoning: true }), {
      dialect: 'omp',
      thinkingLevel: 'high',
    });
    const [system] = messagesOf(ours.request);
    expect(system?.content).toMatch(
      /^Summarize user\u2013AI coding-assistant conversations in the exact specified structured format\./,
    );
    expect(promptOf(ours.request)).toMatch(
      /<\/conversation>\n\nYou MUST create a structured summary of the conversation branch/,
    );
    expect(ours.request?.body.max_tokens).toBe(2048);
    expect(ours.request?.body.reasoning_effort).toBeUndefined();
    expect(ours.result.summary.startsWith(OMP_BRANCH_SUMMARY_PREAMBLE)).toBe(true);
  });

  it('lets custom instructions replace the template, as oh-my-pi always does', async () => {
    const entries = buildFixBugBranch().entries();
    const ours = await canopyRun(entries, config(), {
      dialect: 'omp',
      customInstructions: 'Only the files.',
    });
    expect(promptOf(ours.request)).toMatch(/<\/conversation>\n\nOnly the files\.$/);
  });
});

describe("a selection's marks", () => {
  it('puts the branch and gap marks between the parts of the conversation they separate', async () => {
    const s = new SessionBuilder();
    const first = s.user('Try approach A');
    s.say('A works partly.');
    const second = s.user('Try approach B');
    s.say('B fails.');
    const marks = new Map([
      [first, '[Branch 1 of 2]'],
      [second, '[Branch 2 of 2, another branch; 3 entries between were not selected]'],
    ]);
    const ours = await canopyRun(s.entries(), config(), {
      marks,
      preamble: 'Summary of selected entries:\n\n',
    });
    expect(promptOf(ours.request)).toMatch(
      /^<conversation>\n\[Branch 1 of 2\]\n\n\[User\]: Try approach A\n\n\[Assistant\]: A works partly\.\n\n\[Branch 2 of 2, another branch; 3 entries between were not selected\]\n\n\[User\]: Try approach B\n\n\[Assistant\]: B fails\.\n<\/conversation>/,
    );
    expect(ours.result.summary.startsWith('Summary of selected entries:\n\n## Goal')).toBe(true);
  });
});

describe('the LLM summariser while it runs', () => {
  it('reports preparing, waiting for the model, the text as increments with tokens, then finishing', async () => {
    server.reply = { kind: 'stream', chunks: ['## Goal', '\nFix', ' the parser.'] };
    const progress: SummaryProgress[] = [];
    await createLlmSummarizer(config()).summarize(buildFixBugBranch().entries(), {
      signal: signal(),
      onProgress: (p) => progress.push(p),
    });
    expect(progress).toEqual([
      { phase: 'preparing', fraction: 0 },
      { phase: 'waiting', model: 'local/test-model' },
      { phase: 'generating', delta: '## Goal', tokens: 2 },
      { phase: 'generating', delta: '\nFix', tokens: 3 },
      { phase: 'generating', delta: ' the parser.', tokens: 6 },
      { phase: 'finishing', fraction: 1 },
    ]);
  });

  it('rejects with an AbortError when aborted mid-stream, and the request is closed', async () => {
    server.reply = { kind: 'hang', chunks: ['## Goal\n'] };
    const controller = new AbortController();
    const run = createLlmSummarizer(config()).summarize(buildFixBugBranch().entries(), {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.phase === 'generating') controller.abort();
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

  it('rejects with the provider, the model and the HTTP status and message of a 4xx, without retrying it', async () => {
    server.reply = { kind: 'status', status: 401, body: { error: { message: 'Invalid API key' } } };
    const retrying = config({ retry: { enabled: true, maxRetries: 3, baseDelayMs: 0 } });
    await expect(
      createLlmSummarizer(retrying).summarize(buildFixBugBranch().entries(), { signal: signal() }),
    ).rejects.toThrow(
      /^Summary by local\/test-model at http:\/\/127\.0\.0\.1:\d+\/v1 failed: 401: \{"message":"Invalid API key"\}$/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 5xx as pi does, saying each retry, and succeeds when the server recovers', async () => {
    server.queue.push(
      { kind: 'status', status: 503, body: { error: { message: 'overloaded' } } },
      { kind: 'status', status: 503, body: { error: { message: 'overloaded' } } },
    );
    const progress: SummaryProgress[] = [];
    const result = await createLlmSummarizer(
      config({ retry: { enabled: true, maxRetries: 3, baseDelayMs: 0 } }),
    ).summarize(buildFixBugBranch().entries(), { signal: signal(), onProgress: (p) => progress.push(p) });
    expect(server.requests).toHaveLength(3);
    expect(progress.filter((p) => p.phase === 'retrying')).toEqual([
      { phase: 'retrying', attempt: 1, maxAttempts: 3, delayMs: 0, message: '503: {"message":"overloaded"}' },
      { phase: 'retrying', attempt: 2, maxAttempts: 3, delayMs: 0, message: '503: {"message":"overloaded"}' },
    ]);
    expect(result.summary).toContain('Fix the parser.');
  });

  it('names the network cause when nothing listens at the base URL, after the retries it said', async () => {
    const closed = await startFakeOpenAi();
    await closed.close();
    const progress: SummaryProgress[] = [];
    const summarizer = createLlmSummarizer(
      config({ baseUrl: closed.baseUrl, retry: { enabled: true, maxRetries: 2, baseDelayMs: 0 } }),
    );
    const error = await summarizer
      .summarize(buildFixBugBranch().entries(), { signal: signal(), onProgress: (p) => progress.push(p) })
      .then(
        () => new Error('resolved'),
        (e: unknown) => e as Error,
      );
    expect(error.message).toMatch(
      /^Summary by local\/test-model at http:\/\/127\.0\.0\.1:\d+\/v1 failed: nothing is listening at http:\/\/127\.0\.0\.1:\d+ \(connection refused\): Connection error\.: .*ECONNREFUSED/,
    );
    expect(progress.filter((p) => p.phase === 'retrying')).toHaveLength(2);
  });

  it('never puts the API key into an error, even when the provider quotes it', async () => {
    server.reply = {
      kind: 'status',
      status: 401,
      body: { error: { message: 'Incorrect API key provided: sk-test-secret-1234' } },
    };
    const error = await createLlmSummarizer(config({ apiKey: 'sk-test-secret-1234' }))
      .summarize(buildFixBugBranch().entries(), { signal: signal() })
      .then(
        () => new Error('resolved'),
        (e: unknown) => e as Error,
      );
    expect(error.message).toContain('Incorrect API key provided: [redacted]');
    expect(error.message).not.toContain('sk-test-secret-1234');
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
      'Unknown summary provider "nope": use a provider of pi (openai, anthropic, google, …) or set a base URL for an OpenAI-compatible server',
    );
    expect(() => resolveLlmModel({ provider: 'openai', model: 'gpt-0' })).toThrow(
      'Unknown model "gpt-0" for summary provider "openai": use a model id pi knows, or set a base URL for an OpenAI-compatible server',
    );
  });
});
