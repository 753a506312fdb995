import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ServerEvent } from '@canopy/protocol';
import { MemoryStorage, SessionManager } from '@canopy/session-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NewFileStorageProvider } from '../src/files/file-storage';
import { PARSE_SLICE_BYTES } from '../src/files/files';
import { OpenSession, REAL_CLOCK, type OpenSessionOptions } from '../src/live/open-session';
import { hashThreadForTests } from '../src/live/running-hash';
import { StateStore } from '../src/files/state';
import { freshTreeNodes } from './fresh-nodes';

// The open, reload and tail paths read a session file in pieces, never whole. These tests read in
// pieces far smaller than a line (cutting lines and UTF-8 characters) and compare with a whole read.

const HOME = '/home/dev';
const WINDOW_BYTES = 64;

/** A session written by session-core: turns with non-ASCII text, a label, then a damaged line. */
function sessionText(turns: number): string {
  const storage = new MemoryStorage();
  const sm = SessionManager.inMemory('/w', { storage });
  let first = '';
  for (let i = 0; i < turns; i++) {
    const id = sm.appendMessage({
      role: 'user',
      content: `Frage ${i}: größer als ∑ 🌲 ${'·'.repeat(i % 40)}`,
      timestamp: i,
    });
    first ||= id;
  }
  sm.appendLabelChange(first, 'start ✓');
  return `${storage.read()}not a JSON line\n`;
}

