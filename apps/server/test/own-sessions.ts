// Test sessions written by session-core in the test itself (no fixture folder needed), and an app
// booted over them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemoryStorage, SessionManager } from '@canopy/session-core';
import type { FastifyInstance } from 'fastify';
import type { AppOptions } from '../src/app';
import { AUTH, buildTestApp } from './helpers';

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

/**
 * A new folder of `count` two-line sessions (header, one user message `m<k>`), file k modified k
 * minutes after the epoch, so the last is the newest. The caller removes the folder.
 */
export function smallSessionsFolder(count: number): { folder: string; files: string[] } {
  const stamp = '2025-01-01T00:00:00.000Z';
  const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-small-sessions-')));
  const files: string[] = [];
  for (let k = 0; k < count; k++) {
    const file = path.join(folder, `s${String(k).padStart(3, '0')}.jsonl`);
    const header = { type: 'session', version: 3, id: `h${k}`, timestamp: stamp, cwd: '/w' };
    const entry = {
      type: 'message',
      id: 'a',
      parentId: null,
      timestamp: stamp,
      message: { role: 'user', content: `m${k}` },
    };
    fs.writeFileSync(file, `${JSON.stringify(header)}\n${JSON.stringify(entry)}\n`);
    fs.utimesSync(file, 60 * (k + 1), 60 * (k + 1));
    files.push(file);
  }
  return { folder, files };
}

/** Appends a user message to the session through the API, as the composer does. */
export function sendMessage(env: OwnEnv, id: string, text: string) {
  return env.app.inject({
    method: 'POST',
    url: `/api/sessions/${id}/messages`,
    headers: AUTH,
    payload: { text },
  });
}
