import { describe, expect, it } from 'vitest';
import { getSessionVersion, isKnownSessionVersion, migrateSessionEntries } from './migrate';
import type { FileLine } from './types';

type Loose = Record<string, unknown>;

function lines(...values: Loose[]): FileLine[] {
  return values as unknown as FileLine[];
}

const v1Header = (): Loose => ({
  type: 'session',
  id: 'sess',
  timestamp: '2025-12-09T00:00:00.000Z',
  cwd: '/w',
});
const user = (text: string): Loose => ({
  type: 'message',
  timestamp: '2025-12-09T00:00:01.000Z',
  message: { role: 'user', content: text, timestamp: 1 },
});

describe('migrateSessionEntries (docs/reference-tests.md#migration)', () => {
  it('adds 8-character ids and a linear parent chain to v1 entries and stamps version 3', () => {
    const file = lines(v1Header(), user('hi'), {
      type: 'message',
      timestamp: '2025-12-09T00:00:02.000Z',
      message: { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
    });
    expect(migrateSessionEntries(file)).toBe(true);
    const [header, first, second] = file as unknown as Loose[];
    expect(header?.version).toBe(3);
    expect(first?.id).toMatch(/^[0-9a-f]{8}$/);
    expect(second?.id).toMatch(/^[0-9a-f]{8}$/);
    expect(first?.parentId).toBeNull();
    expect(second?.parentId).toBe(first?.id);
  });

  it('leaves the ids and parents of a v2 file unchanged (only the v2→v3 step runs)', () => {
    const file = lines(
      { type: 'session', version: 2, id: 'sess', timestamp: 't', cwd: '/' },
      {
        type: 'message',
        id: 'abc12345',
        parentId: null,
        timestamp: 't',
        message: { role: 'user', content: 'a' },
      },
      {
        type: 'message',
        id: 'def67890',
        parentId: 'abc12345',
        timestamp: 't',
        message: { role: 'user', content: 'b' },
      },
    );
    expect(migrateSessionEntries(file)).toBe(true);
    expect(file.map((line) => [line.id, (line as Loose).parentId])).toEqual([
      ['sess', undefined],
      ['abc12345', null],
      ['def67890', 'abc12345'],
    ]);
    expect((file[0] as Loose).version).toBe(3);
  });

  it('turns a v1 compaction line index (header at 0) into the id of that line and deletes the index', () => {
    const file = lines(v1Header(), user('zero'), user('one'), user('two'), {
      type: 'compaction',
      timestamp: 't',
      summary: 's',
      firstKeptEntryIndex: 2,
      tokensBefore: 10,
    });
    migrateSessionEntries(file);
    const compaction = file[4] as Loose;
    expect(compaction.firstKeptEntryId).toBe(file[2]?.id);
    expect('firstKeptEntryIndex' in compaction).toBe(false);
  });

  it('leaves firstKeptEntryId unset when the index points at the header or forward', () => {
    const atHeader = {
      type: 'compaction',
      timestamp: 't',
      summary: 's',
      firstKeptEntryIndex: 0,
      tokensBefore: 1,
    };
    const forward = {
      type: 'compaction',
      timestamp: 't',
      summary: 's',
      firstKeptEntryIndex: 4,
      tokensBefore: 1,
    };
    const file = lines(v1Header(), user('a'), atHeader, forward, user('later'));
    migrateSessionEntries(file);
    for (const compaction of [atHeader, forward] as Loose[]) {
      expect('firstKeptEntryId' in compaction).toBe(false);
      expect('firstKeptEntryIndex' in compaction).toBe(false);
    }
  });

  it('resolves the compaction index through the given line lookup', () => {
    const target = user('target');
    const compaction: Loose = {
      type: 'compaction',
      timestamp: 't',
      summary: 's',
      firstKeptEntryIndex: 7,
      tokensBefore: 1,
    };
    const file = lines(v1Header(), target, compaction);
    migrateSessionEntries(file, (index) => (index === 7 ? (target as unknown as FileLine) : undefined));
    expect(compaction.firstKeptEntryId).toBe(target.id);
  });

  it('renames the hookMessage role of a v2 message entry to custom and leaves other roles', () => {
    const hook = { role: 'hookMessage', customType: 'git', content: 'clean', display: true, timestamp: 1 };
    const other = { role: 'user', content: 'x', timestamp: 1 };
    const file = lines(
      { type: 'session', version: 2, id: 's', timestamp: 't', cwd: '/' },
      { type: 'message', id: 'a', parentId: null, timestamp: 't', message: hook },
      { type: 'message', id: 'b', parentId: 'a', timestamp: 't', message: other },
    );
    migrateSessionEntries(file);
    expect(hook.role).toBe('custom');
    expect(other.role).toBe('user');
  });

  it('does nothing to a v3 file or a newer one, and says so', () => {
    const hook = { role: 'hookMessage', content: 'x' };
    const current = lines(
      { type: 'session', version: 3, id: 's' },
      { type: 'message', id: 'a', message: hook },
    );
    const newer = lines({ type: 'session', version: 4, id: 's' }, { type: 'message', message: hook });
    expect(migrateSessionEntries(current)).toBe(false);
    expect(migrateSessionEntries(newer)).toBe(false);
    expect(hook.role).toBe('hookMessage');
    expect((newer[0] as Loose).version).toBe(4);
    expect('id' in (newer[1] as Loose)).toBe(false);
  });

  it('gives every entry of a large v1 file a distinct id', () => {
    const file = lines(v1Header(), ...Array.from({ length: 20000 }, (_, i) => user(String(i))));
    migrateSessionEntries(file);
    expect(new Set(file.slice(1).map((line) => line.id)).size).toBe(20000);
  });
});

describe('getSessionVersion', () => {
  it('reads a missing version (or header) as 1 and coerces a numeric string like the reference', () => {
    expect(getSessionVersion(undefined)).toBe(1);
    expect(getSessionVersion({})).toBe(1);
    expect(getSessionVersion({ version: 2 })).toBe(2);
    expect(getSessionVersion({ version: '3' as unknown as number })).toBe(3);
    expect(getSessionVersion({ version: 'new' as unknown as number })).toBe(1);
  });
});

describe('isKnownSessionVersion', () => {
  it('knows an absent version (v1) and the whole numbers 1 to 3, nothing else', () => {
    for (const version of [undefined, 1, 2, 3])
      expect(isKnownSessionVersion({ version }), String(version)).toBe(true);
    expect(isKnownSessionVersion(undefined)).toBe(true);
    for (const version of [{ major: 4 }, '3', 3.5, 0, -1, 4, null, true, Number.NaN]) {
      expect(isKnownSessionVersion({ version: version as number }), JSON.stringify(version)).toBe(false);
    }
  });
});
