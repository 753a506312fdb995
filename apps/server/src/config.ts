import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { summarizersFromConfig, type Summarizer } from '@canopy/summarizer';
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

  paths          session folders or files to show (default: ~/.pi/agent/sessions and
                 ~/.omp/agent/sessions when they exist, else bundled demo sessions)
  --port N       port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)
  --host H       address to listen on (default ${DEFAULT_HOST})
  --extension M  load a server extension module (repeatable)
  --outline      print the tree of each session in the terminal (the rows the outline view
                 shows, active path first) and exit

Environment: CANOPY_STATE_DIR (state folder), XDG_STATE_HOME; CANOPY_SUMMARY_PROVIDER,
CANOPY_SUMMARY_MODEL, CANOPY_SUMMARY_API_KEY, CANOPY_SUMMARY_BASE_URL (an LLM summariser).`;

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
export function resolveStateDir(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  if (env.CANOPY_STATE_DIR) return path.resolve(env.CANOPY_STATE_DIR);
  if (env.XDG_STATE_HOME) return path.resolve(env.XDG_STATE_HOME, 'canopy');
  return path.join(home, '.local', 'state', 'canopy');
}

/** The session folders of pi and oh-my-pi, in that order. */
export function agentSessionDirs(home = os.homedir()): string[] {
  return [path.join(home, '.pi', 'agent', 'sessions'), path.join(home, '.omp', 'agent', 'sessions')];
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
}

/**
 * The summarisers to offer: the offline one (always), the LLM ones of the config file's
 * `summarizer` block and the CANOPY_SUMMARY_* variables. CANOPY_TEST_SUMMARIZER=hold adds one that
 * never finishes until aborted, for the end-to-end tests of aborting; nothing else enables it.
 */
export function loadSummarizers(config: ConfigFile, env: NodeJS.ProcessEnv = process.env): LoadedSummarizers {
  const { available, defaultId, problems } = summarizersFromConfig({ summarizer: config.summarizer }, env);
  const summarizers = [...available];
  if (env.CANOPY_TEST_SUMMARIZER === 'hold') summarizers.push(createHoldSummarizer());
  return { summarizers, defaultId, problems };
}
