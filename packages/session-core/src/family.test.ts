import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildFamilyForest,
  FAMILY_KINDS,
  graftInChild,
  familyOf,
  FamilyHeadReader,
  leadingFields,
  OWN_ENTRIES_FOR_NAME,
  parentSessionIsPath,
  parseFamilyHead,
  sessionIdFromFileName,
  type FamilyFileHead,
  type FamilyMember,
} from './family';
import { SessionManager } from './session-manager';
import { assistantMsg, userMsg } from '../test/messages';
import * as pi16 from '../test/pi16';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'canopy-family-'));
  dirs.push(dir);
  return dir;
}

const user = userMsg;
const line = (value: object) => JSON.stringify(value);
const assistant = (text: string) => assistantMsg(text, { model: 'claude' });

/** A head as the server reads it: the first `maxBytes` of the file (or all of it). */
function headOf(file: string, options: { maxBytes?: number; folder?: FamilyFileHead['folder'] } = {}) {
  const raw = readFileSync(file);
  const bytes = file.endsWith('.gz') ? gunzipSync(raw) : raw;
  const complete = options.maxBytes === undefined || bytes.length <= options.maxBytes;
  const text = bytes.subarray(0, complete ? bytes.length : options.maxBytes).toString('utf8');
  const parsed = parseFamilyHead(text, complete);
  const head: FamilyFileHead = {
    key: basename(file),
    file,
    archived: file.endsWith('.gz'),
    head: parsed.head,
    headComplete: complete,
    entryCount: parsed.head.length,
    lastActivity: statSync(file).mtimeMs,
  };
  if (parsed.sessionId) head.sessionId = parsed.sessionId;
  if (parsed.headerTimestamp) head.headerTimestamp = parsed.headerTimestamp;
  if (parsed.parentSession !== undefined) {
    if (parentSessionIsPath(parsed.parentSession))
      head.parentPath = resolve(dirname(file), parsed.parentSession);
    else head.parentSessionId = parsed.parentSession;
  }
  if (options.folder) head.folder = options.folder;
  return head;
}

function member(members: FamilyMember[], key: string): FamilyMember {
  const found = members.find((m) => m.key === key);
  if (!found) throw new Error(`no member ${key}`);
  return found;
}

/** A pi 1.6 session u1 → a1 → u2 → a2 written by pi itself, and its ids. */
function piSession(dir: string) {
  const sm = pi16.SessionManager.create('/work', dir);
  const ids = {
    u1: sm.appendMessage(user('hello')),
    a1: sm.appendMessage(assistant('hi')),
    u2: sm.appendMessage(user('go on')),
    a2: sm.appendMessage(assistant('went on')),
  };
  return { sm, ids, file: sm.getSessionFile() as string };
}

describe('where a child opens', () => {
  it("at its graft entry only when the child holds it too (a fork or clone), never a subagent's task call", () => {
    expect(FAMILY_KINDS.filter(graftInChild)).toEqual(['fork', 'clone']);
  });
});

