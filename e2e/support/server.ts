// Starts the real Canopy server (the built bundle) over temporary copies of session files,
// the way a user runs it, and stops it again. Each test gets its own folders and port.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, '..', '..');
export const serverBundle = join(repoRoot, 'apps', 'server', 'dist', 'canopy.mjs');
export const sharedFixturesDir = resolve(repoRoot, '..', 'shared', 'fixtures', 'sessions');

export const webDist = join(repoRoot, 'apps', 'web', 'dist');

let webDistCopy: string | undefined;

/**
 * The built web app, copied once per test process: the server serves the copy, so a rebuild of
 * apps/web while the suite runs (it empties dist/ first) cannot turn a page load into a 404.
 */
function snapshotWebDist(): string {
  if (webDistCopy) return webDistCopy;
  if (!existsSync(join(webDist, 'index.html')))
    throw new Error(`the web app is not built: ${webDist} is missing`);
  const copy = mkdtempSync(join(tmpdir(), 'canopy-e2e-web-'));
  cpSync(webDist, copy, { recursive: true });
  process.once('exit', () => rmSync(copy, { recursive: true, force: true }));
  webDistCopy = copy;
  return copy;
}

export function hasSharedFixtures(): boolean {
  return existsSync(sharedFixturesDir);
}

export interface RunningCanopy {
  url: string;
  origin: string;
  token: string;
  /** The server process (the benchmark reads its memory from /proc). */
  pid: () => number | undefined;
  sessionsDir: string;
  stateDir: string;
  output: () => string;
  stop: () => Promise<void>;
  restart: () => Promise<void>;
}

export interface StartOptions {
  /** Fixture file names copied from ../shared/fixtures/sessions. */
  fixtures?: string[];
  /** Extra arguments for the server. */
  args?: string[];
  /** Reuse a port (for restart tests). */
  port?: number;
  /** Runs after the fixtures are copied and before the server starts (to write generated sessions). */
  prepare?: (sessionsDir: string) => void;
  /** How long to wait for the URL (default 20 s; indexing a 1 GB session at startup takes longer). */
  readyTimeoutMs?: number;
  /** Arguments for node itself, before the bundle (the benchmark's `--cpu-prof`). */
  nodeArgs?: string[];
}

export function copyFixtures(names: string[], into: string): void {
  for (const name of names) cpSync(join(sharedFixturesDir, name), join(into, name));
}

function launch(sessionsDir: string, stateDir: string, port: number, options: StartOptions) {
  const readyTimeoutMs = options.readyTimeoutMs ?? 20_000;
  const argv = [...(options.nodeArgs ?? []), serverBundle, sessionsDir, '--port', String(port)];
  const child = spawn(process.execPath, [...argv, ...(options.args ?? [])], {
    env: { ...process.env, CANOPY_STATE_DIR: stateDir, HOME: stateDir, CANOPY_WEB_DIST: snapshotWebDist() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<string>((resolveUrl, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /(http:\/\/[^\s]+\?token=[A-Za-z0-9_-]+)/.exec(output);
      if (match?.[1]) resolveUrl(match[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`canopy exited with ${code} before it was ready:\n${output}`)),
    );
    setTimeout(
      () => reject(new Error(`canopy did not print its URL within ${readyTimeoutMs / 1000} s:\n${output}`)),
      readyTimeoutMs,
    ).unref();
  });
  return { child, ready, output: () => output };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolveStop();
    });
    child.kill('SIGTERM');
  });
}

export async function startCanopy(options: StartOptions = {}): Promise<RunningCanopy> {
  if (!existsSync(serverBundle)) throw new Error(`the server is not built: ${serverBundle} is missing`);
  const base = mkdtempSync(join(tmpdir(), 'canopy-e2e-'));
  const sessionsDir = join(base, 'sessions');
  const stateDir = join(base, 'state');
  mkdirSync(sessionsDir, { recursive: true });
  mkdirSync(stateDir, { recursive: true });
  copyFixtures(options.fixtures ?? [], sessionsDir);
  options.prepare?.(sessionsDir);
  const port = options.port ?? 0;
  let current = launch(sessionsDir, stateDir, port, options);
  let url = await current.ready;
  const parsed = new URL(url);
  const fixedPort = Number(parsed.port);
  const running: RunningCanopy = {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get('token') ?? '',
    sessionsDir,
    stateDir,
    output: () => current.output(),
    pid: () => current.child.pid,
    stop: async () => {
      await stopChild(current.child);
    },
    restart: async () => {
      await stopChild(current.child);
      current = launch(sessionsDir, stateDir, fixedPort, options);
      url = await current.ready;
      running.url = url;
      running.token = new URL(url).searchParams.get('token') ?? '';
    },
  };
  return running;
}

export function cleanup(running: RunningCanopy | undefined): void {
  if (!running) return;
  const base = dirname(running.sessionsDir);
  if (base.includes('canopy-e2e-')) rmSync(base, { recursive: true, force: true });
}

export function listSessionFiles(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.jsonl'));
}
