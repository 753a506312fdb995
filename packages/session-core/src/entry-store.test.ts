// A session that keeps only its index (`retain: 'index'`): what it keeps, that it shows exactly what a
// session keeping every entry shows, how it reads entries back, and how it fails when the file under
// it changed. One file: every part exercises the same mode on the same small session (TEXT).
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readFixtureCopy, removeFixtureCopies } from '../test/fixtures';
import { assistantMsg, userMsg } from '../test/messages';
import { bytesReader, loadIn } from '../test/retention';
import { EntryReadError } from './entry-store';
import { collectEntriesForBranchSummary } from './navigation';
import { SessionLineParser, utf8Decoder, utf8Encode } from './parse';
import { SessionManager } from './session-manager';
import { MemoryStorage, MemoryStorageProvider } from './storage';
import type { SessionEntry, SessionHeader } from './types';

afterAll(removeFixtureCopies);

const HEADER = JSON.stringify({
  type: 'session',
  version: 3,
  id: 'sess',
  timestamp: '2026-01-01T00:00:00.000Z',
  cwd: '/w',
});

function messageLine(id: string, parentId: string | null, text: string, second = 0): string {
  return JSON.stringify({
    type: 'message',
    id,
    parentId,
    timestamp: `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`,
    message: { role: 'user', content: text, timestamp: 1_767_225_600_000 + second * 1000 },
  });
}

const TEXT = [
  HEADER,
  messageLine('a', null, 'first'),
  messageLine('b', 'a', 'second ✓ with ünïcödé', 1),
  JSON.stringify({
    type: 'label',
    id: 'l',
    parentId: 'b',
    timestamp: '2026-01-01T00:00:02.000Z',
    targetId: 'a',
    label: 'start',
  }),
  messageLine('c', 'l', 'third', 3),
  '',
].join('\n');

/** The session over TEXT (a file in memory) with a label set, new files in memory, a stepping clock. */
function labelledSession(retain: 'all' | 'index') {
  const provider = new MemoryStorageProvider('out');
  let clock = Date.parse('2026-02-01T00:00:00.000Z');
  const session = SessionManager.fromStorage(new MemoryStorage(TEXT, 'in.jsonl'), {
    retain,
    storageProvider: provider,
    now: () => (clock += 1000),
  });
  session.appendLabelChange('b', 'kept');
  return { session, provider };
}

/** Everything a caller can observe, with the views at every entry. */
function observe(session: SessionManager) {
  const ids = session.getEntries().map((entry) => entry.id);
  return {
    entries: session.getEntries(),
    tree: session.getTree(),
    issues: session.issues,
    leaf: session.getLeafEntry(),
    roots: session.getChildren(null),
    name: session.getSessionName(),
    jsonl: session.toJsonl(),
    at: ids.map((id) => ({
      entry: session.getEntry(id),
      line: session.getLine(id),
      label: session.getLabel(id),
      branch: session.getBranch(id),
      children: session.getChildren(id),
      childShapes: session.getChildShapes(id),
      branchShapes: session.getBranchShapes(id),
    })),
  };
}

/** The context at every entry (moves the leaf). */
function contexts(session: SessionManager) {
  return session.getEntries().map((entry) => {
    session.branch(entry.id);
    return session.buildSessionContext();
  });
}

