// "The model pi uses", from pi's own configuration, read as pi 1.6 reads it: the agent folder
// (`PI_CODING_AGENT_DIR`, else ~/.pi/agent), `settings.json` (defaultProvider / defaultModel,
// branchSummary.reserveTokens, retry), `models.json` (custom providers and models, provider
// overrides: baseUrl, apiKey, headers, authHeader, modelOverrides) and `auth.json` (API keys and
// subscription logins), then the provider's usual environment variables. A subscription login is
// used only while its token is valid; Canopy never refreshes it (pi would rotate the refresh token
// behind its own back). Every file is read through readBoundedNoFollow, at the moment it is needed.
import os from 'node:os';
import path from 'node:path';
import {
  DEFAULT_RETRY,
  llmSummarizerId,
  loadPiAi,
  type LlmTarget,
  type RequestAuth,
  type RetryPolicy,
} from '@canopy/summarizer';
import type { Api, Model } from '@earendil-works/pi-ai';
import { readBoundedNoFollow } from '../files/confined';
import { describeValue, envNamesOf, resolveTemplate, resolveValue } from './config-value';
import type { DiscoveredModel } from './discovered';

/** Config files are small; anything larger is not one. */
const CONFIG_MAX_BYTES = 1024 * 1024;

export function piAgentDir(env: NodeJS.ProcessEnv, home: string): string {
  const dir = env.PI_CODING_AGENT_DIR;
  if (dir)
    return path.resolve(dir === '~' ? home : dir.startsWith('~/') ? path.join(home, dir.slice(2)) : dir);
  return path.join(home, '.pi', 'agent');
}

/** `~/…` for a path under the home folder: what the page shows. */
export function shownPath(file: string, home: string): string {
  return file.startsWith(`${home}${path.sep}`) ? `~/${path.relative(home, file)}` : file;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** pi's `stripJsonComments`: `//` line comments and trailing commas, strings untouched. */
function stripJsonComments(input: string): string {
  return input
    .replace(/"(?:\\.|[^"\\])*"|\/\/[^\n]*/g, (m) => (m.startsWith('"') ? m : ''))
    .replace(/"(?:\\.|[^"\\])*"|,(\s*[}\]])/g, (m, tail: string | undefined) =>
      tail !== undefined ? tail : m.startsWith('"') ? m : '',
    );
}

