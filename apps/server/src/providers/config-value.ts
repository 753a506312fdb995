// pi's configuration values (auth.json keys, models.json `apiKey` and `headers`), resolved as pi 1.6
// resolves them: `!command` runs the command and takes its output; otherwise `$NAME` / `${NAME}`
// are replaced by environment variables (`$$` is a literal `$`, `$!` a literal `!`), and the rest is
// literal. A command runs only when a request needs the value, never at start-up or for a listing.
import { execFile } from 'node:child_process';

type Part = { type: 'literal'; value: string } | { type: 'env'; name: string };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

function parseTemplate(config: string): Part[] {
  const parts: Part[] = [];
  const literal = (value: string) => {
    if (!value) return;
    const last = parts.at(-1);
    if (last?.type === 'literal') last.value += value;
    else parts.push({ type: 'literal', value });
  };
  let index = 0;
  while (index < config.length) {
    const dollar = config.indexOf('$', index);
    if (dollar < 0) {
      literal(config.slice(index));
      break;
    }
    literal(config.slice(index, dollar));
    const next = config[dollar + 1];
    if (next === '$' || next === '!') {
      literal(next);
      index = dollar + 2;
    } else if (next === '{') {
      const end = config.indexOf('}', dollar + 2);
      const name = end < 0 ? '' : config.slice(dollar + 2, end);
      if (end >= 0 && NAME.test(name) && NAME.exec(name)?.[0] === name) {
        parts.push({ type: 'env', name });
        index = end + 1;
      } else if (end >= 0) {
        literal(config.slice(dollar, end + 1));
        index = end + 1;
      } else {
        literal('$');
        index = dollar + 1;
      }
    } else {
      const match = NAME.exec(config.slice(dollar + 1));
      if (match) {
        parts.push({ type: 'env', name: match[0] });
        index = dollar + 1 + match[0].length;
      } else {
        literal('$');
        index = dollar + 1;
      }
    }
  }
  return parts;
}

export function isCommandValue(config: string): boolean {
  return config.startsWith('!');
}

/** The variables a value reads (none for a command). */
export function envNamesOf(config: string): string[] {
  if (isCommandValue(config)) return [];
  return [...new Set(parseTemplate(config).flatMap((part) => (part.type === 'env' ? [part.name] : [])))];
}

/** A template value now, or undefined when a variable it names is unset (commands: see resolveValue). */
export function resolveTemplate(
  config: string,
  env: NodeJS.ProcessEnv,
  extra?: Record<string, string>,
): string | undefined {
  let resolved = '';
  for (const part of parseTemplate(config)) {
    if (part.type === 'literal') resolved += part.value;
    else {
      const value = extra?.[part.name] || env[part.name];
      if (!value) return undefined;
      resolved += value;
    }
  }
  return resolved;
}

/** How long pi lets a key command run. */
const COMMAND_TIMEOUT_MS = 10_000;

/** A value, running its command when it is one (pi: the output, trimmed; nothing on failure). */
export async function resolveValue(
  config: string,
  env: NodeJS.ProcessEnv,
  extra?: Record<string, string>,
): Promise<string | undefined> {
  if (!isCommandValue(config)) return resolveTemplate(config, env, extra);
  return new Promise((resolve) => {
    execFile(
      '/bin/sh',
      ['-c', config.slice(1)],
      { timeout: COMMAND_TIMEOUT_MS, env, maxBuffer: 64 * 1024 },
      (error, stdout) => resolve(error ? undefined : String(stdout).trim() || undefined),
    );
  });
}

/** Says where a value comes from without showing it: "$OPENAI_API_KEY", "a command", "a literal key". */
export function describeValue(config: string): string {
  if (isCommandValue(config)) return 'the output of a command';
  const names = envNamesOf(config);
  return names.length > 0 ? names.map((name) => `$${name}`).join(', ') : 'a key written in the file';
}
