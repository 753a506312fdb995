import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../src/app';

const here = path.dirname(fileURLToPath(import.meta.url));
/** `<repo>/../shared/fixtures/sessions`. */
export const FIXTURES_DIR = path.resolve(here, '..', '..', '..', '..', 'shared', 'fixtures', 'sessions');
export const HAVE_FIXTURES = fs.existsSync(FIXTURES_DIR);
export const SKIP_REASON = `fixtures not found at ${FIXTURES_DIR}; server tests skipped`;
if (!HAVE_FIXTURES) console.warn(SKIP_REASON);

export const TOKEN = 'test-token-0123456789';
export const PORT = 4999;
export const HOST = `127.0.0.1:${PORT}`;
export const AUTH = { host: HOST, authorization: `Bearer ${TOKEN}` };

export interface TestEnv {
  dir: string;
  root: string;
  stateDir: string;
  app: FastifyInstance;
  /** Boots a new app over the same folders (after closing the old one). */
  restart(options?: Partial<AppOptions>, whileStopped?: () => void): Promise<FastifyInstance>;
  close(): Promise<void>;
  file(name: string): string;
}

/** Copies the named fixtures into a fresh temp root and boots the app over it. */
export async function setup(fixtures: string[], options: Partial<AppOptions> = {}): Promise<TestEnv> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-server-'));
  const root = path.join(dir, 'sessions');
  const stateDir = path.join(dir, 'state');
  fs.mkdirSync(root, { recursive: true });
  for (const name of fixtures) {
    fs.copyFileSync(path.join(FIXTURES_DIR, name), path.join(root, name));
    fs.chmodSync(path.join(root, name), 0o644);
  }
  const make = (extra: Partial<AppOptions>) =>
    buildApp({
      roots: [root],
      stateDir,
      token: TOKEN,
      port: PORT,
      pollMs: 50,
      rescanMs: 200,
      midWriteWaitMs: 300,
      home: dir,
      ...options,
      ...extra,
    });
  const env: TestEnv = {
    dir,
    root,
    stateDir,
    app: await make({}),
    async restart(extra = {}, whileStopped) {
      await env.app.close();
      whileStopped?.();
      env.app = await make(extra);
      return env.app;
    },
    async close() {
      await env.app.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
    file: (name) => path.join(root, name),
  };
  return env;
}

/** The opaque id of a session by file name, from the list route. */
export async function sessionIdOf(app: FastifyInstance, fileName: string): Promise<string> {
  const response = await app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH });
  const body = response.json() as { sessions: Array<{ id: string; path: string }> };
  const found = body.sessions.find((session) => session.path === fileName);
  if (!found) throw new Error(`session ${fileName} not listed: ${response.body}`);
  return found.id;
}

export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
