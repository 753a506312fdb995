import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ServerEvent, SessionListChangedEvent } from '@canopy/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../src/session-store';
import { StateStore } from '../src/files/state';
import { smallSessionsFolder } from './own-sessions';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function sessionsFolder(count: number): string {
  const { folder } = smallSessionsFolder(count);
  cleanups.push(() => fs.rmSync(folder, { recursive: true, force: true }));
  return folder;
}

async function storeOver(folder: string) {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-first-scan-state-'));
  const state = new StateStore(stateDir, () => undefined);
  await state.load();
  const events: ServerEvent[] = [];
  const store = new SessionStore({
    roots: [{ name: 'r', path: folder }],
    state,
    home: os.homedir(),
    publish: (event) => events.push(event),
    hasSubscribers: () => false,
    rescanMs: 2_000_000_000,
  });
  cleanups.push(async () => {
    await store.close();
    state.close();
    fs.rmSync(stateDir, { recursive: true, force: true });
  });
  return { store, events };
}

describe('the first reading of the session folders (the server listens before it ends)', () => {
  it('says the list is not whole until it ends, publishes rows with its progress, and ends with listing: null', async () => {
    const { store, events } = await storeOver(sessionsFolder(70));
    store.start();
    expect(store.listing()).toEqual({ read: 0, total: 0 });
    await store.firstScan;
    expect(store.listing()).toBeUndefined();
    const listEvents = events.filter((e): e is SessionListChangedEvent => e.type === 'session_list_changed');
    expect(listEvents.length).toBeGreaterThanOrEqual(2);
    const last = listEvents.at(-1)!;
    expect(last.listing).toBeNull();
    for (const event of listEvents.slice(0, -1)) expect(event.listing).toMatchObject({ total: 70 });
    const published = listEvents.flatMap((e) => e.upserted.map((item) => item.firstMessage));
    expect(published).toEqual(Array.from({ length: 70 }, (_, k) => `m${69 - k}`));
    expect(store.list()).toHaveLength(70);
  });

  it('opens a session the reading has found but not read yet, and lists it with the open row', async () => {
    const folder = sessionsFolder(40);
    const { store } = await storeOver(folder);
    store.start();
    await store.index.whenFound();
    const oldest = store.index.getByFile(path.join(folder, 's000.jsonl'))!;
    expect(oldest.pending).toBe(true);
    const session = await store.open(oldest.id);
    expect(session.sm.getEntries()).toHaveLength(1);
    await store.firstScan;
    expect(store.list().find((item) => item.id === oldest.id)).toMatchObject({
      firstMessage: 'm0',
      entryCount: 1,
    });
    expect(store.list()).toHaveLength(40);
  });
});
