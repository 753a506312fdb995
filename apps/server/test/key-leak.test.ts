// LLM keys never leave the server: every configured secret (a key saved in the page, one of
// canopy.config.json, a provider variable, a key in pi's auth.json, credentials written into a base
// URL, oh-my-pi's models.yml key and header, the keys and login tokens of its agent.db, one of them
// only in the WAL) is sought in every response, WebSocket event and log line while providers fail in
// the ways that quote them.
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createLlmSummarizer, loadPiAi } from '@canopy/summarizer';
import { startFakeOpenAi, type FakeOpenAi } from '@canopy/summarizer/test-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, sessionIdOf, waitFor } from './helpers';
import { writeAgentDb } from './omp-agent';
import { makeSession, setupOwn, type OwnEnv } from './own-sessions';

const SAVED_KEY = 'sk-saved-in-page-0123456789abcdef';
const CONFIG_KEY = 'sk-config-file-0123456789abcdef';
const ENV_KEY = 'sk-openai-env-0123456789abcdef';
const PI_KEY = 'sk-pi-auth-json-0123456789abcdef';
const URL_PASSWORD = 'url-password-0123456789';
const OMP_DB_KEY = 'sk-omp-agent-db-0123456789abcdef';
const OMP_WAL_KEY = 'sk-omp-only-in-wal-0123456789abcdef';
const OMP_ACCESS = 'sk-ant-oat-omp-access-0123456789abcdef';
const OMP_REFRESH = 'sk-ant-ort-omp-refresh-0123456789abcdef';
const OMP_YML_KEY = 'sk-omp-models-yml-0123456789abcdef';
const OMP_HEADER = 'omp-header-secret-0123456789abcdef';
const SECRETS = [
  SAVED_KEY,
  CONFIG_KEY,
  ENV_KEY,
  PI_KEY,
  URL_PASSWORD,
  OMP_DB_KEY,
  OMP_WAL_KEY,
  OMP_ACCESS,
  OMP_REFRESH,
  OMP_YML_KEY,
  OMP_HEADER,
];

let fake: FakeOpenAi;
let env: OwnEnv;
const logLines: string[] = [];
beforeAll(async () => {
  fake = await startFakeOpenAi();
  await loadPiAi();
});
afterAll(async () => {
  await env?.close();
  await fake.close();
});

