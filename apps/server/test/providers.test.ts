// Summary providers against a loopback OpenAI-compatible server: the model pi (or oh-my-pi) uses,
// read from a temporary agent folder (never the real home); providers set up through the settings
// routes, used without a restart, tested (an answer, a refused connection, a 4xx with its message,
// a server that never answers); keys kept owner-only and never shown.
import fs from 'node:fs';
import path from 'node:path';
import { startFakeOpenAi, type FakeOpenAi } from '@canopy/summarizer/test-server';
import type { ProvidersResponse, ProviderTestResult } from '@canopy/protocol';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AUTH, sessionIdOf } from './helpers';
import { MemoryStorage, SessionManager } from '@canopy/session-core';
import { makeSession, setupOwn, type OwnEnv } from './own-sessions';

let fake: FakeOpenAi;
beforeAll(async () => {
  fake = await startFakeOpenAi();
});
afterAll(async () => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.queue.length = 0;
  fake.reply = { kind: 'stream', chunks: ['## Goal\n', 'Summarised.'] };
});

/** Writes files under a temporary home (`.pi/agent/settings.json` …) and returns the home. */
function agentHome(dir: string, files: Record<string, unknown>): string {
  const home = path.join(dir, 'home');
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(home, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return home;
}

describe('zero setup: the model pi uses', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  async function boot(files: Record<string, unknown>, agentEnv: NodeJS.ProcessEnv = {}) {
    const session = makeSession(3);
    const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'canopy-agent-'));
    const home = agentHome(dir, files);
    env = await setupOwn({ 'a.jsonl': session.text }, { agentHome: home, agentEnv });
    return { session, home, id: await sessionIdOf(env.app, 'a.jsonl') };
  }

  const get = (url: string) => env.app.inject({ method: 'GET', url, headers: AUTH });

  it("offers pi's default model (a models.json endpoint, its key from the variable models.json names) as the default, saying where it came from", async () => {
    const { session, id } = await boot(
      {
        '.pi/agent/settings.json': {
          defaultProvider: 'local',
          defaultModel: 'tiny',
          branchSummary: { reserveTokens: 4000 },
        },
        '.pi/agent/models.json': `{
          // pi's models.json takes comments
          "providers": { "local": { "baseUrl": "${fake.baseUrl}", "api": "openai-completions", "apiKey": "$LOCAL_KEY",
            "models": [{ "id": "tiny", "contextWindow": 32000, "maxTokens": 2000 }] } }
        }`,
      },
      { LOCAL_KEY: 'sk-pi-local-0123456789' },
    );
    const info = (await get('/api/info')).json() as {
      defaultSummarizerId: string;
      summarizers: Array<{ id: string; label: string; source?: string }>;
    };
    expect(info.defaultSummarizerId).toBe('llm:pi:local/tiny');
    expect(info.summarizers.find((s) => s.id === 'llm:pi:local/tiny')).toEqual({
      id: 'llm:pi:local/tiny',
      label: "pi's model: local/tiny",
      source:
        '~/.pi/agent/settings.json (defaultProvider, defaultModel); API key in ~/.pi/agent/models.json ($LOCAL_KEY)',
    });

    const preview = await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/summary/preview`,
      headers: AUTH,
      payload: { source: { kind: 'navigate', targetId: session.ids[1] } },
    });
    expect(preview.statusCode, preview.body).toBe(200);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.headers.authorization).toBe('Bearer sk-pi-local-0123456789');
    expect(fake.requests[0]?.body).toMatchObject({ model: 'tiny', max_completion_tokens: 2000 });
    const body = preview.json() as { summary: string; usage: unknown; sent: unknown; summarizerId: string };
    expect(body.summarizerId).toBe('llm:pi:local/tiny');
    expect(body.summary).toContain('Summarised.');
    expect(body.usage).toMatchObject({ input: 1200, output: 80 });
    // The budget is pi's: the model's window minus pi's branchSummary.reserveTokens.
    expect(body.sent).toMatchObject({ entries: 4, budget: 28000 });
  });

  it('offers a pi login only while it is valid, never refreshes it, and says to log in again in pi once it expired', async () => {
    const expired = {
      anthropic: {
        type: 'oauth',
        access: 'sk-ant-oat-expired-0123456789',
        refresh: 'refresh-token-0123456789',
        expires: Date.now() - 60_000,
      },
    };
    const { home } = await boot({
      '.pi/agent/settings.json': { defaultProvider: 'anthropic', defaultModel: 'claude-sonnet-4-5' },
      '.pi/agent/auth.json': expired,
    });
    const authFile = path.join(home, '.pi/agent/auth.json');
    const before = fs.readFileSync(authFile, 'utf8');
    const view = (await get('/api/providers')).json() as ProvidersResponse;
    expect(view.discovered).toHaveLength(1);
    expect(view.discovered[0]).toMatchObject({ source: 'pi', usable: false, provider: 'anthropic' });
    expect(view.discovered[0]?.problem?.message).toMatch(
      /^Your pi login for anthropic expired on .* Canopy never refreshes a login/,
    );
    expect(view.discovered[0]?.problem?.fix).toMatch(/Start pi/);
    const info = (await get('/api/info')).json() as {
      defaultSummarizerId: string;
      summarizers: Array<{ id: string }>;
    };
    expect(info.summarizers.map((s) => s.id)).not.toContain('llm:pi:anthropic/claude-sonnet-4-5');
    expect(fs.readFileSync(authFile, 'utf8')).toBe(before);

    // Renewed by pi meanwhile: offered at the next look, without a restart, still untouched.
    fs.writeFileSync(
      authFile,
      JSON.stringify({ anthropic: { ...expired.anthropic, expires: Date.now() + 3_600_000 } }),
    );
    const renewed = (await get('/api/providers')).json() as ProvidersResponse;
    expect(renewed.discovered[0]).toMatchObject({
      usable: true,
      summarizerId: 'llm:pi:anthropic/claude-sonnet-4-5',
    });
    expect(renewed.discovered[0]?.credential).toMatch(
      /^pi login in ~\/\.pi\/agent\/auth\.json, valid until /,
    );
    expect(JSON.stringify(renewed)).not.toContain('sk-ant-oat-expired');
  });

  it("says what is missing when pi's provider has no key Canopy can use", async () => {
    await boot({ '.pi/agent/settings.json': { defaultProvider: 'openai', defaultModel: 'gpt-4o-mini' } });
    const view = (await get('/api/providers')).json() as ProvidersResponse;
    expect(view.discovered[0]).toMatchObject({ usable: false });
    expect(view.discovered[0]?.problem?.fix).toMatch(/Log in with pi \(\/login\)/);
  });

  it("offers oh-my-pi's default model role with its key variable, and says why not without one", async () => {
    const files = { '.omp/agent/config.yml': 'modelRoles:\n  default: openai/gpt-4o-mini:high\n' };
    await boot(files);
    let view = (await get('/api/providers')).json() as ProvidersResponse;
    expect(view.discovered[0]).toMatchObject({
      source: 'omp',
      provider: 'openai',
      model: 'gpt-4o-mini',
      usable: false,
    });
    expect(view.discovered[0]?.problem?.message).toBe(
      'oh-my-pi has no key or login for openai that Canopy can use (none in ~/.omp/agent/models.yml or ~/.omp/agent/agent.db, no openai variable set).',
    );
    await env.close();
    await boot(files, { OPENAI_API_KEY: 'sk-omp-openai-0123456789' });
    view = (await get('/api/providers')).json() as ProvidersResponse;
    expect(view.discovered[0]).toMatchObject({
      source: 'omp',
      usable: true,
      summarizerId: 'llm:omp:openai/gpt-4o-mini',
    });
    expect(view.discovered[0]?.credential).toBe('OPENAI_API_KEY (environment)');
  });
});

describe('providers set up in the page', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  async function boot(options: Parameters<typeof setupOwn>[1] = {}) {
    const session = makeSession(3);
    env = await setupOwn({ 'a.jsonl': session.text }, options);
    return { session, id: await sessionIdOf(env.app, 'a.jsonl') };
  }
  const send = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
    env.app.inject({ method, url, headers: AUTH, ...(payload ? { payload } : {}) });

  it('adds a local endpoint that is used without a restart; the key is kept owner-only and shown masked', async () => {
    const { session, id } = await boot();
    const saved = await send('POST', '/api/providers', {
      provider: 'local',
      model: 'qwen',
      baseUrl: fake.baseUrl,
      contextWindow: 32000,
      apiKey: 'sk-local-secret-abcdef12',
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const view = saved.json() as ProvidersResponse;
    expect(view.saved).toEqual([
      expect.objectContaining({
        id: 'local-qwen',
        summarizerId: 'llm:local/qwen',
        usable: true,
        key: { kind: 'stored', masked: 'sk-…ef12', present: true },
      }),
    ]);
    expect(saved.body).not.toContain('sk-local-secret-abcdef12');
    const file = path.join(env.stateDir, 'providers.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const info = (await send('GET', '/api/info')).json() as { summarizers: Array<{ id: string }> };
    expect(info.summarizers.map((s) => s.id)).toContain('llm:local/qwen');
    const preview = await send('POST', `/api/sessions/${id}/summary/preview`, {
      source: { kind: 'navigate', targetId: session.ids[1] },
      summarizerId: 'llm:local/qwen',
    });
    expect(preview.statusCode, preview.body).toBe(200);
    expect(fake.requests[0]?.headers.authorization).toBe('Bearer sk-local-secret-abcdef12');

    // Edited without retyping the key: the saved key stays.
    await send('POST', '/api/providers', {
      id: 'local-qwen',
      provider: 'local',
      model: 'qwen',
      baseUrl: fake.baseUrl,
      contextWindow: 16000,
    });
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      providers: Array<{ apiKey?: string; contextWindow?: number }>;
    };
    expect(stored.providers[0]).toMatchObject({ apiKey: 'sk-local-secret-abcdef12', contextWindow: 16000 });

    const removed = (await send('DELETE', '/api/providers/local-qwen')).json() as ProvidersResponse;
    expect(removed.saved).toEqual([]);
    const after = (await send('GET', '/api/info')).json() as { summarizers: Array<{ id: string }> };
    expect(after.summarizers.map((s) => s.id)).not.toContain('llm:local/qwen');
  });

  it('shows each configuration problem where it applies, with the fix', async () => {
    await boot({ summarizerProblems: ['llm:ollama/small: the context window (8192 tokens) leaves no room'] });
    const small = (
      await send('POST', '/api/providers', {
        provider: 'ollama',
        model: 'small',
        baseUrl: fake.baseUrl,
        contextWindow: 8192,
      })
    ).json() as ProvidersResponse;
    expect(small.saved[0]).toMatchObject({ usable: false });
    expect(small.saved[0]?.problem?.message).toMatch(
      /leaves no room for the conversation after reserveTokens \(16384\)/,
    );
    expect(small.saved[0]?.problem?.fix).toMatch(/Lower “Reserve tokens” below the context window/);
    expect(small.configProblems[0]).toMatchObject({
      message: 'llm:ollama/small: the context window (8192 tokens) leaves no room',
    });

    const unknown = await send('POST', '/api/providers', { provider: 'openai', model: 'gpt-0' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ error: { code: 'BAD_PROVIDER' } });
    expect((unknown.json() as { error: { message: string } }).error.message).toMatch(
      /Unknown model "gpt-0".*Pick a model/,
    );

    const unset = (
      await send('POST', '/api/providers', {
        provider: 'local',
        model: 'x',
        baseUrl: fake.baseUrl,
        apiKeyEnv: 'CANOPY_TEST_UNSET_KEY',
      })
    ).json() as ProvidersResponse;
    expect(unset.saved.find((p) => p.id === 'local-x')?.problem?.fix).toBe(
      'Start Canopy with CANOPY_TEST_UNSET_KEY set, or type the key itself.',
    );
  });

  it('Test: the answer of a working endpoint, a 4xx with its message, the cause of a refused connection, a server that never answers', async () => {
    await boot({ providerTestTimeoutMs: 300 });
    const input = {
      provider: 'local',
      model: 'qwen',
      baseUrl: fake.baseUrl,
      apiKey: 'sk-test-key-0123456789',
    };
    fake.reply = { kind: 'stream', chunks: ['ready'] };
    const ok = (await send('POST', '/api/providers/test', input)).json() as ProviderTestResult;
    expect(ok).toMatchObject({ ok: true, answer: 'ready', model: 'local/qwen' });
    expect(fake.requests.at(-1)?.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Reply with the single word: ready' }] },
    ]);

    fake.reply = { kind: 'status', status: 404, body: { error: { message: 'model "qwen" not found' } } };
    const missing = (await send('POST', '/api/providers/test', input)).json() as ProviderTestResult;
    expect(missing).toMatchObject({ ok: false, message: '404: {"message":"model \\"qwen\\" not found"}' });

    const closed = await startFakeOpenAi();
    await closed.close();
    const refused = (
      await send('POST', '/api/providers/test', { ...input, baseUrl: closed.baseUrl })
    ).json() as ProviderTestResult;
    expect(refused.ok).toBe(false);
    expect(refused.message).toMatch(
      /^nothing is listening at http:\/\/127\.0\.0\.1:\d+ \(connection refused\): Connection error\./,
    );

    fake.reply = { kind: 'silent' };
    const silent = (await send('POST', '/api/providers/test', input)).json() as ProviderTestResult;
    expect(silent).toMatchObject({ ok: false, message: 'no answer within 0.3 s' });
  });
});

describe('the request follows the session it summarises', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  /** A session with a thinking level; `omp` adds an entry only oh-my-pi writes (a mode change). */
  function session(omp: boolean) {
    const storage = new MemoryStorage();
    const sm = SessionManager.inMemory('/work/project', { storage });
    const ids = [sm.appendMessage({ role: 'user', content: 'first question', timestamp: 1 })];
    sm.appendThinkingLevelChange('high');
    if (omp) sm.appendModeChange('plan');
    ids.push(sm.appendMessage({ role: 'user', content: 'second question', timestamp: 2 }));
    ids.push(
      sm.appendMessage({
        role: 'assistant',
        content: [{ type: 'text', text: 'answer' }],
        timestamp: 3,
      } as never),
    );
    return { text: storage.read(), ids };
  }

  async function previewOf(omp: boolean) {
    const file = session(omp);
    env = await setupOwn({ 'a.jsonl': file.text });
    await env.app.inject({
      method: 'POST',
      url: '/api/providers',
      headers: AUTH,
      payload: { provider: 'local', model: 'thinker', baseUrl: fake.baseUrl, reasoning: true },
    });
    const id = await sessionIdOf(env.app, 'a.jsonl');
    const response = await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/summary/preview`,
      headers: AUTH,
      payload: { source: { kind: 'navigate', targetId: file.ids[0] }, summarizerId: 'llm:local/thinker' },
    });
    expect(response.statusCode, response.body).toBe(200);
    return { request: fake.requests.at(-1), preview: response.json() as { summary: string } };
  }

  it("a pi file: the session's thinking level at its leaf goes as reasoning, with no output cap but the model's", async () => {
    const { request } = await previewOf(false);
    expect(request?.body).toMatchObject({ reasoning_effort: 'high', max_tokens: 16384 });
    expect(JSON.stringify(request?.body.messages)).toContain('between a user and an AI assistant');
  });

  it("an oh-my-pi file: oh-my-pi's prompts and preamble, 2,048 output tokens, no reasoning", async () => {
    const { request, preview } = await previewOf(true);
    expect(request?.body).toMatchObject({ max_tokens: 2048 });
    expect(request?.body.reasoning_effort).toBeUndefined();
    expect(JSON.stringify(request?.body.messages)).toContain(
      'Summarize user\u2013AI coding-assistant conversations',
    );
    expect(
      preview.summary.startsWith(
        'User explored another conversation branch, then returned here.\nExploration summary:\n',
      ),
    ).toBe(true);
  });
});
