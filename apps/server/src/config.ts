import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { summarizersFromConfig, urlSecrets, type Summarizer } from '@canopy/summarizer';
import { createHoldSummarizer } from './test-summarizer';

export const DEFAULT_PORT = 4317;
export const DEFAULT_HOST = '127.0.0.1';
export const CONFIG_FILE_NAME = 'canopy.config.json';

export interface CliOptions {
  paths: string[];
  port?: number;
  host?: string;
  extensions: string[];
  help: boolean;
  /** Print the outline of every session and exit instead of serving. */
  outline: boolean;
}

export const USAGE = `Usage: canopy [paths…] [--port N] [--host H] [--extension module]… [--outline]

  paths          session folders or files to show (default: every pi / oh-my-pi sessions
                 folder that exists: ~/.pi/agent/sessions, ~/.omp/agent/sessions and the ones
                 named by the variables below; else bundled demo sessions)
  --port N       port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)
  --host H       address to listen on (default ${DEFAULT_HOST})
  --extension M  load a server extension module (repeatable)
  --outline      print the tree of each session in the terminal (the rows the outline view
                 shows, active path first) and exit

Environment: CANOPY_STATE_DIR (state folder), XDG_STATE_HOME; sessions folders:
  PI_CODING_AGENT_SESSION_DIR, PI_CODING_AGENT_DIR (<dir>/sessions), OMP_PROFILE / PI_PROFILE
  (~/.omp/profiles/<name>/agent/sessions), PI_CONFIG_DIR (~/<dir>/agent/sessions),
  XDG_DATA_HOME ($XDG_DATA_HOME/omp/sessions); an LLM summariser: CANOPY_SUMMARY_PROVIDER,
  CANOPY_SUMMARY_MODEL, CANOPY_SUMMARY_API_KEY, CANOPY_SUMMARY_BASE_URL; CANOPY_IDLE_CLOSE_MS
  (an open session no browser follows is released after this many ms, default 60000).`;

/** Parses `canopy [paths…] [--port N] [--host H] [--extension M]…`; throws a readable Error on bad input. */
export function parseCli(argv: string[]): CliOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      port: { type: 'string', short: 'p' },
      host: { type: 'string' },
      extension: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
      outline: { type: 'boolean' },
    },
  });
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new Error(`--port must be an integer 0–65535, got "${values.port}"`);
  }
  const host = values.host?.trim();
  if (host !== undefined && host === '') throw new Error('--host must not be empty');
  return {
    paths: positionals,
    port,
    host,
    extensions: values.extension ?? [],
    help: values.help === true,
    outline: values.outline === true,
  };
}

/** `$CANOPY_STATE_DIR`, else `$XDG_STATE_HOME/canopy`, else `~/.local/state/canopy`. */
/**
 * `CANOPY_IDLE_CLOSE_MS`: how long an open session nobody follows stays in memory (undefined: the
 * default). Throws a readable Error unless it is a whole number of milliseconds, at least 1.
 */
export function idleCloseMsFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.CANOPY_IDLE_CLOSE_MS;
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < 1) {
    throw new Error(`CANOPY_IDLE_CLOSE_MS must be a whole number of milliseconds (at least 1), not "${raw}"`);
  }
  return value;
}

export function resolveStateDir(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  if (env.CANOPY_STATE_DIR) return path.resolve(env.CANOPY_STATE_DIR);
  if (env.XDG_STATE_HOME) return path.resolve(env.XDG_STATE_HOME, 'canopy');
  return path.join(home, '.local', 'state', 'canopy');
}

/** A profile name as oh-my-pi accepts it; anything that could leave the profiles folder is ignored. */
function profileName(value: string | undefined): string | undefined {
  const name = value?.trim();
  if (!name || name === '.' || name === '..' || !/^[A-Za-z0-9._-]+$/.test(name)) return undefined;
  return name;
}

/**
 * Every folder pi and oh-my-pi may keep sessions in, most specific first, without duplicates (the
 * caller keeps the ones that exist). oh-my-pi resolves its folder from these variables:
 * `PI_CODING_AGENT_SESSION_DIR` (the sessions folder itself), `PI_CODING_AGENT_DIR` (the agent
 * folder), `OMP_PROFILE` (or the older `PI_PROFILE` when `OMP_PROFILE` is unset) for
 * `~/.omp/profiles/<name>/agent`, `PI_CONFIG_DIR` for another name than `.omp`, and
 * `$XDG_DATA_HOME/omp` once that folder exists (its `agent/` level is flattened away). pi's own
 * `~/.pi/agent/sessions` comes last.
 */
