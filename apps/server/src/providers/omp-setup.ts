// "The model oh-my-pi uses", from oh-my-pi 18.3's own configuration, read as it reads it:
// - its agent folder: ~/.omp/agent (`PI_CONFIG_DIR` in place of `.omp`), or with a profile
//   (`OMP_PROFILE`, else `PI_PROFILE`; "default" is none) ~/.omp/profiles/<name>/agent, else
//   `PI_CODING_AGENT_DIR` when set;
// - `config.yml`: `modelRoles.default`, "provider/model" with an optional ":thinking" level;
// - `models.yml`: custom providers and models, provider overrides (omp-models.ts);
// - `agent.db`: stored API keys and subscription logins (omp-agent-db.ts).
// The key of a provider follows oh-my-pi's precedence (AuthStorage.getApiKey): the models.yml
// `apiKey` → a stored login (OAuth) → a key stored by /login → the provider's environment variable →
// any other stored key; `auth: none` needs none. A login is used only while its token is valid:
// Canopy never refreshes it (oh-my-pi would find its refresh token rotated behind its back).
// Everything is read again at each request, so a login renewed by oh-my-pi is used at once.
import os from 'node:os';
import path from 'node:path';
import {
  DEFAULT_RESERVE_TOKENS,
  DEFAULT_RETRY,
  llmSummarizerId,
  loadPiAi,
  type LlmTarget,
  type RequestAuth,
} from '@canopy/summarizer';
import type { Api, Model } from '@earendil-works/pi-ai';
import { ompAgentDbPath, readOmpCredentials, type OmpCredential } from './omp-agent-db';
import {
  describeOmpValue,
  isRecord,
  ompModelOf,
  ompModelsSecrets,
  ompProviderConfig,
  readOmpModels,
  readYamlFile,
  resolveOmpValue,
  type Json,
} from './omp-models';
import type { DiscoveredModel } from './discovered';
import type { AgentSetupOptions } from './pi-setup';
import { shownPath } from './pi-setup';

