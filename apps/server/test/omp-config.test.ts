// "The model oh-my-pi uses", read from a temporary oh-my-pi agent folder (never the real home): its
// config.yml role, its models.yml endpoints, and the keys and logins of its SQLite agent.db (rows
// still in the WAL included), in oh-my-pi's order of precedence; a login used only while valid,
// never refreshed; agent.db never written.
import fs from 'node:fs';
import path from 'node:path';
import { startFakeOpenAi, type FakeOpenAi } from '@canopy/summarizer/test-server';
import type { ProvidersResponse } from '@canopy/protocol';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { discoverOmpModel } from '../src/providers/omp-setup';
import { AUTH, sessionIdOf } from './helpers';
import { makeSession, setupOwn, type OwnEnv } from './own-sessions';
import { writeAgentDb, type TestCredential } from './omp-agent';

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

const NOW = Date.UTC(2026, 5, 1, 12, 0);

/** A home with `.omp/agent/{config.yml, models.yml}` and, when given, agent.db (+ its WAL). */
async function ompHome(options: {
  role: string;
  modelsYml?: string;
  db?: readonly TestCredential[];
  inWal?: readonly TestCredential[];
}): Promise<{ home: string; agentDir: string; dbFile: string }> {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'canopy-omp-'));
  const home = path.join(dir, 'home');
  const agentDir = path.join(home, '.omp', 'agent');
  fs.mkdirSync(agentDir, { recursive: true });
  fs.writeFileSync(path.join(agentDir, 'config.yml'), `modelRoles:\n  default: ${options.role}\n`);
  if (options.modelsYml !== undefined) fs.writeFileSync(path.join(agentDir, 'models.yml'), options.modelsYml);
  const dbFile = path.join(agentDir, 'agent.db');
  if (options.db) await writeAgentDb(dbFile, options.db, options.inWal);
  return { home, agentDir, dbFile };
}

const localModels = (extra = '') => `providers:
  local:
    baseUrl: ${fake.baseUrl}
    api: openai-completions
${extra}    models:
      - id: tiny
        contextWindow: 32000
        maxTokens: 2000
`;