describe("retain 'index'", () => {
  it('keeps messages as stubs and reads one back only when it is asked for, then from its cache', () => {
    const reader = bytesReader(TEXT);
    const session = SessionManager.fromJsonl(TEXT, { retain: 'index', readRange: reader });
    expect(reader.reads).toBe(0);
    expect(session.getEntry('b')).toStrictEqual(JSON.parse(TEXT.split('\n')[2] as string));
    expect(reader.reads).toBe(1);
    session.getEntry('b');
    expect(reader.reads).toBe(1);
    // A label is kept whole: no read.
    expect(session.getEntry('l')).toMatchObject({ type: 'label', targetId: 'a', label: 'start' });
    expect(reader.reads).toBe(1);
  });

  it("answers the children's shapes (type, id, parent, timestamp) without reading any back", () => {
    const reader = bytesReader(TEXT);
    const session = SessionManager.fromJsonl(TEXT, { retain: 'index', readRange: reader });
    const all = SessionManager.fromJsonl(TEXT);
    for (const parentId of [null, 'a', 'b', 'l', 'c']) {
      const shapes = session.getChildShapes(parentId);
      expect(shapes).toStrictEqual(
        all.getChildren(parentId).map(({ type, id, parentId: parent, timestamp }) => ({
          type,
          id,
          parentId: parent,
          timestamp,
        })),
      );
    }
    expect(session.getChildShapes('b')).toHaveLength(1);
    expect(reader.reads).toBe(0);
  });

  it("finds a navigation's abandoned entries reading back only those, not both paths from the root", () => {
    // A 2,000-entry trunk, then a side branch of three off its end; the leaf at the side's tip.
    const writer = SessionManager.inMemory('/w');
    const trunk: string[] = [];
    for (let i = 0; i < 1_000; i++) {
      trunk.push(writer.appendMessage(userMsg(`question ${i}`)));
      trunk.push(writer.appendMessage(assistantMsg(`answer ${i}`)));
    }
    writer.branch(trunk[1_990]!);
    const side = [0, 1, 2].map((i) => writer.appendMessage(userMsg(`side ${i}`)));
    const bytes = utf8Encode(writer.toJsonl());
    const reader = bytesReader(bytes);
    const session = SessionManager.fromJsonl(bytes, { retain: 'index', readRange: reader });
    expect(session.getBranchShapes(side[2]).map((shape) => shape.id)).toEqual([
      ...trunk.slice(0, 1_991),
      ...side,
    ]);
    expect(reader.reads).toBe(0);
    const { entries, commonAncestorId } = collectEntriesForBranchSummary(session, side[2]!, trunk[1_999]!);
    expect(commonAncestorId).toBe(trunk[1_990]);
    expect(entries.map((entry) => entry.id)).toEqual(side);
    // Before: both paths from the root were read back, about 4,000 entries.
    expect(reader.reads).toBe(side.length);
  });

  it('evicts the least recently read entry beyond its cache size', () => {
    const reader = bytesReader(TEXT);
    const session = SessionManager.fromJsonl(TEXT, { retain: 'index', readRange: reader, entryCacheSize: 2 });
    session.getEntry('a');
    session.getEntry('b');
    session.getEntry('a');
    session.getEntry('c'); // evicts b, the least recently read
    expect(reader.reads).toBe(3);
    session.getEntry('a');
    expect(reader.reads).toBe(3);
    session.getEntry('b');
    expect(reader.reads).toBe(4);
  });

  it.each([
    'seed-example.jsonl',
    'all-entry-types.jsonl',
    'malformed.jsonl',
    'oh-my-pi-title-slot.jsonl',
    // many-branches.jsonl runs in this mode in the interop suite (test/interop/v3-fixtures.test.ts).
    'branched-from-seed-example.jsonl',
  ])('shows exactly what a session keeping every entry shows: %s', async (name) => {
    const bytes = await readFixtureCopy(name);
    const all = SessionManager.fromJsonl(bytes);
    const reader = bytesReader(bytes);
    const index = SessionManager.fromJsonl(bytes, { retain: 'index', readRange: reader, entryCacheSize: 8 });
    expect(observe(index)).toStrictEqual(observe(all));
    expect(contexts(index)).toStrictEqual(contexts(all));
    expect(index.dialect).toBe(all.dialect);
    // The comparison did read entries back: they were not all kept.
    expect(reader.reads).toBeGreaterThan(0);
  });

  it.each(['seed-example.jsonl', 'malformed.jsonl', 'oh-my-pi-title-slot.jsonl'])(
    'ingested in any pieces, shows what loading %s at once keeping every entry shows',
    async (name) => {
      const bytes = await readFixtureCopy(name);
      const whole = observe(SessionManager.fromJsonl(bytes));
      fc.assert(
        fc.property(fc.array(fc.nat(bytes.length), { maxLength: 6 }), (cuts) => {
          const points = [0, ...new Set(cuts), bytes.length].sort((a, b) => a - b);
          const pieces = points.slice(1).map((end, k) => bytes.subarray(points[k], end));
          const session = SessionManager.fromJsonl(pieces[0] as Uint8Array, {
            retain: 'index',
            readRange: bytesReader(bytes),
            entryCacheSize: 2,
          });
          for (const piece of pieces.slice(1)) session.ingest(piece);
          // ingest leaves the leaf where it was: put it where a whole load puts it.
          const last = session.getEntries().at(-1);
          if (last) session.branch(last.id);
          expect(observe(session)).toStrictEqual(whole);
        }),
        { numRuns: 30 },
      );
    },
  );

  it('loads a file with a byte-order mark and CRLF line endings, and reads its entries back exactly', () => {
    const crlf = `\uFEFF${TEXT.split('\n').join('\r\n')}`;
    const all = SessionManager.fromJsonl(utf8Encode(crlf));
    const index = loadIn('index', utf8Encode(crlf));
    expect(index.issues).toEqual([]);
    expect(observe(index)).toStrictEqual(observe(all));
  });

  it('keeps a legacy file that needs migration whole (a migrated entry is not what its line says)', async () => {
    const bytes = await readFixtureCopy('legacy-v1-large-session.jsonl');
    const reader = bytesReader(bytes);
    const session = SessionManager.fromJsonl(bytes, { retain: 'index', readRange: reader });
    expect(session.needsRewrite).toBe(true);
    expect(session.getEntries().length).toBeGreaterThan(1000);
    session.getTree();
    session.buildSessionContext();
    expect(reader.reads).toBe(0);
  });

  it('refuses to start without a way to read entries back', () => {
    expect(() => SessionManager.fromJsonl(TEXT, { retain: 'index' })).toThrow(
      'A session with retain "index" needs readRange (or a storage with readRange) to read its entries back',
    );
  });

  it('reads back what it appended to its storage, and what another writer appended (ingest)', () => {
    const storage = new MemoryStorage(TEXT);
    const session = SessionManager.fromStorage(storage, { retain: 'index', entryCacheSize: 1 });
    const mine = session.appendMessage(userMsg('mine ✓'));
    const reply = session.appendMessage(assistantMsg('reply'));
    const theirs = messageLine('theirs', reply, 'from another writer', 9);
    storage.appendLines([theirs]);
    session.ingest(`${theirs}\n`);
    const all = SessionManager.fromJsonl(storage.read());
    // The cache holds one entry: every other one is read back from the storage's bytes.
    expect(session.getEntry(mine)).toStrictEqual(all.getEntry(mine));
    expect(session.getBranch('theirs')).toStrictEqual(all.getBranch('theirs'));
    expect(session.toJsonl()).toBe(storage.read());
  });

  it('reads back entries appended after the header it wrote first into an empty file', () => {
    const storage = new MemoryStorage('');
    const session = SessionManager.fromStorage(storage, { retain: 'index', entryCacheSize: 1 });
    const first = session.appendMessage(userMsg('first ✓'));
    const second = session.appendMessage(assistantMsg('second'));
    const all = SessionManager.fromJsonl(storage.read());
    expect(session.getEntry(first)).toStrictEqual(all.getEntry(first));
    expect(session.getEntry(second)).toStrictEqual(all.getEntry(second));
    expect(session.getEntry(first)).toStrictEqual(all.getEntry(first));
  });

  it('writes the same branched and forked sessions as a session keeping every entry', () => {
    const write = (retain: 'all' | 'index') => {
      const { session, provider } = labelledSession(retain);
      const branched = session.createBranchedSession('c') as string;
      const branchedText = provider.get(branched)?.read() ?? '';
      session.appendMessage({ ...userMsg('after the branch'), timestamp: 0 });
      const forked = session.forkSession() as string;
      return {
        // Header ids are random: compare everything after the header line.
        branched: branchedText.replace(/^.*\n/, ''),
        forked: (provider.get(forked)?.read() ?? '').replace(/^.*\n/, ''),
        context: session.buildSessionContext(),
      };
    };
    const index = write('index');
    const all = write('all');
    // Appended and recreated label entries get random ids: compare the files without them.
    const withoutIds = (text: string) => text.replace(/"(id|parentId|targetId)":"[0-9a-f]{8}"/g, '"$1":_');
    // a, b and c (the label entry on the path is dropped), then the two labels recreated.
    expect(index.branched.trimEnd().split('\n')).toHaveLength(5);
    expect(withoutIds(index.branched)).toBe(withoutIds(all.branched));
    expect(withoutIds(index.forked)).toBe(withoutIds(all.forked));
    expect(withoutIds(JSON.stringify(index.context))).toBe(withoutIds(JSON.stringify(all.context)));
  });
});

