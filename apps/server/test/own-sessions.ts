// Test sessions written by session-core in the test itself (no fixture folder needed), and an app
// booted over them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemoryStorage, SessionManager } from '@canopy/session-core';
import type { FastifyInstance } from 'fastify';
import type { AppOptions } from '../src/app';
import { buildTestApp } from './helpers';

export interface OwnSession {
  text: string;
  /** Entry ids in file order. */
  ids: string[];
}

/** A v3 session with `turns` user/assistant exchanges, written by session-core. */
export function makeSession(turns = 2): OwnSession {
  const storage = new MemoryStorage();
  const sm = SessionManager.inMemory('/work/project', { storage });
  const ids: string[] = [];
  for (let i = 0; i < turns; i++) {
    ids.push(
      sm.appendMessage({ role: 'user', content: [{ type: 'text', text: `question ${i}` }], timestamp: 1 }),
    );
    ids.push(
      sm.appendMessage({
        role: 'assistant',
        content: [{ type: 'text', text: `answer ${i}` }],
        timestamp: 2,
      } as never),
    );
  }
  return { text: storage.read(), ids };
}

export interface OwnEnv {
  dir: string;
  root: string;
  stateDir: string;
  app: FastifyInstance;
  file(name: string): string;
  close(): Promise<void>;
}

/** Writes `sessions` (file name → text) into a fresh root and boots the app over it. */
export async function setupOwn(
  sessions: Record<string, string>,
  options: Partial<AppOptions> = {},
): Promise<OwnEnv> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-own-')));
  const root = path.join(dir, 'sessions');
  const stateDir = path.join(dir, 'state');
  fs.mkdirSync(root, { recursive: true });
  for (const [name, text] of Object.entries(sessions)) fs.writeFileSync(path.join(root, name), text);
  const app = await buildTestApp(dir, root, stateDir, options);
  return {
    dir,
    root,
    stateDir,
    app,
    file: (name) => path.join(root, name),
    async close() {
      await app.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
