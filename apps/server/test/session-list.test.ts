import fs from 'node:fs';
import path from 'node:path';
import type { SessionListChangedEvent, SessionListItem } from '@canopy/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type WebSocket from 'ws';
import type { SessionIndex } from '../src/list/session-index';
import { AUTH, getSnapshot, SEED_IDS, sessionIdOf, setup, type TestEnv, waitFor } from './helpers';

const SEED = 'seed-example.jsonl';
/** Longer than any test: the periodic fallback rescan never runs while one does. */
const NO_PERIODIC_RESCAN = { rescanMs: 2_000_000_000 };

function listEvents(ws: WebSocket): SessionListChangedEvent[] {
  const events: SessionListChangedEvent[] = [];
  ws.on('message', (data) => {
    const event = JSON.parse(String(data)) as { type: string };
    if (event.type === 'session_list_changed') events.push(event as SessionListChangedEvent);
  });
  return events;
}

async function listed(env: TestEnv): Promise<SessionListItem[]> {
  const response = await env.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH });
  return (response.json() as { sessions: SessionListItem[] }).sessions;
}

/** Spies on the index's ways of reading files: the full rescan and the reading of one file's bytes. */
function spyOnReads(index: SessionIndex) {
  const scan = vi.spyOn(index, 'scan');
  const readFrom = vi.spyOn(index as unknown as { readFrom: () => Promise<void> }, 'readFrom');
  return { scan, readFrom };
}

describe('the session list', () => {
  let env: TestEnv;
  afterEach(async () => {
    vi.restoreAllMocks();
    await env.close();
  });

  it("an open session's change publishes its own row, counted from what it read; no root is rescanned and the file is not read again", async () => {
    env = await setup([SEED], NO_PERIODIC_RESCAN);
    const id = await sessionIdOf(env.app, SEED);
    const before = (await getSnapshot(env.app, id)).session;
    const ws = await env.app.injectWS('/ws', { headers: AUTH });
    const events = listEvents(ws);
    const { scan, readFrom } = spyOnReads(env.app.canopy.store.index);

    const line = JSON.stringify({
      type: 'message',
      id: 'e0000001',
      parentId: SEED_IDS.milestoneLabel,
      timestamp: new Date().toISOString(),
      message: { role: 'user', content: [{ type: 'text', text: 'from elsewhere' }], timestamp: 0 },
    });
    fs.appendFileSync(env.file(SEED), `${line}\n`);
    const grown = await waitFor(() => events.find((event) => event.upserted[0]?.entryCount === 9));
    const stat = fs.statSync(env.file(SEED));
    expect(grown).toEqual({
      type: 'session_list_changed',
      upserted: [
        {
          ...before,
          entryCount: before.entryCount + 1,
          messageCount: before.messageCount + 1,
          size: stat.size,
          mtime: stat.mtimeMs,
          writerActive: true,
        },
      ],
      removed: [],
    });

    const written = await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/messages`,
      headers: AUTH,
      payload: { text: 'from Canopy' },
    });
    expect(written.statusCode).toBe(200);
    const afterWrite = await waitFor(() => events.find((event) => event.upserted[0]?.entryCount === 10));
    expect(afterWrite.upserted).toHaveLength(1);
    expect(afterWrite.upserted[0]).toMatchObject({ id, messageCount: before.messageCount + 2 });
    expect(afterWrite.upserted[0]!.size).toBe(fs.statSync(env.file(SEED)).size);
    // The list route says the same as the events.
    expect((await listed(env)).find((item) => item.id === id)).toMatchObject({
      entryCount: 10,
      size: fs.statSync(env.file(SEED)).size,
    });
    expect(scan).not.toHaveBeenCalled();
    expect(readFrom).not.toHaveBeenCalled();
    ws.terminate();
  });

  it('a file that is not open is listed when it appears, updated when it grows and removed when it goes, by looking at that file only', async () => {
    env = await setup([SEED], NO_PERIODIC_RESCAN);
    const ws = await env.app.injectWS('/ws', { headers: AUTH });
    const events = listEvents(ws);
    const { scan } = spyOnReads(env.app.canopy.store.index);
    const seedText = fs.readFileSync(env.file(SEED), 'utf8');
    const other = path.join(env.root, 'nested', 'other.jsonl');
    fs.mkdirSync(path.dirname(other));
    fs.writeFileSync(other, seedText);
    const appeared = await waitFor(() =>
      events.find((event) => event.upserted.some((item) => item.path === path.join('nested', 'other.jsonl'))),
    );
    const row = appeared.upserted.find((item) => item.path === path.join('nested', 'other.jsonl'))!;
    expect(row).toMatchObject({ entryCount: 8, size: Buffer.byteLength(seedText) });
    expect(appeared.upserted.map((item) => item.path)).toEqual([path.join('nested', 'other.jsonl')]);

    const line = JSON.stringify({
      type: 'custom',
      id: 'c0000001',
      parentId: SEED_IDS.milestoneLabel,
      timestamp: new Date().toISOString(),
      customType: 'x',
    });
    fs.appendFileSync(other, `${line}\n`);
    await waitFor(() =>
      events.find((event) => event.upserted.some((item) => item.id === row.id && item.entryCount === 9)),
    );

    fs.rmSync(other);
    const gone = await waitFor(() => events.find((event) => event.removed.includes(row.id)));
    expect(gone).toEqual({ type: 'session_list_changed', upserted: [], removed: [row.id] });
    expect((await listed(env)).map((item) => item.path)).toEqual([SEED]);
    expect(scan).not.toHaveBeenCalled();
    ws.terminate();
  });
});