/** A JSON file of the agent folder: undefined when absent; an Error naming the file when unreadable. */
export async function readConfigJson(file: string, comments = false): Promise<Json | undefined> {
  let text: string;
  try {
    text = (await readBoundedNoFollow(file, { maxBytes: CONFIG_MAX_BYTES })).bytes.toString('utf8');
  } catch (error) {
    if ((error as { reason?: string }).reason === 'deleted') return undefined;
    throw new Error(`${file} cannot be read: ${(error as Error).message}`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let parsed: unknown;
  try {
    parsed = JSON.parse(comments ? stripJsonComments(text) : text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isRecord(parsed)) throw new Error(`${file} must hold a JSON object`);
  return parsed;
}

/** The credential of a provider in auth.json, as pi stores it. */
type StoredCredential =
  | { type: 'api_key'; key?: string; env?: Record<string, string> }
  | { type: 'oauth'; access: string; refresh: string; expires: number; [key: string]: unknown };

function credentialOf(auth: Json | undefined, provider: string): StoredCredential | undefined {
  const value = auth?.[provider];
  if (!isRecord(value)) return undefined;
  if (value.type === 'api_key' && (value.key === undefined || typeof value.key === 'string'))
    return value as StoredCredential;
  if (
    value.type === 'oauth' &&
    typeof value.access === 'string' &&
    typeof value.refresh === 'string' &&
    typeof value.expires === 'number'
  )
    return value as StoredCredential;
  return undefined;
}

/** The auth context pi-ai's providers read the environment through. */
function authContext(env: NodeJS.ProcessEnv, home: string) {
  return {
    env: async (name: string) => env[name] || undefined,
    fileExists: async (file: string) => {
      const full = file.startsWith('~/') ? path.join(home, file.slice(2)) : file;
      try {
        await readBoundedNoFollow(full, { maxBytes: 1, truncate: true });
        return true;
      } catch {
        return false;
      }
    },
  };
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** The model pi would use: a models.json model of a custom provider, or a built-in one with its overrides. */
function modelOf(
  builtin: readonly Model<Api>[],
  provider: string,
  modelId: string,
  config: Json | undefined,
): Model<Api> | string {
  const definitions = Array.isArray(config?.models) ? (config.models as unknown[]).filter(isRecord) : [];
  const definition = definitions.find((entry) => entry.id === modelId);
  const override = isRecord(config?.modelOverrides) ? config.modelOverrides[modelId] : undefined;
  const base = builtin.find((model) => model.id === modelId);
  let model: Model<Api>;
  if (definition) {
    const defaults = base ?? builtin.find((m) => m.api === 'openai-completions') ?? builtin[0];
    const api = (definition.api ?? config?.api ?? defaults?.api) as string | undefined;
    const baseUrl = (definition.baseUrl ?? config?.baseUrl ?? defaults?.baseUrl) as string | undefined;
    if (!api) return `models.json: provider "${provider}", model "${modelId}" names no "api"`;
    if (!baseUrl) return `models.json: provider "${provider}" needs a "baseUrl" for its models`;
    model = {
      id: modelId,
      name: typeof definition.name === 'string' ? definition.name : modelId,
      api: api as Api,
      provider,
      baseUrl,
      reasoning: definition.reasoning === true,
      input: (Array.isArray(definition.input) ? definition.input : ['text']) as Model<Api>['input'],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: positive(definition.contextWindow) ?? 128000,
      maxTokens: positive(definition.maxTokens) ?? 16384,
      ...(isRecord(config?.compat) || isRecord(definition.compat)
        ? { compat: { ...(config?.compat as object), ...(definition.compat as object) } }
        : {}),
    } as Model<Api>;
  } else if (base) {
    model = {
      ...base,
      ...(typeof config?.baseUrl === 'string' ? { baseUrl: config.baseUrl } : {}),
      ...(isRecord(config?.compat) ? { compat: { ...base.compat, ...config.compat } } : {}),
    } as Model<Api>;
  } else {
    return `pi knows no model "${modelId}" of provider "${provider}" (neither built in nor in models.json)`;
  }
  if (isRecord(override)) {
    model = {
      ...model,
      ...(typeof override.reasoning === 'boolean' ? { reasoning: override.reasoning } : {}),
      ...(positive(override.contextWindow) ? { contextWindow: override.contextWindow as number } : {}),
      ...(positive(override.maxTokens) ? { maxTokens: override.maxTokens as number } : {}),
    };
  }
  return model;
}

export interface AgentSetupOptions {
  env: NodeJS.ProcessEnv;
  home?: string;
  now?: () => number;
}

/**
 * The model of pi's settings, with where it came from and how it authenticates, or the problem
 * that keeps it from being offered (and its fix). Undefined when pi has no default model.
 */
export async function discoverPiModel(options: AgentSetupOptions): Promise<DiscoveredModel | undefined> {
  const { env } = options;
  const home = options.home ?? os.homedir();
  const now = options.now ?? Date.now;
  const dir = piAgentDir(env, home);
  const settingsFile = path.join(dir, 'settings.json');
  const modelsFile = path.join(dir, 'models.json');
  const authFile = path.join(dir, 'auth.json');
  const problem = (provider: string, model: string, message: string, fix: string): DiscoveredModel => ({
    source: 'pi',
    id: llmSummarizerId({ provider: `pi:${provider}`, model }),
    provider,
    model,
    from: shownPath(settingsFile, home),
    credential: '',
    problem: { message, fix },
  });

  let settings: Json | undefined;
  try {
    settings = await readConfigJson(settingsFile);
  } catch (error) {
    return problem(
      '?',
      '?',
      (error as Error).message,
      `Fix ${shownPath(settingsFile, home)} (pi reads it too).`,
    );
  }
  const provider = typeof settings?.defaultProvider === 'string' ? settings.defaultProvider : undefined;
  const modelId = typeof settings?.defaultModel === 'string' ? settings.defaultModel : undefined;
  if (!provider || !modelId) return undefined;

  let models: Json | undefined;
  let auth: Json | undefined;
  try {
    models = await readConfigJson(modelsFile, true);
    auth = await readConfigJson(authFile);
  } catch (error) {
    return problem(provider, modelId, (error as Error).message, 'Fix the file in pi, then press Refresh.');
  }
  const withSecrets = (found: DiscoveredModel): DiscoveredModel => ({ ...found, secrets });
  const secrets = credentialSecrets(auth, models, env);
  const providerConfig = isRecord(models?.providers) ? models.providers[provider] : undefined;
  const config = isRecord(providerConfig) ? providerConfig : undefined;

  const pi = await loadPiAi();
  const builtin = pi.getModels(provider as never) as Model<Api>[];
  const model = modelOf(builtin, provider, modelId, config);
  if (typeof model === 'string')
    return problem(
      provider,
      modelId,
      model,
      `Choose another model in pi (/model), or fix ${shownPath(modelsFile, home)}.`,
    );

  const branchSummary = isRecord(settings?.branchSummary) ? settings.branchSummary : {};
  const retrySettings = isRecord(settings?.retry) ? settings.retry : {};
  const retry: RetryPolicy = {
    enabled: retrySettings.enabled !== false,
    maxRetries:
      typeof retrySettings.maxRetries === 'number' ? retrySettings.maxRetries : DEFAULT_RETRY.maxRetries,
    baseDelayMs:
      typeof retrySettings.baseDelayMs === 'number' ? retrySettings.baseDelayMs : DEFAULT_RETRY.baseDelayMs,
    ...(typeof retrySettings.maxAgentDelayMs === 'number'
      ? { maxAgentDelayMs: retrySettings.maxAgentDelayMs }
      : {}),
  };

  // How it authenticates, said without the secret: a stored credential owns the provider, as in pi.
  const stored = credentialOf(auth, provider);
  const configKey = typeof config?.apiKey === 'string' ? config.apiKey : undefined;
  const { builtinProviders } = await import('@earendil-works/pi-ai/providers/all');
  const providerObject = builtinProviders().find((candidate) => candidate.id === provider);
  const ctx = authContext(env, home);
  let credential: string;
  if (stored?.type === 'oauth') {
    if (now() >= stored.expires) {
      return withSecrets({
        ...problem(
          provider,
          modelId,
          `Your pi login for ${provider} expired on ${new Date(stored.expires).toISOString().slice(0, 16).replace('T', ' ')} UTC. Canopy never refreshes a login (pi would find its token rotated).`,
          `Start pi and send a message (or /login ${provider}) so pi renews it, then press Refresh.`,
        ),
        credential: `pi login in ${shownPath(authFile, home)} (expired)`,
      });
    }
    credential = `pi login in ${shownPath(authFile, home)}, valid until ${new Date(stored.expires).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  } else if (stored?.type === 'api_key' && stored.key) {
    credential = `API key in ${shownPath(authFile, home)} (${describeValue(stored.key)})`;
  } else if (configKey) {
    const missing = envNamesOf(configKey).filter((name) => !env[name]);
    if (missing.length > 0)
      return withSecrets(
        problem(
          provider,
          modelId,
          `${shownPath(modelsFile, home)} takes the key of ${provider} from ${missing.map((n) => `$${n}`).join(', ')}, which is not set for Canopy.`,
          `Start Canopy with ${missing[0]} set, as for pi.`,
        ),
      );
    credential = `API key in ${shownPath(modelsFile, home)} (${describeValue(configKey)})`;
  } else {
    const ambient = await providerObject?.auth.apiKey
      ?.resolve({ ctx, credential: undefined, signal: AbortSignal.timeout(10_000) })
      .catch(() => undefined);
    if (!ambient)
      return withSecrets(
        problem(
          provider,
          modelId,
          `pi has no key or login for ${provider} that Canopy can use (none in ${shownPath(authFile, home)} or ${shownPath(modelsFile, home)}, no ${provider} variable set).`,
          `Log in with pi (/login), or start Canopy with the provider's key variable set, or add a provider in Settings.`,
        ),
      );
    credential = ambient.source ? `${ambient.source} (environment)` : 'the environment';
  }

  const resolveAuth = async (signal: AbortSignal): Promise<RequestAuth> => {
    // Read again at each request: a login renewed by pi, or a key changed, is used at once.
    const current = credentialOf(await readConfigJson(authFile), provider);
    let result: RequestAuth | undefined;
    if (current?.type === 'oauth') {
      if (now() >= current.expires)
        throw new Error(
          `your pi login for ${provider} has expired; start pi so it renews it (Canopy never refreshes it)`,
        );
      const oauth = providerObject?.auth.oauth;
      if (!oauth) throw new Error(`pi-ai has no login method for ${provider}`);
      result = await oauth.toAuth(current as never);
    } else if (current?.type === 'api_key' && current.key) {
      const key = await resolveValue(current.key, env, current.env);
      if (!key)
        throw new Error(
          `the key of ${provider} in ${shownPath(authFile, home)} did not resolve (${describeValue(current.key)})`,
        );
      result = providerObject?.auth.apiKey
        ? (await providerObject.auth.apiKey.resolve({ ctx, credential: { ...current, key }, signal }))?.auth
        : { apiKey: key };
    } else if (configKey) {
      const key = await resolveValue(configKey, env);
      if (!key)
        throw new Error(
          `the key of ${provider} in ${shownPath(modelsFile, home)} did not resolve (${describeValue(configKey)})`,
        );
      result = { apiKey: key };
    } else {
      result = (await providerObject?.auth.apiKey?.resolve({ ctx, credential: undefined, signal }))?.auth;
    }
    if (!result) throw new Error(`no key or login for ${provider} is configured any more`);
    // models.json headers, resolved like keys; authHeader sends the key as a bearer token.
    const headers: Record<string, string | null> = { ...result.headers };
    if (isRecord(config?.headers)) {
      for (const [name, raw] of Object.entries(config.headers)) {
        if (typeof raw !== 'string') continue;
        const value = await resolveValue(raw, env);
        if (value) headers[name] = value;
      }
    }
    if (config?.authHeader === true && result.apiKey) headers.Authorization = `Bearer ${result.apiKey}`;
    return { ...result, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
  };

  const target: LlmTarget = {
    id: llmSummarizerId({ provider: `pi:${provider}`, model: modelId }),
    label: `pi's model: ${provider}/${modelId}`,
    model,
    auth: resolveAuth,
    reserveTokens: positive(branchSummary.reserveTokens) ?? 16384,
    retry,
  };
  return withSecrets({
    source: 'pi',
    id: target.id,
    provider,
    model: modelId,
    from: `${shownPath(settingsFile, home)} (defaultProvider, defaultModel)`,
    credential,
    target,
  });
}

/** The credentials pi's files hold: auth.json keys and login tokens, models.json keys (no command is run). */
function credentialSecrets(
  auth: Json | undefined,
  models: Json | undefined,
  env: NodeJS.ProcessEnv,
): string[] {
  const secrets: string[] = [];
  const add = (value: unknown, extra?: Record<string, string>) => {
    if (typeof value !== 'string' || value.startsWith('!')) return;
    const resolved = resolveTemplate(value, env, extra);
    if (resolved) secrets.push(resolved);
  };
  for (const credential of Object.values(auth ?? {})) {
    if (!isRecord(credential)) continue;
    add(credential.key, isRecord(credential.env) ? (credential.env as Record<string, string>) : undefined);
    for (const token of [credential.access, credential.refresh])
      if (typeof token === 'string') secrets.push(token);
  }
  const providers = isRecord(models?.providers) ? models.providers : {};
  for (const config of Object.values(providers)) if (isRecord(config)) add(config.apiKey);
  return secrets.filter((secret) => secret.length >= 6);
}