describe('family forest from pi 1.6 files', () => {
  it('grafts a createBranchedSession fork at the last entry it shares, by the parent path', () => {
    const dir = tempDir();
    const { sm, ids, file } = piSession(dir);
    const forkFile = sm.createBranchedSession(ids.a1) as string;
    sm.appendMessage(user('in the fork'));
    sm.appendMessage(assistant('forked'));
    const forest = buildFamilyForest([headOf(file), headOf(forkFile)]);
    const fork = member(forest.members, basename(forkFile));
    expect(fork).toMatchObject({ parentKey: basename(file), kind: 'fork', graftId: ids.a1, depth: 1 });
    expect(fork.problems).toEqual([]);
    expect(member(forest.members, basename(file))).toMatchObject({ kind: 'root', parentKey: null });
  });

  it('finds the graft past a bounded parent head by the entries older than the fork header', () => {
    const dir = tempDir();
    const { sm, ids, file } = piSession(dir);
    const forkFile = sm.createBranchedSession(ids.u2) as string;
    sm.appendMessage(assistant('answered again'));
    // The parent's head holds its header and nothing more.
    const parentHead = headOf(file, { maxBytes: readFileSync(file, 'utf8').indexOf('\n') + 1 });
    expect(parentHead.head).toEqual([]);
    const forkHead = headOf(forkFile);
    forkHead.headerTimestamp = '9999-01-01T00:00:00.000Z';
    forkHead.head = forkHead.head.map((entry, i) =>
      i < 3 ? entry : { ...entry, timestamp: '9999-01-02T00:00:00.000Z' },
    );
    const fork = member(buildFamilyForest([parentHead, forkHead]).members, basename(forkFile));
    expect(fork.graftId).toBe(ids.u2);
  });

  it('says when every entry read at the child head is shared (the graft may be further)', () => {
    const dir = tempDir();
    const { sm, ids, file } = piSession(dir);
    const forkFile = sm.createBranchedSession(ids.a2) as string;
    sm.appendMessage(user('more'));
    sm.appendMessage(assistant('more'));
    const lines = readFileSync(forkFile, 'utf8').split('\n');
    const twoEntries = lines.slice(0, 3).join('\n').length + 1;
    const fork = member(
      buildFamilyForest([headOf(file), headOf(forkFile, { maxBytes: twoEntries })]).members,
      basename(forkFile),
    );
    expect(fork.graftId).toBe(ids.a1);
    expect(fork.problems.map((p) => p.code)).toEqual(['graft-beyond-head']);
  });

  it('calls a whole-tree copy (forkFrom) a clone and a new session with a parent a continuation', () => {
    const dir = tempDir();
    const { sm, ids, file } = piSession(dir);
    sm.branch(ids.a1);
    sm.appendMessage(user('other way'));
    sm.appendMessage(assistant('other answer'));
    const clone = pi16.SessionManager.forkFrom(file, '/work', dir);
    clone.appendMessage(user('in the clone'));
    clone.appendMessage(assistant('cloned'));
    const cloneFile = clone.getSessionFile() as string;
    const next = pi16.SessionManager.create('/work', dir, { parentSession: file });
    next.appendMessage(user('a fresh start'));
    next.appendMessage(assistant('fresh'));
    const nextFile = next.getSessionFile() as string;
    const forest = buildFamilyForest([headOf(file), headOf(cloneFile), headOf(nextFile)]);
    expect(member(forest.members, basename(cloneFile))).toMatchObject({ kind: 'clone' });
    expect(member(forest.members, basename(cloneFile)).graftId).not.toBeNull();
    expect(member(forest.members, basename(nextFile))).toMatchObject({
      kind: 'continuation',
      graftId: null,
      parentKey: basename(file),
    });
  });

  it('follows a moved parent by the session id in its file name, and reports a missing one', () => {
    const dir = tempDir();
    const { sm, ids, file } = piSession(dir);
    const forkFile = sm.createBranchedSession(ids.a1) as string;
    sm.appendMessage(user('x'));
    sm.appendMessage(assistant('y'));
    const elsewhere = join(dir, 'moved');
    mkdirSync(elsewhere);
    const movedFile = join(elsewhere, basename(file));
    renameSync(file, movedFile);
    expect(sessionIdFromFileName(movedFile)).toBe(headOf(movedFile).sessionId);
    const moved = member(
      buildFamilyForest([headOf(movedFile), headOf(forkFile)]).members,
      basename(forkFile),
    );
    expect(moved).toMatchObject({ parentKey: basename(movedFile), graftId: ids.a1, kind: 'fork' });
    expect(moved.problems.map((p) => p.code)).toEqual(['moved-parent']);

    const orphan = member(buildFamilyForest([headOf(forkFile)]).members, basename(forkFile));
    expect(orphan).toMatchObject({ parentKey: null, kind: 'root' });
    expect(orphan.problems.map((p) => p.code)).toEqual(['missing-parent']);
  });

  it('grafts a child of an archived .jsonl.gz ancestor, read whole through gunzip', () => {
    const dir = tempDir();
    const { sm, ids, file } = piSession(dir);
    const forkFile = sm.createBranchedSession(ids.a1) as string;
    sm.appendMessage(user('x'));
    sm.appendMessage(assistant('y'));
    const archived = `${file}.gz`;
    writeFileSync(archived, gzipSync(readFileSync(file)));
    rmSync(file);
    const forest = buildFamilyForest([headOf(archived), headOf(forkFile)]);
    const fork = member(forest.members, basename(forkFile));
    // The path names the .jsonl; the archive beside it has the same session id in its name.
    expect(fork).toMatchObject({ parentKey: basename(archived), graftId: ids.a1 });
    expect(fork.problems.map((p) => p.code)).toEqual(['moved-parent']);
  });
});

