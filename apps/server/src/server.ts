// `canopy [paths…] [--port N] [--host H] [--extension M]…`: reads the config, builds the app,
// listens, prints the URL with its access token, and closes gracefully on SIGINT/SIGTERM.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from './app';
import { holdLoadFromEnv } from './test-hold-load';
import { fullCollection } from './memory';
import { printOutlines } from './outline';
import {
  agentSessionDirs,
  checkConfigFile,
  CONFIG_FILE_NAME,
  DEFAULT_HOST,
  DEFAULT_PORT,
  expandPath,
  idleCloseMsFromEnv,
  loadSummarizers,
  parseCli,
  resolveStateDir,
  USAGE,
  type ConfigFile,
} from './config';
import { createToken, isWellFormedToken } from './http/security';
import { warmUp } from './http/warm-up';
import { writeDemoSessions } from './files/demo';
import { startHashThread } from './live/running-hash';
import { ensureDirSync, ensurePrivateDirSync, isDirectory, pathExistsSync } from './files/files';
import { readJsonNoFollow, readOrCreateSecretSync } from './files/confined';

async function readConfig(stateDir: string): Promise<ConfigFile> {
  const file = path.join(stateDir, CONFIG_FILE_NAME);
  const raw = await readJsonNoFollow(file).catch((error: unknown) => {
    throw new Error(`${file}: ${(error as Error).message}`);
  });
  return raw === undefined ? {} : checkConfigFile(raw);
}

/** Where the bundled demo sessions go: inside the state folder, so they can be written to. */
function demoRoot(stateDir: string): string {
  const dir = path.join(stateDir, 'demo-sessions');
  if (!pathExistsSync(dir)) {
    ensureDirSync(dir);
    try {
      writeDemoSessions(dir);
    } catch (error) {
      process.stderr.write(`canopy: could not write the demo sessions: ${(error as Error).message}\n`);
    }
  }
  return dir;
}

function defaultWebDist(): string {
  // dist/canopy.mjs → ../../web/dist; src/server.ts (tsx) → ../../web/dist as well.
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.resolve(here, '..', '..', 'web', 'dist');
}

async function main(): Promise<void> {
  let cli;
  let idleCloseMs;
  try {
    cli = parseCli(process.argv.slice(2));
    idleCloseMs = idleCloseMsFromEnv();
  } catch (error) {
    process.stderr.write(`canopy: ${(error as Error).message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (cli.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const home = os.homedir();
  const stateDir = resolveStateDir();
  ensurePrivateDirSync(stateDir);
  const config = await readConfig(stateDir);

  let roots = cli.paths.map((p) => expandPath(p, process.cwd(), home));
  if (roots.length === 0 && config.roots) roots = config.roots.map((p) => expandPath(p, stateDir, home));
  if (roots.length === 0) {
    for (const dir of agentSessionDirs(home)) if (await isDirectory(dir)) roots.push(dir);
  }
  if (roots.length === 0) roots.push(demoRoot(stateDir));

  if (cli.outline) {
    await printOutlines(roots, (text) => process.stdout.write(text), {
      home,
      width: process.stdout.columns || undefined,
    });
    return;
  }

  const host = cli.host ?? config.host ?? DEFAULT_HOST;
  const port = cli.port ?? config.port ?? DEFAULT_PORT;
  const extensions = [
    ...(config.extensions ?? []).map((p) => expandPath(p, stateDir, home)),
    ...cli.extensions.map((p) => expandPath(p, process.cwd(), home)),
  ];
  // The token is random, made once and kept (owner-only) in the state folder, so a page left open
  // reconnects after a restart instead of being locked out by a token it never saw.
  const { summarizers, defaultId, problems, secrets } = await loadSummarizers(config);
  // Said here and in the settings dialog, where it applies, with the fix.
  for (const problem of problems) process.stderr.write(`canopy: summariser not offered: ${problem}\n`);
  const token = readOrCreateSecretSync(path.join(stateDir, 'token'), createToken, isWellFormedToken);
  const app = await buildApp({
    roots,
    rootWarning: (message) => process.stderr.write(`canopy: ${message}\n`),
    stateDir,
    token,
    host,
    port: port === 0 ? undefined : port,
    extensions,
    summarizers,
    defaultSummarizerId: defaultId,
    summarizerProblems: problems,
    summarizerSecrets: secrets,
    // Zero setup: the model pi (or oh-my-pi) uses, from their own configuration.
    agentHome: home,
    agentEnv: process.env,
    webDist: process.env.CANOPY_WEB_DIST ?? defaultWebDist(),
    logger: { level: process.env.CANOPY_LOG_LEVEL ?? 'warn' },
    home,
    idleCloseMs,
    awaitFirstScan: false,
    afterRelease: fullCollection(),
    ...holdLoadFromEnv(),
  });

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    process.stderr.write(`canopy: ${signal}, closing\n`);
    const force = setTimeout(() => process.exit(1), 5000);
    force.unref();
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  try {
    await app.listen({ host, port });
  } catch (error) {
    process.stderr.write(`canopy: cannot listen on ${host}:${port}: ${(error as Error).message}\n`);
    process.exit(1);
  }
  startHashThread();
  const address = app.server.address();
  const actualPort = address && typeof address === 'object' ? address.port : port;
  for (const { path: route, status } of await warmUp(app, token, `127.0.0.1:${actualPort}`)) {
    if (status >= 400) process.stderr.write(`canopy: warm-up request ${route} answered ${status}\n`);
  }
  const shownHost =
    host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  process.stdout.write(`Canopy is running at http://${shownHost}:${actualPort}/?token=${token}\n`);
  // The folders actually read: a given path that does not exist was left out, and said so above.
  const listed = app.canopy.store.index.roots.map((root) => root.path);
  process.stdout.write(`Sessions from: ${listed.length > 0 ? listed.join(', ') : 'nowhere'}\n`);
}

void main();
