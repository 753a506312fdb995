// oh-my-pi 18.3's `models.yml` (or `models.yaml` when there is no .yml) in its agent folder, read for
// the fields oh-my-pi uses to reach a model: `providers.<name>` with `baseUrl`, `api`, `apiKey`,
// `headers`, `authHeader`, `auth` ('none' = keyless), `compat`, `models` (custom models: id, name,
// api, baseUrl, reasoning, input, contextWindow, maxTokens, headers, compat) and `modelOverrides`.
// Its values (`apiKey`, header values) are oh-my-pi's config values: `!command` runs the command, else
// an environment variable of exactly that name when one is set, else the text itself.
// See docs/summaries.md#where-credentials-come-from.
import path from 'node:path';
import type { Api, Model } from '@earendil-works/pi-ai';
import { parse as parseYaml } from 'yaml';
import { readBoundedNoFollow } from '../files/confined';
import { isCommandValue, resolveValue } from './config-value';

const CONFIG_MAX_BYTES = 1024 * 1024;

export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A YAML file of the agent folder: undefined when absent; an Error naming the file when unusable. */
export async function readYamlFile(file: string): Promise<Json | undefined> {
  let text: string;
  try {
    text = (await readBoundedNoFollow(file, { maxBytes: CONFIG_MAX_BYTES })).bytes.toString('utf8');
  } catch (error) {
    if ((error as { reason?: string }).reason === 'deleted') return undefined;
    throw new Error(`${file} cannot be read: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    throw new Error(`${file} is not valid YAML: ${(error as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isRecord(parsed)) throw new Error(`${file} must hold a mapping`);
  return parsed;
}

/** models.yml, else models.yaml (as oh-my-pi falls back): its path and content, if either exists. */
export async function readOmpModels(agentDir: string): Promise<{ file: string; config: Json | undefined }> {
  const yml = path.join(agentDir, 'models.yml');
  const config = await readYamlFile(yml);
  if (config) return { file: yml, config };
  const yaml = path.join(agentDir, 'models.yaml');
  const fallback = await readYamlFile(yaml);
  return fallback ? { file: yaml, config: fallback } : { file: yml, config: undefined };
}

/** oh-my-pi's `resolveConfigValue`: a command's output, a variable of that exact name, or the text. */
export async function resolveOmpValue(config: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (isCommandValue(config)) return resolveValue(config, env);
  return env[config] || config;
}

/** The value without running a command (undefined for one): what secrets are sought by. */
export function ompValueNow(config: string, env: NodeJS.ProcessEnv): string | undefined {
  return isCommandValue(config) ? undefined : env[config] || config;
}

/** Says where a value comes from without showing it. */
export function describeOmpValue(config: string, env: NodeJS.ProcessEnv): string {
  if (isCommandValue(config)) return 'the output of a command';
  return env[config] ? `$${config}` : 'a key written in the file';
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

function stringRecord(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** The provider's section of models.yml, if any. */
export function ompProviderConfig(models: Json | undefined, provider: string): Json | undefined {
  const providers = isRecord(models?.providers) ? models.providers : undefined;
  const config = providers?.[provider];
  return isRecord(config) ? config : undefined;
}

/**
 * The model oh-my-pi would use: a custom model of models.yml (its `api` and `baseUrl`, else the
 * provider's; 128,000 / 16,384 tokens unless it says), or a built-in one with the provider's
 * `baseUrl` / `compat` and its `modelOverrides`. A string says why there is none. `headers` are the
 * provider's and the model's header config values, unresolved.
 */
export function ompModelOf(
  builtin: readonly Model<Api>[],
  provider: string,
  modelId: string,
  config: Json | undefined,
): { model: Model<Api>; headers: Record<string, string> } | string {
  const definitions = Array.isArray(config?.models) ? (config.models as unknown[]).filter(isRecord) : [];
  const definition = definitions.find((entry) => entry.id === modelId);
  const base = builtin.find((model) => model.id === modelId);
  const headers = { ...stringRecord(config?.headers) };
  let model: Model<Api>;
  if (definition) {
    const api = (definition.api ?? config?.api) as string | undefined;
    const baseUrl = (definition.baseUrl ?? config?.baseUrl) as string | undefined;
    if (typeof api !== 'string')
      return `models.yml: provider "${provider}", model "${modelId}": no "api" specified`;
    if (typeof baseUrl !== 'string')
      return `models.yml: provider "${provider}" needs a "baseUrl" for its models`;
    Object.assign(headers, stringRecord(definition.headers));
    model = {
      id: modelId,
      name: typeof definition.name === 'string' ? definition.name : modelId,
      api: api as Api,
      provider,
      baseUrl,
      reasoning: definition.reasoning === true,
      input: (Array.isArray(definition.input) ? definition.input : ['text']) as Model<Api>['input'],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: positive(definition.contextWindow) ?? base?.contextWindow ?? 128000,
      maxTokens: positive(definition.maxTokens) ?? base?.maxTokens ?? 16384,
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
    return `oh-my-pi's model ${provider}/${modelId} is neither one pi-ai 1.6 knows nor a model of models.yml`;
  }
  const overrides = isRecord(config?.modelOverrides) ? config.modelOverrides[modelId] : undefined;
  if (isRecord(overrides)) {
    Object.assign(headers, stringRecord(overrides.headers));
    model = {
      ...model,
      ...(typeof overrides.name === 'string' ? { name: overrides.name } : {}),
      ...(typeof overrides.reasoning === 'boolean' ? { reasoning: overrides.reasoning } : {}),
      ...(positive(overrides.contextWindow) ? { contextWindow: overrides.contextWindow as number } : {}),
      ...(positive(overrides.maxTokens) ? { maxTokens: overrides.maxTokens as number } : {}),
    };
  }
  return { model, headers };
}

/** Every literal or variable-held value of models.yml that may be a secret (keys and header values). */
export function ompModelsSecrets(models: Json | undefined, env: NodeJS.ProcessEnv): string[] {
  const secrets: string[] = [];
  const providers = isRecord(models?.providers) ? models.providers : {};
  const add = (value: unknown) => {
    const now = typeof value === 'string' ? ompValueNow(value, env) : undefined;
    if (now) secrets.push(now);
  };
  for (const config of Object.values(providers)) {
    if (!isRecord(config)) continue;
    add(config.apiKey);
    for (const value of Object.values(stringRecord(config.headers))) add(value);
    const definitions = Array.isArray(config.models) ? config.models.filter(isRecord) : [];
    for (const definition of definitions)
      for (const value of Object.values(stringRecord(definition.headers))) add(value);
  }
  return secrets;
}