describe('writing a branched or forked file without switching to it', () => {
  // Header ids and recreated label ids are random, and the header's time is the clock's next tick:
  // compare the files without them.
  const withoutIds = (text: string) =>
    text
      .replace(/"(id|parentId|targetId)":"[0-9a-f]{8}"/g, '"$1":_')
      .replace(
        /^(\{"type":"session","version":3,)"id":"[^"]+","timestamp":"[^"]+"/,
        '$1"id":_,"timestamp":_',
      );

  it.each(['all', 'index'] as const)(
    'writes the bytes createBranchedSession and forkSession write, and the session stays on its file (%s)',
    (retain) => {
      const switching = labelledSession(retain);
      const switched = {
        branched: switching.provider.get(switching.session.createBranchedSession('c') as string)?.read(),
      };
      const forking = labelledSession(retain);
      const forked = forking.provider.get(forking.session.forkSession() as string)?.read();

      const staying = labelledSession(retain);
      const before = {
        leaf: staying.session.getLeafId(),
        file: staying.session.getSessionFile(),
        jsonl: staying.session.toJsonl(),
      };
      const branchedPath = staying.session.writeBranchedFile('c', staying.provider) as string;
      const forkedPath = staying.session.writeForkedFile(staying.provider) as string;
      const rootPath = staying.session.writeBranchedFile(null, staying.provider) as string;
      expect(withoutIds(staying.provider.get(branchedPath)?.read() ?? '')).toBe(
        withoutIds(switched.branched ?? ''),
      );
      expect(withoutIds(staying.provider.get(forkedPath)?.read() ?? '')).toBe(withoutIds(forked ?? ''));
      // A root message's branch is an empty session naming its parent.
      const root = (staying.provider.get(rootPath)?.read() ?? '').trimEnd().split('\n');
      expect(root).toHaveLength(1);
      expect(JSON.parse(root[0]!)).toMatchObject({ type: 'session', parentSession: 'in.jsonl', cwd: '/w' });
      expect(JSON.parse((staying.provider.get(branchedPath)?.read() ?? '').split('\n')[0]!)).toMatchObject({
        parentSession: 'in.jsonl',
      });
      expect({
        leaf: staying.session.getLeafId(),
        file: staying.session.getSessionFile(),
        jsonl: staying.session.toJsonl(),
      }).toStrictEqual(before);
    },
  );
});

/** A new file that takes its lines one at a time and refuses to be written as one string. */
class LineFile extends MemoryStorage {
  /** Lines written so far, counted as each one is consumed. */
  consumed = 0;
  failAfter: number | undefined;

  override rewrite(): void {
    throw new Error('a copied session must be streamed, not written as one string');
  }

  override rewriteLines(lines: Iterable<string>): void {
    let text = '';
    for (const line of lines) {
      if (this.failAfter !== undefined && this.consumed === this.failAfter)
        throw new Error('ENOSPC: disk full');
      this.consumed++;
      text += `${line}\n`;
    }
    super.rewrite(text);
  }
}

class LineFileProvider extends MemoryStorageProvider {
  failAfter: number | undefined;

  override create(header: SessionHeader): MemoryStorage {
    const storage = new LineFile('', `lines/${header.id}.jsonl`);
    storage.failAfter = this.failAfter;
    this.created.push(storage);
    return storage;
  }
}

describe('branched and forked sessions', () => {
  it.each(['all', 'index'] as const)(
    'are streamed line by line to a storage with rewriteLines (retain %s), then read back from the new file',
    (retain) => {
      const provider = new LineFileProvider();
      const session = SessionManager.fromStorage(new MemoryStorage(TEXT, 'in.jsonl'), {
        retain,
        storageProvider: provider,
        entryCacheSize: 1,
      });
      const path = session.createBranchedSession('c') as string;
      const file = provider.get(path) as LineFile;
      // Header, a, b, c, the recreated label of a.
      expect(file.consumed).toBe(5);
      expect(session.toJsonl()).toBe(file.read());
      expect(session.getBranch('c').map((entry) => entry.id)).toEqual(['a', 'b', 'c']);
      expect(session.getEntry('b')).toStrictEqual(JSON.parse(TEXT.split('\n')[2] as string));
      const forked = session.forkSession() as string;
      expect(provider.get(forked)?.read().replace(/^.*\n/, '')).toBe(file.read().replace(/^.*\n/, ''));
    },
  );

  it('leave the session as it was when the new file cannot be written', () => {
    const provider = new LineFileProvider();
    provider.failAfter = 2;
    const original = new MemoryStorage(TEXT, 'in.jsonl');
    const session = SessionManager.fromStorage(original, { retain: 'index', storageProvider: provider });
    const before = observe(session);
    expect(() => session.createBranchedSession('c')).toThrow('ENOSPC: disk full');
    expect(session.getSessionFile()).toBe('in.jsonl');
    expect(observe(session)).toStrictEqual(before);
    const appended = session.appendMessage(userMsg('still the same file'));
    expect(original.read().trimEnd().split('\n').at(-1)).toContain(`"id":"${appended}"`);
  });
});

describe('onEntries', () => {
  it('sees every entry once, in full and in file order, at load, on ingest and on append', () => {
    const seen: { ids: string[]; firstIndex: number }[] = [];
    const storage = new MemoryStorage(TEXT);
    const session = SessionManager.fromStorage(storage, {
      retain: 'index',
      onEntries: (entries, firstIndex) => seen.push({ ids: entries.map((entry) => entry.id), firstIndex }),
    });
    const more = messageLine('d', 'c', 'more', 5);
    storage.appendLines([more]);
    session.ingest(`${more}\n`);
    const appended = session.appendMessage(userMsg('appended'));
    expect(seen).toEqual([
      { ids: ['a', 'b', 'l', 'c'], firstIndex: 0 },
      { ids: ['d'], firstIndex: 4 },
      { ids: [appended], firstIndex: 5 },
    ]);
  });

  it('hands over full entries, not stubs', () => {
    const received: SessionEntry[] = [];
    SessionManager.fromJsonl(TEXT, {
      retain: 'index',
      readRange: bytesReader(TEXT),
      onEntries: (entries) => received.push(...entries),
    });
    expect(received).toStrictEqual(
      TEXT.split('\n')
        .slice(1, -1)
        .map((line) => JSON.parse(line) as SessionEntry),
    );
  });

  it('is called with the whole new state and index 0 when the session switches to a branched file', () => {
    const calls: { count: number; firstIndex: number }[] = [];
    const session = SessionManager.fromJsonl(TEXT, {
      onEntries: (entries, firstIndex) => calls.push({ count: entries.length, firstIndex }),
    });
    session.createBranchedSession('b');
    // a, b, then the recreated label of a.
    expect(calls).toEqual([
      { count: 4, firstIndex: 0 },
      { count: 3, firstIndex: 0 },
    ]);
  });
});

describe('reading an entry back from a file that changed', () => {
  const lineOf = (text: string, id: string) =>
    text.split('\n').findIndex((line) => line.includes(`"id":"${id}"`)) + 1;

  function readError(session: SessionManager, id: string): EntryReadError {
    try {
      session.getEntry(id);
    } catch (error) {
      if (error instanceof EntryReadError) return error;
      throw error;
    }
    throw new Error(`reading ${id} did not fail`);
  }

  it('names the entry found in its place instead of returning it', () => {
    // Same length, another id: as if the file had been replaced by another one.
    const changed = TEXT.replace('"id":"b"', '"id":"x"');
    const session = SessionManager.fromJsonl(TEXT, { retain: 'index', readRange: bytesReader(changed) });
    const error = readError(session, 'b');
    const line = lineOf(TEXT, 'b');
    const offset =
      utf8Encode(
        TEXT.split('\n')
          .slice(0, line - 1)
          .join('\n'),
      ).length + 1;
    const length = utf8Encode(TEXT.split('\n')[line - 1] as string).length;
    expect(error.line).toBe(3);
    expect(error.entryId).toBe('b');
    expect(error.message).toBe(
      `Cannot read entry "b" back from line 3 (${length} bytes at byte ${offset}): found entry "x" there instead; the file changed on disk`,
    );
  });

  it('reports a file that became shorter', () => {
    const session = SessionManager.fromJsonl(TEXT, {
      retain: 'index',
      readRange: bytesReader(TEXT.slice(0, TEXT.indexOf('"id":"c"'))),
    });
    expect(readError(session, 'c').message).toMatch(
      /^Cannot read entry "c" back from line 5 \(\d+ bytes at byte \d+\): only \d+ bytes could be read; the file is shorter than when it was indexed$/,
    );
  });

  it('reports bytes that are no JSON line any more, and an entry whose parent changed', () => {
    const shifted = `x${TEXT}`;
    const session = SessionManager.fromJsonl(TEXT, { retain: 'index', readRange: bytesReader(shifted) });
    expect(readError(session, 'a').message).toMatch(
      /: the bytes there are not a JSON line any more; the file changed on disk$/,
    );
    const reparented = TEXT.replace('"id":"c","parentId":"l"', '"id":"c","parentId":"a"');
    const other = SessionManager.fromJsonl(TEXT, { retain: 'index', readRange: bytesReader(reparented) });
    expect(readError(other, 'c').message).toMatch(
      /: the entry there has a different type, parent or time; the file changed on disk$/,
    );
  });

  it('wraps a failing read', () => {
    const session = SessionManager.fromJsonl(TEXT, {
      retain: 'index',
      readRange: () => {
        throw new Error('EBADF: bad file descriptor');
      },
    });
    expect(readError(session, 'a').message).toMatch(/: the read failed \(EBADF: bad file descriptor\)$/);
  });
});

describe('byte spans of parsed entries', () => {
  it('locate exactly the bytes each entry was parsed from, for any split into byte or text pieces', () => {
    const text = `\uFEFF${TEXT}${messageLine('z', 'c', '日本語 🌲', 7)}\r\n{"type":"message","id":"cut"`;
    const bytes = utf8Encode(text);
    const decoder = utf8Decoder();
    fc.assert(
      fc.property(fc.array(fc.nat(bytes.length), { maxLength: 8 }), fc.boolean(), (cuts, asText) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const parser = new SessionLineParser();
        const spans: { id: string; offset: number; length: number }[] = [];
        let start = 0;
        for (const end of [...points, bytes.length]) {
          const piece = bytes.subarray(start, end);
          // Text pieces must hold whole characters: cut only where the byte is not a continuation.
          const batch =
            asText &&
            (end === bytes.length || ((bytes[end] as number) & 0xc0) !== 0x80) &&
            ((bytes[start] as number) & 0xc0) !== 0x80
              ? parser.push(decoder.decode(piece))
              : parser.push(piece);
          for (const { entry, offset, length } of batch.entries) spans.push({ id: entry.id, offset, length });
          start = end;
        }
        expect(spans.map((span) => span.id)).toEqual(['a', 'b', 'l', 'c', 'z']);
        for (const span of spans) {
          const parsed = JSON.parse(
            decoder.decode(bytes.subarray(span.offset, span.offset + span.length)),
          ) as SessionEntry;
          expect(parsed.id).toBe(span.id);
        }
      }),
      { numRuns: 200 },
    );
  });
});