describe("oh-my-pi's credentials, in its order of precedence", () => {
  const discover = (home: string, env: NodeJS.ProcessEnv = {}) =>
    discoverOmpModel({ env, home, now: () => NOW });
  const login = (expires: number): TestCredential => ({
    provider: 'anthropic',
    type: 'oauth',
    access: 'sk-ant-oat-access-0123456789',
    refresh: 'sk-ant-ort-refresh-0123456789',
    expires,
  });

  it('a models.yml apiKey wins over agent.db; its value names a variable or is the key itself', async () => {
    const { home } = await ompHome({
      role: 'local/tiny',
      modelsYml: localModels('    apiKey: LOCAL_KEY\n'),
      db: [{ provider: 'local', type: 'api_key', key: 'sk-stored-0123456789', source: 'login' }],
    });
    expect((await discover(home, { LOCAL_KEY: 'sk-env-0123456789' }))?.credential).toBe(
      'API key in ~/.omp/agent/models.yml ($LOCAL_KEY)',
    );
    expect((await discover(home))?.credential).toBe(
      'API key in ~/.omp/agent/models.yml (a key written in the file)',
    );
  });

  it('a valid login comes before a key stored by /login, which comes before the variable, which comes before another stored key', async () => {
    const env = { ANTHROPIC_API_KEY: 'sk-ant-env-0123456789' };
    const stored: TestCredential = {
      provider: 'anthropic',
      type: 'api_key',
      key: 'sk-ant-stored-0123456789',
    };
    const byLogin: TestCredential = { ...stored, key: 'sk-ant-login-0123456789', source: 'login' };
    const role = 'anthropic/claude-sonnet-4-5';
    let { home } = await ompHome({ role, db: [stored, byLogin, login(NOW + 3_600_000)] });
    expect((await discover(home, env))?.credential).toBe(
      'oh-my-pi login in ~/.omp/agent/agent.db, valid until 2026-06-01 13:00 UTC',
    );
    ({ home } = await ompHome({ role, db: [stored, byLogin] }));
    expect((await discover(home, env))?.credential).toBe(
      'API key in ~/.omp/agent/agent.db (stored by /login)',
    );
    ({ home } = await ompHome({ role, db: [stored] }));
    expect((await discover(home, env))?.credential).toBe('ANTHROPIC_API_KEY (environment)');
    expect((await discover(home))?.credential).toBe('API key in ~/.omp/agent/agent.db');
    // A disabled row (oh-my-pi's tombstone) is not a credential.
    ({ home } = await ompHome({ role, db: [{ ...stored, disabled: 'deleted by user' }] }));
    expect(await discover(home)).toMatchObject({
      problem: { fix: expect.stringMatching(/Log in with oh-my-pi/) },
    });
  });

  it('an expired login is not used (nor replaced by a key further down): the page says to log in again in oh-my-pi', async () => {
    const { home, dbFile } = await ompHome({
      role: 'anthropic/claude-sonnet-4-5',
      db: [login(NOW - 60_000)],
    });
    const before = fs.readFileSync(dbFile);
    const found = await discover(home, { ANTHROPIC_API_KEY: 'sk-ant-env-0123456789' });
    expect(found).toMatchObject({
      source: 'omp',
      credential: 'oh-my-pi login in ~/.omp/agent/agent.db (expired)',
      problem: {
        message:
          'Your oh-my-pi login for anthropic expired on 2026-06-01 11:59 UTC. Canopy never refreshes a login (oh-my-pi would find its token rotated).',
        fix: 'Start oh-my-pi and send a message (or /login anthropic) so it renews it, then press Refresh.',
      },
    });
    expect(found?.target).toBeUndefined();
    expect(found?.secrets).toEqual(
      expect.arrayContaining(['sk-ant-oat-access-0123456789', 'sk-ant-ort-refresh-0123456789']),
    );
    expect(fs.readFileSync(dbFile)).toEqual(before);
    expect(fs.existsSync(`${dbFile}-wal`)).toBe(false);
    expect(fs.existsSync(`${dbFile}-shm`)).toBe(false);
  });

  it('reads agent.db where OMP_PROFILE and PI_CONFIG_DIR put it, and $XDG_DATA_HOME/omp once it exists', async () => {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'canopy-omp-'));
    const home = path.join(dir, 'home');
    const agentDir = path.join(home, '.ompx', 'profiles', 'work', 'agent');
    fs.mkdirSync(agentDir, { recursive: true });
    fs.writeFileSync(
      path.join(agentDir, 'config.yml'),
      'modelRoles:\n  default: anthropic/claude-sonnet-4-5\n',
    );
    await writeAgentDb(path.join(agentDir, 'agent.db'), [login(NOW + 60_000)]);
    const env = { PI_CONFIG_DIR: '.ompx', OMP_PROFILE: 'work', PI_CODING_AGENT_DIR: '/nowhere' };
    expect((await discover(home, env))?.credential).toMatch(
      /^oh-my-pi login in ~\/\.ompx\/profiles\/work\/agent\/agent\.db/,
    );
    const xdg = path.join(dir, 'xdg');
    fs.mkdirSync(path.join(xdg, 'omp', 'profiles', 'work'), { recursive: true });
    await writeAgentDb(path.join(xdg, 'omp', 'profiles', 'work', 'agent.db'), [login(NOW + 120_000)]);
    expect((await discover(home, { ...env, XDG_DATA_HOME: xdg }))?.credential).toBe(
      `oh-my-pi login in ${xdg}/omp/profiles/work/agent.db, valid until 2026-06-01 12:02 UTC`,
    );
  });

  it('says which file is broken when agent.db is not a database or models.yml not YAML', async () => {
    const { home, dbFile, agentDir } = await ompHome({ role: 'local/tiny', modelsYml: localModels() });
    fs.writeFileSync(dbFile, 'not a database at all, just text');
    expect((await discover(home))?.problem?.message).toMatch(/agent\.db is not a database Canopy can read/);
    fs.rmSync(dbFile);
    fs.writeFileSync(path.join(agentDir, 'models.yml'), 'providers: [unclosed');
    expect((await discover(home))?.problem?.message).toMatch(/models\.yml is not valid YAML/);
  });
});

