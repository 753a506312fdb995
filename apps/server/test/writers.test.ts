// Canopy writing beside a real second process: with a whole-line writer nothing is ever lost or
// torn; with a writer that splits its lines, every line Canopy acknowledged is intact in the file.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { AUTH } from './helpers';
import { makeSession, setupOwn, type OwnEnv } from './own-sessions';

/**
 * Starts a process appending `count` message lines chained from `parentId`, each line in one
 * write() (`split` false) or in two write()s with a pause between them (`split` true).
 */
function agent(file: string, parentId: string, count: number, split: boolean): Promise<void> {
  const script = `
    const fs = require('node:fs');
    const [file, parent, count, split] = [process.argv[1], process.argv[2], Number(process.argv[3]), process.argv[4] === 'true'];
    const fd = fs.openSync(file, 'a');
    let previous = parent;
    let i = 0;
    const next = () => {
      if (i >= count) return fs.closeSync(fd);
      const id = 'ag' + String(i).padStart(6, '0');
      const line = JSON.stringify({ type: 'message', id, parentId: previous, timestamp: new Date().toISOString(),
        message: { role: 'user', content: [{ type: 'text', text: 'agent line ' + i }], timestamp: 1 } }) + '\\n';
      previous = id;
      i++;
      if (!split) {
        fs.writeSync(fd, line);
        return setImmediate(next);
      }
      const cut = Math.floor(line.length / 2);
      fs.writeSync(fd, line.slice(0, cut));
      setTimeout(() => { fs.writeSync(fd, line.slice(cut)); setImmediate(next); }, 1);
    };
    next();
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, file, parentId, String(count), String(split)], {
      stdio: 'inherit',
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`agent exited with ${code}`))));
  });
}

interface Outcome {
  acknowledged: string[];
  refused: string[];
}

/** Labels and messages, one after another, until `done` settles. */
async function writeUntil(env: OwnEnv, id: string, target: string, done: Promise<void>): Promise<Outcome> {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  const outcome: Outcome = { acknowledged: [], refused: [] };
  for (let i = 0; !finished || i < 5; i++) {
    const response =
      i % 2 === 0
        ? await env.app.inject({
            method: 'PUT',
            url: `/api/sessions/${id}/labels/${target}`,
            headers: AUTH,
            payload: { label: `l${i}` },
          })
        : await env.app.inject({
            method: 'POST',
            url: `/api/sessions/${id}/messages`,
            headers: AUTH,
            payload: { text: `canopy ${i}` },
          });
    const body = response.json() as { labelEntryId?: string; entryId?: string; error?: { code: string } };
    if (response.statusCode === 200) outcome.acknowledged.push((body.labelEntryId ?? body.entryId)!);
    else outcome.refused.push(body.error?.code ?? String(response.statusCode));
  }
  await done;
  return outcome;
}

function linesOf(file: string): Array<{ ok: boolean; id?: string }> {
  return fs
    .readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => {
      try {
        return { ok: true, id: (JSON.parse(line) as { id?: string }).id };
      } catch {
        return { ok: false };
      }
    });
}

describe('writing beside another process', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  it('with a whole-line writer: every line of both writers is whole, none lost, every acknowledged entry present', async () => {
    const session = makeSession();
    env = await setupOwn({ 'a.jsonl': session.text }, { quietWindowMs: 0, midWriteWaitMs: 200 });
    const list = (await env.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH })).json() as {
      sessions: Array<{ id: string }>;
    };
    const id = list.sessions[0]!.id;
    const file = env.file('a.jsonl');
    const outcome = await writeUntil(env, id, session.ids[0]!, agent(file, session.ids.at(-1)!, 600, false));
    const lines = linesOf(file);
    expect(lines.every((line) => line.ok)).toBe(true);
    const ids = lines.map((line) => line.id);
    expect(ids.filter((lineId) => lineId?.startsWith('ag'))).toHaveLength(600);
    for (const acknowledged of outcome.acknowledged) expect(ids).toContain(acknowledged);
    expect(lines.length).toBe(session.text.trimEnd().split('\n').length + 600 + outcome.acknowledged.length);
    expect(outcome.acknowledged.length).toBeGreaterThan(0);
    for (const code of outcome.refused) expect(code).toMatch(/^(FILE_CHANGED|FILE_BUSY|FILE_MID_WRITE)$/);
  });

  it('with a writer that splits its lines: no acknowledged line is damaged; a tear is never silent', async () => {
    const session = makeSession();
    env = await setupOwn({ 'a.jsonl': session.text }, { quietWindowMs: 20, midWriteWaitMs: 200 });
    const list = (await env.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH })).json() as {
      sessions: Array<{ id: string }>;
    };
    const id = list.sessions[0]!.id;
    const file = env.file('a.jsonl');
    const outcome = await writeUntil(env, id, session.ids[0]!, agent(file, session.ids.at(-1)!, 300, true));
    const lines = linesOf(file);
    const whole = new Set(lines.filter((line) => line.ok).map((line) => line.id));
    for (const acknowledged of outcome.acknowledged) expect(whole.has(acknowledged)).toBe(true);
    const damaged = lines.filter((line) => !line.ok).length;
    // A tear damages two lines (the other writer's first half glued to ours, then its second
    // half), and each tear was answered FILE_TORN.
    expect(damaged).toBeLessThanOrEqual(2 * outcome.refused.filter((code) => code === 'FILE_TORN').length);
    for (const code of outcome.refused) {
      expect(code).toMatch(/^(FILE_CHANGED|FILE_BUSY|FILE_MID_WRITE|FILE_TORN)$/);
    }
  });
});
