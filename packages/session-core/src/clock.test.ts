// SessionManager's `now` option: every timestamp it writes (headers of new sessions, appended entries,
// recreated label entries) comes from the injected clock, so generators get fixed timestamps without
// replacing the global Date.
import { describe, expect, it } from 'vitest';
import { MemoryStorage, MemoryStorageProvider } from './storage';
import { SessionManager } from './session-manager';
import { assistantMsg, userMsg } from '../test/messages';

/** A clock that moves one second each time it is read. */
function steppingClock(startIso: string): () => number {
  let current = Date.parse(startIso) - 1000;
  return () => (current += 1000);
}

describe('SessionManager now option', () => {
  it('stamps the header and every appended entry of an in-memory session from the injected clock', () => {
    const session = SessionManager.inMemory('/w', { now: steppingClock('2030-05-01T10:00:00.000Z') });
    const u = session.appendMessage(userMsg('hello'));
    session.appendMessage(assistantMsg('hi'));
    session.appendLabelChange(u, 'start');
    session.branchWithSummary(u, 'summary');
    expect(session.getHeader()?.timestamp).toBe('2030-05-01T10:00:00.000Z');
    expect(session.getEntries().map((entry) => entry.timestamp)).toEqual([
      '2030-05-01T10:00:01.000Z',
      '2030-05-01T10:00:02.000Z',
      '2030-05-01T10:00:03.000Z',
      '2030-05-01T10:00:04.000Z',
    ]);
  });

  it('stamps the header of a branched session and of a loaded empty file from the injected clock', () => {
    const source = SessionManager.inMemory('/w');
    source.appendMessage(userMsg('hello'));
    const a = source.appendMessage(assistantMsg('hi'));
    const provider = new MemoryStorageProvider('dir');
    const loaded = SessionManager.fromStorage(new MemoryStorage(source.toJsonl(), 'dir/a.jsonl'), {
      storageProvider: provider,
      now: () => Date.parse('2030-06-01T00:00:00.000Z'),
    });
    expect(loaded.createBranchedSession(a)).toBe(
      'dir/2030-06-01T00-00-00-000Z_' + loaded.getSessionId() + '.jsonl',
    );
    expect(loaded.getHeader()?.timestamp).toBe('2030-06-01T00:00:00.000Z');

    const empty = SessionManager.fromJsonl('', { now: steppingClock('2031-01-01T00:00:00.000Z') });
    expect(empty.getHeader()?.timestamp).toBe('2031-01-01T00:00:00.000Z');
  });
});