describe('zero setup: the model oh-my-pi uses, end to end', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  async function boot(home: string, agentEnv: NodeJS.ProcessEnv = {}) {
    const session = makeSession(3);
    env = await setupOwn({ 'a.jsonl': session.text }, { agentHome: home, agentEnv });
    return { session, id: await sessionIdOf(env.app, 'a.jsonl') };
  }
  const get = (url: string) => env.app.inject({ method: 'GET', url, headers: AUTH });

  it('a models.yml endpoint with its key stored in agent.db (only in the WAL yet): offered as the default, used, its source shown', async () => {
    const { home, dbFile } = await ompHome({
      role: 'local/tiny:high',
      modelsYml: localModels('    authHeader: true\n    headers:\n      X-Team: TEAM_HEADER\n'),
      db: [{ provider: 'other', type: 'api_key', key: 'sk-other-0123456789' }],
      inWal: [{ provider: 'local', type: 'api_key', key: 'sk-omp-wal-0123456789', source: 'login' }],
    });
    const before = [fs.readFileSync(dbFile), fs.readFileSync(`${dbFile}-wal`)];
    const { session, id } = await boot(home, { TEAM_HEADER: 'team-blue' });
    const view = (await get('/api/providers')).json() as ProvidersResponse;
    expect(view.discovered).toEqual([
      expect.objectContaining({
        source: 'omp',
        provider: 'local',
        model: 'tiny',
        usable: true,
        summarizerId: 'llm:omp:local/tiny',
        from: '~/.omp/agent/config.yml (modelRoles.default)',
        credential: 'API key in ~/.omp/agent/agent.db (stored by /login)',
      }),
    ]);
    const info = (await get('/api/info')).json() as {
      defaultSummarizerId: string;
      summarizers: Array<{ id: string; label: string; source?: string }>;
    };
    expect(info.defaultSummarizerId).toBe('llm:omp:local/tiny');
    expect(info.summarizers.find((s) => s.id === 'llm:omp:local/tiny')).toEqual({
      id: 'llm:omp:local/tiny',
      label: "oh-my-pi's model: local/tiny",
      source:
        '~/.omp/agent/config.yml (modelRoles.default); API key in ~/.omp/agent/agent.db (stored by /login)',
    });
    const preview = await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/summary/preview`,
      headers: AUTH,
      payload: { source: { kind: 'navigate', targetId: session.ids[1] } },
    });
    expect(preview.statusCode, preview.body).toBe(200);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.headers.authorization).toBe('Bearer sk-omp-wal-0123456789');
    expect(fake.requests[0]?.headers['x-team']).toBe('team-blue');
    expect(fake.requests[0]?.body).toMatchObject({ model: 'tiny', max_completion_tokens: 2000 });
    expect(JSON.stringify(view) + JSON.stringify(info) + preview.body).not.toContain('sk-omp-wal');
    // Read, never written: both files are as oh-my-pi left them, and no shared-memory file appeared.
    expect([fs.readFileSync(dbFile), fs.readFileSync(`${dbFile}-wal`)]).toEqual(before);
    expect(fs.existsSync(`${dbFile}-shm`)).toBe(false);
  });

  it('an expired login is shown with its fix; renewed by oh-my-pi meanwhile, it is offered at the next look without a restart', async () => {
    const expired: TestCredential = {
      provider: 'anthropic',
      type: 'oauth',
      access: 'sk-ant-oat-old-0123456789',
      refresh: 'sk-ant-ort-old-0123456789',
      expires: Date.now() - 60_000,
    };
    const { home, dbFile } = await ompHome({ role: 'anthropic/claude-sonnet-4-5', db: [expired] });
    await boot(home);
    const view = (await get('/api/providers')).json() as ProvidersResponse;
    expect(view.discovered[0]).toMatchObject({ source: 'omp', usable: false, provider: 'anthropic' });
    expect(view.discovered[0]?.problem?.message).toMatch(/^Your oh-my-pi login for anthropic expired on /);
    expect(view.discovered[0]?.problem?.fix).toMatch(/^Start oh-my-pi/);
    await writeAgentDb(
      dbFile,
      [],
      [{ ...expired, access: 'sk-ant-oat-new-0123456789', expires: Date.now() + 3_600_000 }],
    );
    const renewed = (await get('/api/providers')).json() as ProvidersResponse;
    expect(renewed.discovered[0]).toMatchObject({
      usable: true,
      summarizerId: 'llm:omp:anthropic/claude-sonnet-4-5',
    });
    expect(renewed.discovered[0]?.credential).toMatch(
      /^oh-my-pi login in ~\/\.omp\/agent\/agent\.db, valid until /,
    );
    expect(JSON.stringify(view) + JSON.stringify(renewed)).not.toMatch(/sk-ant-o[ar]t-/);
  });
});