const THINKING_LEVELS = new Set(['off', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

/** oh-my-pi's profile name (OMP_PROFILE, else PI_PROFILE), or undefined for the default one. */
function ompProfile(env: NodeJS.ProcessEnv): string | undefined {
  const name = (env.OMP_PROFILE !== undefined ? env.OMP_PROFILE : env.PI_PROFILE)?.trim();
  if (!name || name === 'default' || name.endsWith('.') || !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(name))
    return undefined;
  return name;
}

function ompDefaultAgentDir(env: NodeJS.ProcessEnv, home: string): string {
  const root = path.join(home, env.PI_CONFIG_DIR || '.omp');
  const profile = ompProfile(env);
  return profile ? path.join(root, 'profiles', profile, 'agent') : path.join(root, 'agent');
}

export function ompAgentDir(env: NodeJS.ProcessEnv, home: string): string {
  if (!ompProfile(env) && env.PI_CODING_AGENT_DIR) return path.resolve(env.PI_CODING_AGENT_DIR);
  return ompDefaultAgentDir(env, home);
}

const when = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The credential oh-my-pi would use for `provider`, in its order of precedence. */
type Choice =
  | { kind: 'config'; value: string }
  | { kind: 'login'; credential: Extract<OmpCredential, { type: 'oauth' }> }
  | { kind: 'expired'; credential: Extract<OmpCredential, { type: 'oauth' }> }
  | { kind: 'stored-key'; credential: Extract<OmpCredential, { type: 'api_key' }> }
  | { kind: 'environment'; source: string }
  | { kind: 'keyless' };

interface AuthInputs {
  provider: string;
  config: Json | undefined;
  credentials: readonly OmpCredential[];
  env: NodeJS.ProcessEnv;
  now: number;
  ambient: () => Promise<{ source?: string } | undefined>;
}

async function choose(inputs: AuthInputs): Promise<Choice | undefined> {
  const { provider, config, credentials } = inputs;
  if (typeof config?.apiKey === 'string' && config.apiKey) return { kind: 'config', value: config.apiKey };
  const mine = credentials.filter((credential) => credential.provider === provider);
  const logins = mine.flatMap((credential) => (credential.type === 'oauth' ? [credential] : []));
  const keys = mine.flatMap((credential) => (credential.type === 'api_key' ? [credential] : []));
  const valid = logins.find((login) => Number.isFinite(login.expires) && login.expires > inputs.now);
  if (valid) return { kind: 'login', credential: valid };
  if (logins[0]) return { kind: 'expired', credential: logins[0] };
  const loginKey = keys.find((key) => key.login);
  if (loginKey) return { kind: 'stored-key', credential: loginKey };
  const ambient = await inputs.ambient();
  if (ambient) return { kind: 'environment', source: ambient.source ?? 'a key variable' };
  if (keys[0]) return { kind: 'stored-key', credential: keys[0] };
  if (config?.auth === 'none') return { kind: 'keyless' };
  return undefined;
}

/** The role "provider/model[:thinking]" split, or undefined when it names no provider. */
function parseRole(role: unknown): { provider: string; model: string } | undefined {
  if (typeof role !== 'string' || !role.includes('/')) return undefined;
  let spec = role.trim();
  const colon = spec.lastIndexOf(':');
  if (colon > spec.indexOf('/') && THINKING_LEVELS.has(spec.slice(colon + 1))) spec = spec.slice(0, colon);
  const slash = spec.indexOf('/');
  return { provider: spec.slice(0, slash), model: spec.slice(slash + 1) };
}

/** oh-my-pi's default model role, or undefined when it has none (or no config.yml). */
export async function discoverOmpModel(options: AgentSetupOptions): Promise<DiscoveredModel | undefined> {
  const { env } = options;
  const home = options.home ?? os.homedir();
  const now = options.now ?? Date.now;
  const agentDir = ompAgentDir(env, home);
  const configFile = path.join(agentDir, 'config.yml');
  const dbFile = ompAgentDbPath(env, agentDir, ompDefaultAgentDir(env, home), ompProfile(env));
  const shown = (file: string) => shownPath(file, home);
  const from = `${shown(configFile)} (modelRoles.default)`;
  let provider = '?';
  let modelId = '?';
  let secrets: string[] = [];
  const problem = (message: string, fix: string, credential = ''): DiscoveredModel => ({
    source: 'omp',
    id: llmSummarizerId({ provider: `omp:${provider}`, model: modelId }),
    provider,
    model: modelId,
    from,
    credential,
    problem: { message, fix },
    ...(secrets.length > 0 ? { secrets } : {}),
  });

  let config: Json | undefined;
  try {
    config = await readYamlFile(configFile);
  } catch (error) {
    return problem((error as Error).message, 'Fix the file in oh-my-pi, then press Refresh.');
  }
  const roles = config?.modelRoles;
  const role = parseRole(isRecord(roles) ? roles.default : undefined);
  if (!role) return undefined;
  ({ provider, model: modelId } = role);

  let models: { file: string; config: Json | undefined };
  let credentials: OmpCredential[];
  try {
    models = await readOmpModels(agentDir);
    credentials = (await readOmpCredentials(dbFile)) ?? [];
  } catch (error) {
    return problem((error as Error).message, 'Fix the file in oh-my-pi, then press Refresh.');
  }
  secrets = [
    ...credentials.flatMap((credential) =>
      credential.type === 'api_key' ? [credential.key] : [credential.access, credential.refresh],
    ),
    ...ompModelsSecrets(models.config, env),
  ].filter((secret) => secret.length >= 6);

  const pi = await loadPiAi();
  const providerConfig = ompProviderConfig(models.config, provider);
  const found = ompModelOf(
    pi.getModels(provider as never) as Model<Api>[],
    provider,
    modelId,
    providerConfig,
  );
  if (typeof found === 'string')
    return problem(
      found,
      `Choose another model in oh-my-pi, fix ${shown(models.file)}, or add the endpoint in Settings → Providers.`,
    );

  const { builtinProviders } = await import('@earendil-works/pi-ai/providers/all');
  const providerObject = builtinProviders().find((candidate) => candidate.id === provider);
  const ctx = { env: async (name: string) => env[name] || undefined, fileExists: async () => false };
  const ambientOf = (signal: AbortSignal) => async () =>
    providerObject?.auth.apiKey?.resolve({ ctx, credential: undefined, signal }).catch(() => undefined);
  const choice = await choose({
    provider,
    config: providerConfig,
    credentials,
    env,
    now: now(),
    ambient: ambientOf(AbortSignal.timeout(10_000)),
  });
  let credential: string;
  switch (choice?.kind) {
    case 'config':
      credential = `API key in ${shown(models.file)} (${describeOmpValue(choice.value, env)})`;
      break;
    case 'login':
      credential = `oh-my-pi login in ${shown(dbFile)}, valid until ${when(choice.credential.expires)}`;
      break;
    case 'expired':
      return problem(
        `Your oh-my-pi login for ${provider} expired on ${when(choice.credential.expires)}. Canopy never refreshes a login (oh-my-pi would find its token rotated).`,
        `Start oh-my-pi and send a message (or /login ${provider}) so it renews it, then press Refresh.`,
        `oh-my-pi login in ${shown(dbFile)} (expired)`,
      );
    case 'stored-key':
      credential = `API key in ${shown(dbFile)}${choice.credential.login ? ' (stored by /login)' : ''}`;
      break;
    case 'environment':
      credential = `${choice.source} (environment)`;
      break;
    case 'keyless':
      credential = `no key (${shown(models.file)}: auth: none)`;
      break;
    default:
      return problem(
        `oh-my-pi has no key or login for ${provider} that Canopy can use (none in ${shown(models.file)} or ${shown(dbFile)}, no ${provider} variable set).`,
        `Log in with oh-my-pi (/login), or start Canopy with the provider's key variable set, or add a provider in Settings.`,
      );
  }

  const keyAuth = async (key: string, signal: AbortSignal): Promise<RequestAuth> =>
    (providerObject?.auth.apiKey
      ? (await providerObject.auth.apiKey.resolve({ ctx, credential: { type: 'api_key', key }, signal }))
          ?.auth
      : undefined) ?? { apiKey: key };

  const resolveAuth = async (signal: AbortSignal): Promise<RequestAuth> => {
    // Read again at each request: a login renewed by oh-my-pi, or a key changed, is used at once.
    const current = (await readOmpModels(agentDir)).config;
    const currentConfig = ompProviderConfig(current, provider);
    const picked = await choose({
      provider,
      config: currentConfig,
      credentials: (await readOmpCredentials(dbFile)) ?? [],
      env,
      now: now(),
      ambient: ambientOf(signal),
    });
    let result: RequestAuth | undefined;
    switch (picked?.kind) {
      case 'config': {
        const key = await resolveOmpValue(picked.value, env);
        if (!key) throw new Error(`the key of ${provider} in ${shown(models.file)} did not resolve`);
        result = await keyAuth(key, signal);
        break;
      }
      case 'login': {
        const oauth = providerObject?.auth.oauth;
        if (!oauth) throw new Error(`pi-ai has no login method for ${provider}`);
        result = await oauth.toAuth({ ...picked.credential.data, type: 'oauth' } as never);
        break;
      }
      case 'expired':
        throw new Error(
          `your oh-my-pi login for ${provider} has expired; start oh-my-pi so it renews it (Canopy never refreshes it)`,
        );
      case 'stored-key': {
        const key = await resolveOmpValue(picked.credential.key, env);
        if (!key) throw new Error(`the key of ${provider} in ${shown(dbFile)} did not resolve`);
        result = await keyAuth(key, signal);
        break;
      }
      case 'environment':
        result = (await providerObject?.auth.apiKey?.resolve({ ctx, credential: undefined, signal }))?.auth;
        break;
      case 'keyless':
        result = { apiKey: 'N/A' };
        break;
    }
    if (!result) throw new Error(`no key or login for ${provider} is configured in oh-my-pi any more`);
    // models.yml headers (the provider's, then the model's), resolved like keys; authHeader sends the
    // key as a bearer token.
    const again = ompModelOf([found.model], provider, modelId, currentConfig);
    const headerConfig = typeof again === 'string' ? found.headers : again.headers;
    const headers: Record<string, string | null> = { ...result.headers };
    for (const [name, raw] of Object.entries(headerConfig)) {
      const value = await resolveOmpValue(raw, env);
      if (value) headers[name] = value;
    }
    if (currentConfig?.authHeader === true && result.apiKey)
      headers.Authorization = `Bearer ${result.apiKey}`;
    return { ...result, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
  };

  const id = llmSummarizerId({ provider: `omp:${provider}`, model: modelId });
  const target: LlmTarget = {
    id,
    label: `oh-my-pi's model: ${provider}/${modelId}`,
    model: found.model,
    auth: resolveAuth,
    reserveTokens: DEFAULT_RESERVE_TOKENS,
    retry: DEFAULT_RETRY,
  };
  return {
    source: 'omp',
    id,
    provider,
    model: modelId,
    from,
    credential,
    target,
    ...(secrets.length > 0 ? { secrets } : {}),
  };
}