export function agentSessionDirs(home = os.homedir(), env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs: string[] = [];
  const add = (dir: string) => {
    const resolved = path.resolve(dir.startsWith('~/') ? path.join(home, dir.slice(2)) : dir);
    if (!dirs.includes(resolved)) dirs.push(resolved);
  };
  if (env.PI_CODING_AGENT_SESSION_DIR) add(env.PI_CODING_AGENT_SESSION_DIR);
  if (env.PI_CODING_AGENT_DIR) add(path.join(env.PI_CODING_AGENT_DIR, 'sessions'));
  const configDirs = [...new Set([env.PI_CONFIG_DIR || '.omp', '.omp'])];
  const profile = profileName(env.OMP_PROFILE !== undefined ? env.OMP_PROFILE : env.PI_PROFILE);
  if (env.XDG_DATA_HOME) {
    const xdg = path.join(env.XDG_DATA_HOME, 'omp');
    if (profile) add(path.join(xdg, 'profiles', profile, 'sessions'));
    add(path.join(xdg, 'sessions'));
  }
  for (const configDir of configDirs) {
    const root = path.isAbsolute(configDir) ? configDir : path.join(home, configDir);
    if (profile) add(path.join(root, 'profiles', profile, 'agent', 'sessions'));
    add(path.join(root, 'agent', 'sessions'));
  }
  add(path.join(home, '.pi', 'agent', 'sessions'));
  return dirs;
}

/** `canopy.config.json` in the state folder; every key optional. */
export interface ConfigFile {
  roots?: string[];
  extensions?: string[];
  port?: number;
  host?: string;
  /** The `summarizer` block, checked by @canopy/summarizer (see loadSummarizers). */
  summarizer?: unknown;
}

/** Validates the parsed config file, naming the first bad key. */
export function checkConfigFile(value: unknown): ConfigFile {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${CONFIG_FILE_NAME} must hold a JSON object`);
  const record = value as Record<string, unknown>;
  const config: ConfigFile = {};
  const stringList = (key: string): string[] | undefined => {
    const list = record[key];
    if (list === undefined) return undefined;
    if (!Array.isArray(list) || !list.every((item) => typeof item === 'string'))
      throw new Error(`${CONFIG_FILE_NAME}: "${key}" must be a list of strings`);
    return list as string[];
  };
  config.roots = stringList('roots');
  config.extensions = stringList('extensions');
  if (record.port !== undefined) {
    if (
      typeof record.port !== 'number' ||
      !Number.isInteger(record.port) ||
      record.port < 0 ||
      record.port > 65535
    )
      throw new Error(`${CONFIG_FILE_NAME}: "port" must be an integer 0–65535`);
    config.port = record.port;
  }
  if (record.host !== undefined) {
    if (typeof record.host !== 'string' || record.host.trim() === '')
      throw new Error(`${CONFIG_FILE_NAME}: "host" must be a non-empty string`);
    config.host = record.host.trim();
  }
  if (record.summarizer !== undefined) config.summarizer = record.summarizer;
  return config;
}

/** Expands a leading `~` and makes the path absolute (relative to `base`). */
export function expandPath(input: string, base: string, home = os.homedir()): string {
  if (input === '~') return home;
  if (input.startsWith('~/')) return path.join(home, input.slice(2));
  return path.resolve(base, input);
}

export interface LoadedSummarizers {
  summarizers: Summarizer[];
  defaultId: string;
  /** Configuration problems, one sentence each; the summariser in question is not offered. */
  problems: string[];
  /** The keys of the configuration (never shown or logged). */
  secrets: string[];
}

/** The API keys written in the `summarizer` block or CANOPY_SUMMARY_API_KEY. */
function configSecrets(config: ConfigFile, env: NodeJS.ProcessEnv): string[] {
  const block = config.summarizer as { llm?: unknown } | undefined;
  const llms = block?.llm === undefined ? [] : Array.isArray(block.llm) ? block.llm : [block.llm];
  const keys = llms.flatMap((llm: unknown) => {
    const { apiKey, baseUrl } = (llm ?? {}) as { apiKey?: unknown; baseUrl?: unknown };
    return [
      ...(typeof apiKey === 'string' && apiKey.trim() !== '' ? [apiKey.trim()] : []),
      ...(typeof baseUrl === 'string' ? urlSecrets(baseUrl) : []),
    ];
  });
  if (env.CANOPY_SUMMARY_API_KEY) keys.push(env.CANOPY_SUMMARY_API_KEY.trim());
  if (env.CANOPY_SUMMARY_BASE_URL) keys.push(...urlSecrets(env.CANOPY_SUMMARY_BASE_URL));
  return keys;
}

/**
 * The summarisers to offer: the offline one (always), the LLM ones of the config file's
 * `summarizer` block and the CANOPY_SUMMARY_* variables. CANOPY_TEST_SUMMARIZER=hold adds one that
 * never finishes until aborted, for the end-to-end tests of aborting; nothing else enables it.
 */
export async function loadSummarizers(
  config: ConfigFile,
  env: NodeJS.ProcessEnv = process.env,
): Promise<LoadedSummarizers> {
  const { available, defaultId, problems } = await summarizersFromConfig(
    { summarizer: config.summarizer },
    env,
  );
  const summarizers = [...available];
  if (env.CANOPY_TEST_SUMMARIZER === 'hold') summarizers.push(createHoldSummarizer());
  return { summarizers, defaultId, problems, secrets: configSecrets(config, env) };
}