describe('family forest from session-core files', () => {
  it('links oh-my-pi lineage by the parent session id', () => {
    const parent = SessionManager.inMemory('/work');
    const u1 = parent.appendMessage(user('hello'));
    const a1 = parent.appendMessage(assistant('hi'));
    const parentHead: FamilyFileHead = {
      key: 'p',
      file: '/s/p.jsonl',
      sessionId: parent.getSessionId(),
      archived: false,
      head: parent.getEntries().map((e) => ({ id: e.id, parentId: e.parentId, timestamp: e.timestamp })),
      headComplete: true,
      entryCount: 2,
      lastActivity: 1,
    };
    const child: FamilyFileHead = {
      key: 'c',
      file: '/s/c.jsonl',
      sessionId: 'child',
      parentSessionId: parent.getSessionId(),
      archived: false,
      head: [
        { id: u1, parentId: null },
        { id: a1, parentId: u1 },
        { id: 'n1', parentId: a1 },
      ],
      headComplete: true,
      entryCount: 3,
      lastActivity: 2,
    };
    const forest = buildFamilyForest([parentHead, child]);
    expect(member(forest.members, 'c')).toMatchObject({ parentKey: 'p', kind: 'fork', graftId: a1 });
  });

  it('puts subagent and advisor transcripts under the session whose folder holds them', () => {
    const base = { archived: false, head: [], headComplete: true, entryCount: 0 };
    const heads: FamilyFileHead[] = [
      { ...base, key: 's', file: '/a/sess.jsonl', lastActivity: 1 },
      {
        ...base,
        key: 'sub',
        file: '/a/sess/Explorer.jsonl',
        lastActivity: 5,
        folder: { kind: 'subagent', parents: ['/a/sess.jsonl', '/a/sess.jsonl.gz'] },
      },
      {
        ...base,
        key: 'nested',
        file: '/a/sess/Explorer.Reader.jsonl',
        lastActivity: 3,
        folder: { kind: 'subagent', parents: ['/a/sess/Explorer.jsonl', '/a/sess.jsonl'] },
      },
      {
        ...base,
        key: 'adv',
        file: '/a/sess/__advisor1.jsonl',
        lastActivity: 2,
        folder: { kind: 'advisor', parents: ['/a/sess.jsonl'] },
      },
    ];
    const forest = buildFamilyForest(heads);
    expect(forest.members.map((m) => [m.key, m.parentKey, m.kind, m.depth])).toEqual([
      ['s', null, 'root', 0],
      ['sub', 's', 'subagent', 1],
      ['nested', 'sub', 'subagent', 2],
      ['adv', 's', 'advisor', 1],
    ]);
    expect(member(forest.members, 's').latestActivity).toBe(5);
  });

  it('orders families and children by their newest activity, as pi threads /resume', () => {
    const head = (key: string, lastActivity: number, parent?: string): FamilyFileHead => ({
      key,
      file: `/s/${key}.jsonl`,
      sessionId: key,
      ...(parent ? { parentSessionId: parent } : {}),
      archived: false,
      head: [],
      headComplete: true,
      entryCount: 0,
      lastActivity,
    });
    const forest = buildFamilyForest([
      head('old', 1),
      head('oldChildNew', 50, 'old'),
      head('oldChildOld', 2, 'old'),
      head('mid', 10),
    ]);
    expect(forest.members.map((m) => m.key)).toEqual(['old', 'oldChildNew', 'oldChildOld', 'mid']);
    expect(familyOf(forest, 'oldChildOld').map((m) => m.key)).toEqual(['old', 'oldChildNew', 'oldChildOld']);
    expect(familyOf(forest, 'mid').map((m) => m.key)).toEqual(['mid']);
  });

  it('cuts a cycle of parents at its smallest key and reports it on every member', () => {
    const head = (key: string, parent: string): FamilyFileHead => ({
      key,
      file: `/s/${key}.jsonl`,
      sessionId: key,
      parentSessionId: parent,
      archived: false,
      head: [],
      headComplete: true,
      entryCount: 0,
      lastActivity: 1,
    });
    const forest = buildFamilyForest([head('b', 'a'), head('a', 'c'), head('c', 'b')]);
    expect(forest.members.map((m) => [m.key, m.parentKey])).toEqual([
      ['a', null],
      ['b', 'a'],
      ['c', 'b'],
    ]);
    for (const m of forest.members) expect(m.problems.map((p) => p.code)).toContain('cycle');
  });

  it('a child’s head is read past the entries it copied to its own first user message, or 16 own entries', () => {
    const message = (id: string, timestamp: string, role: string, text: string) =>
      line({ type: 'message', id, parentId: null, timestamp, message: { role, content: text } });
    const reader = new FamilyHeadReader();
    reader.addLine(
      line({ type: 'session', id: 'S', timestamp: '2026-12-01T10:00:00Z', parentSession: 'p.jsonl' }),
    );
    // Copied from the parent (older than the header): its first message is not the child's.
    reader.addLine(message('c1', '2026-12-01T09:00:00Z', 'user', 'the parent question'));
    expect(reader.settled).toBe(false);
    reader.addLine(
      line({ type: 'model_change', id: 'o1', parentId: 'c1', timestamp: '2026-12-01T10:00:01Z' }),
    );
    reader.addLine(message('o2', '2026-12-01T10:00:02Z', 'assistant', 'no user yet'));
    expect(reader.settled).toBe(false);
    reader.addLine(message('o3', '2026-12-01T10:00:03Z', 'user', '  what the fork is about  '));
    expect(reader.settled).toBe(true);
    expect(reader.parsed.ownFirstMessage).toBe('what the fork is about');

    const quiet = new FamilyHeadReader();
    quiet.addLine(
      line({ type: 'session', id: 'Q', timestamp: '2026-12-01T10:00:00Z', parentSession: 'p.jsonl' }),
    );
    for (let i = 0; i < OWN_ENTRIES_FOR_NAME; i++) {
      expect(quiet.settled).toBe(false);
      quiet.addLine(line({ type: 'custom', id: `q${i}`, parentId: null, timestamp: '2026-12-01T10:00:05Z' }));
    }
    expect(quiet.settled).toBe(true);
    expect(quiet.parsed.ownFirstMessage).toBeUndefined();
  });

  it('reads an entry line’s leading fields as JSON.parse reads them, or leaves the line to it', () => {
    const fields = (line: string) => {
      const { type, id, parentId, timestamp } = JSON.parse(line) as Record<string, unknown>;
      return { type, id, parentId, timestamp };
    };
    const lines = [
      // pi's layout, with a null parent, with escapes in the content only, with an escaped id.
      line({ type: 'message', id: 'a1', parentId: null, timestamp: 't1', message: { content: 'x "q" \\' } }),
      line({ type: 'message', id: 'a2', parentId: 'a1', timestamp: 't2', message: { role: 'user' } }),
      line({ type: 'custom', id: 'we"ird', parentId: 'a\\2', timestamp: 't3', data: {} }),
      // Keys in another order, and CRLF line ends.
      line({ id: 'b1', type: 'label', timestamp: 't4', parentId: 'a2' }),
      `${line({ type: 'message', id: 'c1', parentId: 'b1', timestamp: 't5' })}\r`,
    ];
    for (const text of lines) {
      const read = leadingFields(text);
      if (read) expect(read).toEqual(fields(text.trim()));
    }
    expect(leadingFields(lines[0]!)).toBeDefined();
    // Escapes in the leading fields, or keys in another order: left to JSON.parse of the whole line
    // (the reader's head below still holds them exactly).
    expect(leadingFields(lines[2]!)).toBeUndefined();
    expect(leadingFields(lines[3]!)).toBeUndefined();
    // Cut off, or not an object: left to JSON.parse (which skips it).
    expect(leadingFields(lines[1]!.slice(0, -3))).toBeUndefined();
    expect(leadingFields('[1,2]')).toBeUndefined();
    // The reader gives the same head whichever way each line was read.
    const header = line({ type: 'session', id: 'S', timestamp: 't0' });
    const fast = parseFamilyHead([header, ...lines].join('\n'), true);
    expect(fast.head).toEqual(
      lines.map((text) => {
        const { id, parentId, timestamp } = fields(text.trim());
        return { id, parentId, timestamp };
      }),
    );
  });

  it('skips an oh-my-pi title line and a cut-off last line at the head', () => {
    const text = [
      JSON.stringify({ type: 'title', title: 'x' }),
      JSON.stringify({ type: 'session', id: 'S', timestamp: 't', parentSession: 'P' }),
      JSON.stringify({ type: 'message', id: 'e1', parentId: null, timestamp: 't1' }),
      '{"type":"message","id":"e2","par',
    ].join('\n');
    expect(parseFamilyHead(text, false)).toEqual({
      sessionId: 'S',
      headerTimestamp: 't',
      parentSession: 'P',
      head: [{ id: 'e1', parentId: null, timestamp: 't1' }],
    });
  });
});