/** A session whose messages are long (well past a read piece, so the load abridges them). */
function longSessionText(turns: number): string {
  const storage = new MemoryStorage();
  const sm = SessionManager.inMemory('/w', { storage });
  for (let i = 0; i < turns; i++) {
    sm.appendMessage({ role: 'user', content: `Frage ${i}: ${'größer 🌲 '.repeat(300 + i)}`, timestamp: i });
    sm.appendMessage({
      role: 'assistant',
      content: [{ type: 'text', text: `Antwort ${i} ${'∑ \\ "zitiert" '.repeat(200)}` }],
      api: 'anthropic-messages',
      provider: 'anthropic',
      model: 'claude',
      usage: {
        input: 1,
        output: 2,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 3,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: 'stop',
      timestamp: i,
    });
  }
  return storage.read();
}

/** The lines of a session of `turns` turns without its header: what another writer appends. */
function moreLines(turns: number): string {
  return sessionText(turns).split('\n').slice(1).join('\n');
}

/** What a whole read of `text` gives, as the server's tree model builds it. */
function wholeRead(text: string) {
  const sm = SessionManager.fromJsonl(text);
  return {
    entries: sm.getEntries(),
    issues: sm.issues,
    nodes: freshTreeNodes(sm, HOME),
  };
}

function readOf(session: OpenSession) {
  return {
    entries: session.sm.getEntries(),
    issues: session.sm.issues,
    nodes: [...session.tree.all],
  };
}

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

describe('an open session reads its file in pieces', () => {
  const sessions: OpenSession[] = [];
  let dir = '';
  afterEach(() => {
    vi.restoreAllMocks();
    for (const session of sessions.splice(0)) session.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  function fileWith(text: string): string {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-pieces-'));
    const file = path.join(dir, 'session.jsonl');
    fs.writeFileSync(file, text);
    return file;
  }

  /** An open session of `file` not yet opened, closed after the test, and the events it publishes. */
  function sessionOf(file: string, options: Partial<OpenSessionOptions> = {}) {
    const events: ServerEvent[] = [];
    const session = new OpenSession({
      id: 'piecewise',
      file,
      state: new StateStore(path.join(dir, 'state')),
      home: HOME,
      listener: (published) => events.push(...published),
      // Polls only when the test asks (refresh); nothing depends on a timer.
      pollMs: 1e9,
      midWriteWaitMs: 0,
      storageProvider: new NewFileStorageProvider(
        dir,
        () => 0o600,
        () => true,
      ),
      confined: () => true,
      quietWindowMs: 0,
      clock: REAL_CLOCK,
      ...options,
    });
    sessions.push(session);
    return { session, events };
  }

  async function open(file: string, options: Partial<OpenSessionOptions> = {}) {
    const opened = sessionOf(file, options);
    await opened.session.open();
    return opened;
  }

  it('a read in 5-byte pieces gives exactly what a whole read gives: entries, issues, leaf, nodes, list facts and the content hash', async () => {
    // Ends in a cut-off line, which stays buffered.
    const text = `${sessionText(60)}{"type":"mess`;
    const file = fileWith(text);
    const { session: inPieces } = await open(file, { pieceBytes: 5 });
    const { session: inOne } = await open(file);
    const whole = { ...wholeRead(text) };
    expect(whole.entries).toHaveLength(61);
    expect(whole.issues.length).toBeGreaterThan(0);
    expect(readOf(inPieces)).toEqual(whole);
    expect(readOf(inOne)).toEqual(whole);
    expect(inPieces.sm.getLeafId()).toBe(whole.entries.at(-1)!.id);
    expect(inOne.sm.getLeafId()).toBe(whole.entries.at(-1)!.id);
    expect(inPieces.listRow()).toEqual(inOne.listRow());
    expect(inPieces.sm.pendingBytes).toBe(13);
    // The running hash over 5-byte pieces is the hash of the whole file.
    const tailHash = (session: OpenSession) =>
      (session as unknown as { tail: { contentHash: string } }).tail.contentHash;
    expect(tailHash(inPieces)).toBe(sha256(fs.readFileSync(file)));
    expect(tailHash(inOne)).toBe(sha256(fs.readFileSync(file)));
  });

  it('a load reads every piece into one reused buffer and still gives exactly what a whole read gives, long lines cut across pieces included', async () => {
    const text = sessionText(30) + longSessionText(12).split('\n').slice(1).join('\n');
    const file = fileWith(text);
    const pieceBytes = 1000;
    const lineBytes = text.split('\n').map((line) => Buffer.byteLength(line));
    expect(Math.max(...lineBytes)).toBeGreaterThan(4 * pieceBytes);
    const buffers = new Set<unknown>();
    const readSync = fs.readSync as unknown as (...args: unknown[]) => number;
    vi.spyOn(fs, 'readSync').mockImplementation(((...args: unknown[]) => {
      buffers.add(args[1]);
      return readSync(...args);
    }) as unknown as typeof fs.readSync);
    const { session } = await open(file, { pieceBytes });
    vi.restoreAllMocks();
    expect(buffers.size).toBe(1);
    expect(readOf(session)).toEqual(wholeRead(text));
    expect(session.listRow()).toEqual((await open(file)).session.listRow());
  });

  it('no read of an open, an append by another writer, a same-size rewrite or its reload asks for more than one piece and the window', async () => {
    const text = sessionText(200);
    const file = fileWith(text);
    const pieceBytes = 1024;
    expect(Buffer.byteLength(text)).toBeGreaterThan(10 * pieceBytes);
    const lengths: number[] = [];
    // The test's own whole-file reads (readFileSync reads through fs.readSync) are not counted.
    let recording = true;
    const onDisk = (): Buffer => {
      recording = false;
      const bytes = fs.readFileSync(file);
      recording = true;
      return bytes;
    };
    // The server reads with readSync(fd, buffer, offset, length, position).
    const readSync = fs.readSync as unknown as (...args: unknown[]) => number;
    vi.spyOn(fs, 'readSync').mockImplementation(((...args: unknown[]) => {
      if (recording) lengths.push(args[3] as number);
      return readSync(...args);
    }) as unknown as typeof fs.readSync);
    const { session, events } = await open(file, { pieceBytes });

    fs.appendFileSync(file, moreLines(40));
    await session.refresh();
    expect(readOf(session)).toEqual(wholeRead(onDisk().toString('utf8')));

    // Rewritten in place, same size: the hash over pieces differs, and the reload reads in pieces.
    const bytes = onDisk();
    const at = bytes.indexOf('Frage 3:');
    bytes.write('Frage 9', at);
    fs.writeFileSync(file, bytes);
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
    await session.refresh();
    expect(events.filter((event) => event.type === 'session_reloaded')).toEqual([
      { type: 'session_reloaded', sessionId: 'piecewise', reason: 'rewritten' },
    ]);
    expect(readOf(session)).toEqual(wholeRead(bytes.toString('utf8')));
    expect(lengths.length).toBeGreaterThan(20);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(pieceBytes + WINDOW_BYTES);
  });

  it('a read lets other work run every PARSE_SLICE_BYTES of a piece, and still gives exactly what a whole read gives', async () => {
    // One 4 MB piece holds the whole file; parsed at once, it held the event loop for ~50 ms a MB.
    const text = longSessionText(240);
    expect(text.length).toBeGreaterThan(3 * PARSE_SLICE_BYTES);
    const file = fileWith(text);
    const { session } = sessionOf(file);
    const hashedBefore = hashThreadForTests.hashedBytes();
    const opened = session.open();
    // Each turn of the event loop during the read: how many nodes the read had received by then.
    const seen: number[] = [];
    const look = () => {
      const progress = session.loading;
      if (progress === undefined) return;
      seen.push(progress.nodes.length);
      setImmediate(look);
    };
    setImmediate(look);
    await opened;
    const total = wholeRead(text).nodes.length;
    expect(seen.filter((count) => count > 0 && count < total).length).toBeGreaterThanOrEqual(3);
    expect(readOf(session)).toEqual(wholeRead(text));
    // Told to the tail slice by slice, the file was hashed by the hashing thread, every byte of it.
    expect(hashThreadForTests.hashedBytes() - hashedBefore).toBe(Buffer.byteLength(text));
    expect((session as unknown as { tail: { contentHash: string } }).tail.contentHash).toBe(
      sha256(fs.readFileSync(file)),
    );
  });

  it('a file rewritten in place while it is being read is read again: the open session equals the file on disk', async () => {
    const text = sessionText(100);
    const file = fileWith(text);
    const changed = Buffer.from(text);
    changed.write('Frage 7', changed.indexOf('Frage 1:'));
    let rewrites = 0;
    let pieces = 0;
    const { session, events } = await open(file, {
      pieceBytes: 512,
      afterPiece: (readSoFar) => {
        // Once, after the first piece: bytes already read change, the size stays.
        pieces++;
        if (readSoFar !== 512 || rewrites > 0) return;
        rewrites++;
        fs.writeFileSync(file, changed);
        fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
      },
    });
    expect(rewrites).toBe(1);
    // Read twice: the first read, then the reload.
    expect(pieces).toBe(2 * Math.ceil(Buffer.byteLength(text) / 512));
    expect(events.filter((event) => event.type === 'session_reloaded')).toEqual([
      { type: 'session_reloaded', sessionId: 'piecewise', reason: 'rewritten' },
    ]);
    expect(readOf(session)).toEqual(wholeRead(changed.toString('utf8')));
    expect(session.sm.getEntries().some((entry) => JSON.stringify(entry).includes('Frage 7:'))).toBe(true);
  });

  it('a file appended to while it is being read takes the new lines as growth, without a reload', async () => {
    const text = sessionText(100);
    const file = fileWith(text);
    const more = moreLines(5);
    let appends = 0;
    const { session, events } = await open(file, {
      pieceBytes: 512,
      afterPiece: () => {
        if (appends++ === 0) fs.appendFileSync(file, more);
      },
    });
    expect(events.some((event) => event.type === 'session_reloaded')).toBe(false);
    expect(readOf(session)).toEqual(wholeRead(text + more));
    expect(session.writerActive).toBe(true);
  });
});