describe('configured secrets', () => {
  it('appear in no response, event or log line, whatever the providers answer', async () => {
    const session = makeSession(3);
    const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'canopy-leak-'));
    const home = path.join(dir, 'home');
    fs.mkdirSync(path.join(home, '.pi', 'agent'), { recursive: true });
    fs.writeFileSync(
      path.join(home, '.pi', 'agent', 'settings.json'),
      JSON.stringify({ defaultProvider: 'local', defaultModel: 'tiny' }),
    );
    fs.writeFileSync(
      path.join(home, '.pi', 'agent', 'models.json'),
      JSON.stringify({
        providers: { local: { baseUrl: fake.baseUrl, api: 'openai-completions', models: [{ id: 'tiny' }] } },
      }),
    );
    fs.writeFileSync(
      path.join(home, '.pi', 'agent', 'auth.json'),
      JSON.stringify({ local: { type: 'api_key', key: PI_KEY } }),
    );
    // oh-my-pi: its default role is a models.yml endpoint whose key is in agent.db; another provider
    // has its key written in models.yml, another a login; one key is only in the WAL.
    const ompDir = path.join(home, '.omp', 'agent');
    fs.mkdirSync(ompDir, { recursive: true });
    fs.writeFileSync(path.join(ompDir, 'config.yml'), 'modelRoles:\n  default: ompl/tiny\n');
    fs.writeFileSync(
      path.join(ompDir, 'models.yml'),
      [
        'providers:',
        '  ompl:',
        `    baseUrl: ${fake.baseUrl}`,
        '    api: openai-completions',
        `    headers: { X-Omp: ${OMP_HEADER} }`,
        '    models: [{ id: tiny }]',
        '  other:',
        `    baseUrl: ${fake.baseUrl}`,
        '    api: openai-completions',
        `    apiKey: ${OMP_YML_KEY}`,
        '    models: [{ id: m }]',
        '',
      ].join('\n'),
    );
    await writeAgentDb(
      path.join(ompDir, 'agent.db'),
      [
        { provider: 'ompl', type: 'api_key', key: OMP_DB_KEY },
        {
          provider: 'anthropic',
          type: 'oauth',
          access: OMP_ACCESS,
          refresh: OMP_REFRESH,
          expires: Date.now() + 3_600_000,
        },
      ],
      [{ provider: 'openai', type: 'api_key', key: OMP_WAL_KEY }],
    );
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    const configured = createLlmSummarizer({
      provider: 'configured',
      model: 'm',
      baseUrl: fake.baseUrl,
      apiKey: CONFIG_KEY,
      retry: { enabled: false },
    });
    env = await setupOwn(
      { 'a.jsonl': session.text },
      {
        summarizers: [configured],
        summarizerSecrets: [CONFIG_KEY],
        agentHome: home,
        agentEnv: { OPENAI_API_KEY: ENV_KEY },
        logger: { level: 'trace', stream },
      },
    );
    const id = await sessionIdOf(env.app, 'a.jsonl');
    const responses: string[] = [];
    const call = async (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) => {
      const response = await env.app.inject({ method, url, headers: AUTH, ...(payload ? { payload } : {}) });
      responses.push(`${JSON.stringify(response.headers)} ${response.body}`);
      return response;
    };
    const events: string[] = [];
    const ws = await env.app.injectWS(
      '/ws',
      { headers: AUTH },
      { onInit: (s) => s.on('message', (d) => events.push(String(d))) },
    );
    await waitFor(() => events.some((event) => event.includes('"hello"')));
    ws.send(JSON.stringify({ type: 'subscribe', sessionId: id }));
    await waitFor(() => events.some((event) => event.includes('"subscribed"')));

    // Every provider echoes the key it was sent, as some do in their error messages.
    const quoting = {
      kind: 'status' as const,
      status: 401,
      body: {
        error: {
          message: `Incorrect API key provided: ${[SAVED_KEY, CONFIG_KEY, PI_KEY, ENV_KEY, OMP_DB_KEY, OMP_WAL_KEY, OMP_ACCESS, OMP_REFRESH, OMP_YML_KEY, OMP_HEADER].join(' ')}`,
        },
      },
    };
    fake.reply = quoting;
    await call('POST', '/api/providers', {
      provider: 'local',
      model: 'saved',
      baseUrl: fake.baseUrl.replace('http://', `http://user:${URL_PASSWORD}@`),
      apiKey: SAVED_KEY,
    });
    await call('POST', '/api/providers', {
      provider: 'local',
      model: 'plain',
      baseUrl: fake.baseUrl,
      apiKey: SAVED_KEY,
    });
    await call('GET', '/api/info');
    await call('GET', '/api/providers');
    await call('POST', '/api/providers/test', { savedId: 'local-saved' });
    await call('POST', '/api/providers/test', { savedId: 'local-plain' });
    await call('POST', '/api/providers/test', {
      provider: 'openai',
      model: 'gpt-4o-mini',
      baseUrl: fake.baseUrl,
    });
    for (const summarizerId of [
      'llm:configured/m',
      'llm:pi:local/tiny',
      'llm:omp:ompl/tiny',
      'llm:local/saved',
      'llm:local/plain',
    ]) {
      const preview = await call('POST', `/api/sessions/${id}/summary/preview`, {
        source: { kind: 'navigate', targetId: session.ids[1] },
        summarizerId,
      });
      expect(preview.statusCode, preview.body).toBe(500);
    }
    await waitFor(() => events.filter((event) => event.includes('"failed"')).length === 5);
    ws.terminate();

    // The failures were seen (so the sweep looked at real error paths)…
    expect(responses.join('\n')).toContain('Incorrect API key provided: [redacted]');
    expect(events.join('\n')).toContain('Incorrect API key provided: [redacted]');
    // …and not one secret is anywhere.
    for (const secret of SECRETS) {
      for (const text of [...responses, ...events, ...logLines]) expect(text).not.toContain(secret);
    }
    expect(fake.requests.some((request) => request.headers.authorization === `Bearer ${PI_KEY}`)).toBe(true);
    const omp = fake.requests.find((request) => request.headers.authorization === `Bearer ${OMP_DB_KEY}`);
    expect(omp?.headers['x-omp']).toBe(OMP_HEADER);
  });
});
