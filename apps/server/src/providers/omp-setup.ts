// "The model oh-my-pi uses", from oh-my-pi 18.3.4's own configuration: its agent folder
// (`PI_CODING_AGENT_DIR`, else ~/.omp/agent, or ~/.omp/profiles/<OMP_PROFILE>/agent, with
// `PI_CONFIG_DIR` in place of `.omp`), `config.yml` (`modelRoles.default`, "provider/model" with an
// optional ":thinking" level), and the provider's environment variables. oh-my-pi keeps its logins
// and stored keys in a SQLite database (agent.db, written ahead in a WAL file) that Canopy does not
// read; when the environment holds no key the page says so and how to give one.
import os from 'node:os';
import path from 'node:path';
import {
  DEFAULT_RESERVE_TOKENS,
  DEFAULT_RETRY,
  llmSummarizerId,
  loadPiAi,
  type LlmTarget,
} from '@canopy/summarizer';
import type { Api, Model } from '@earendil-works/pi-ai';
import { parse as parseYaml } from 'yaml';
import { readBoundedNoFollow } from '../files/confined';
import type { DiscoveredModel } from './discovered';
import type { AgentSetupOptions } from './pi-setup';
import { shownPath } from './pi-setup';

const CONFIG_MAX_BYTES = 1024 * 1024;
const THINKING_LEVELS = new Set(['off', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

function profileName(value: string | undefined): string | undefined {
  const name = value?.trim();
  if (!name || name === '.' || name === '..' || !/^[A-Za-z0-9._-]+$/.test(name)) return undefined;
  return name;
}

export function ompAgentDir(env: NodeJS.ProcessEnv, home: string): string {
  if (env.PI_CODING_AGENT_DIR) return path.resolve(env.PI_CODING_AGENT_DIR);
  const configDir = env.PI_CONFIG_DIR || '.omp';
  const root = path.isAbsolute(configDir) ? configDir : path.join(home, configDir);
  const profile = profileName(env.OMP_PROFILE !== undefined ? env.OMP_PROFILE : env.PI_PROFILE);
  return profile ? path.join(root, 'profiles', profile, 'agent') : path.join(root, 'agent');
}

/** oh-my-pi's configuration file could not be used: no model, the problem and its fix. */
function unusableFile(from: string, message: string, fix: string): DiscoveredModel {
  return {
    source: 'omp',
    id: 'llm:omp:?/?',
    provider: '?',
    model: '?',
    from,
    credential: '',
    problem: { message, fix },
  };
}

/** oh-my-pi's default model role, or undefined when it has none (or no config.yml). */
export async function discoverOmpModel(options: AgentSetupOptions): Promise<DiscoveredModel | undefined> {
  const { env } = options;
  const home = options.home ?? os.homedir();
  const file = path.join(ompAgentDir(env, home), 'config.yml');
  const from = `${shownPath(file, home)} (modelRoles.default)`;
  let text: string;
  try {
    text = (await readBoundedNoFollow(file, { maxBytes: CONFIG_MAX_BYTES })).bytes.toString('utf8');
  } catch (error) {
    if ((error as { reason?: string }).reason === 'deleted') return undefined;
    return unusableFile(
      from,
      `${shownPath(file, home)} cannot be read: ${(error as Error).message}`,
      'Fix the file, then press Refresh.',
    );
  }
  let config: unknown;
  try {
    config = parseYaml(text);
  } catch (error) {
    return unusableFile(
      from,
      `${shownPath(file, home)} is not valid YAML: ${(error as Error).message}`,
      'Fix the file in oh-my-pi, then press Refresh.',
    );
  }
  const roles = (config as { modelRoles?: unknown } | null)?.modelRoles;
  const role =
    typeof roles === 'object' && roles !== null ? (roles as Record<string, unknown>).default : undefined;
  if (typeof role !== 'string' || !role.includes('/')) return undefined;
  let spec = role.trim();
  const colon = spec.lastIndexOf(':');
  if (colon > spec.indexOf('/') && THINKING_LEVELS.has(spec.slice(colon + 1))) spec = spec.slice(0, colon);
  const slash = spec.indexOf('/');
  const provider = spec.slice(0, slash);
  const modelId = spec.slice(slash + 1);
  const id = llmSummarizerId({ provider: `omp:${provider}`, model: modelId });
  const problem = (message: string, fix: string): DiscoveredModel => ({
    source: 'omp',
    id,
    provider,
    model: modelId,
    from,
    credential: '',
    problem: { message, fix },
  });

  const pi = await loadPiAi();
  const model = (pi.getModels(provider as never) as Model<Api>[]).find(
    (candidate) => candidate.id === modelId,
  );
  if (!model)
    return problem(
      `oh-my-pi's default model ${provider}/${modelId} is not one pi-ai 1.6 knows (a models.yml model is not read by Canopy).`,
      'Add the endpoint in Settings → Providers instead.',
    );
  const { builtinProviders } = await import('@earendil-works/pi-ai/providers/all');
  const providerObject = builtinProviders().find((candidate) => candidate.id === provider);
  const ctx = {
    env: async (name: string) => env[name] || undefined,
    fileExists: async () => false,
  };
  const ambient = await providerObject?.auth.apiKey
    ?.resolve({ ctx, credential: undefined, signal: AbortSignal.timeout(10_000) })
    .catch(() => undefined);
  if (!ambient)
    return problem(
      `oh-my-pi keeps its logins and keys for ${provider} in agent.db, which Canopy does not read, and no ${provider} key variable is set.`,
      `Start Canopy with the provider's key variable set (as oh-my-pi also reads it), or add the provider in Settings.`,
    );
  const target: LlmTarget = {
    id,
    label: `oh-my-pi's model: ${provider}/${modelId}`,
    model,
    auth: async (signal) => {
      const resolved = await providerObject?.auth.apiKey?.resolve({ ctx, credential: undefined, signal });
      if (!resolved) throw new Error(`no ${provider} key variable is set any more`);
      return resolved.auth;
    },
    reserveTokens: DEFAULT_RESERVE_TOKENS,
    retry: DEFAULT_RETRY,
  };
  return {
    source: 'omp',
    id,
    provider,
    model: modelId,
    from,
    credential: `${ambient.source ?? 'a key variable'} (environment)`,
    target,
  };
}
