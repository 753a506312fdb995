import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAbridged, SessionLineParser } from '@canopy/session-core';
import { afterEach, describe, expect, it } from 'vitest';
import { countEntries, emptyRowFacts } from './list-row';
import { smallSessionsFolder } from '../../test/own-sessions';
import { resolveRoots, SessionIndex } from './session-index';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

const stamp = '2025-01-01T00:00:00.000Z';

/** A session whose lines have long strings where the list row reads them, and damaged long lines. */
function sessionText(): string {
  const message = (id: string, parentId: string | null, body: Record<string, unknown>) =>
    JSON.stringify({ type: 'message', id, parentId, timestamp: stamp, message: body });
  const lines = [
    JSON.stringify({ type: 'session', version: 3, id: 'listed', timestamp: stamp, cwd: '/w' }),
    message('a', null, {
      role: 'assistant',
      content: [{ type: 'text', text: 'x'.repeat(5000) }],
      usage: { input: 1 },
    }),
    // The first user message: a short block, then a long one whose start the row shows.
    message('b', 'a', {
      role: 'user',
      content: [
        { type: 'text', text: 'short ' },
        { type: 'text', text: `${'é'.repeat(150)}${' \n'.repeat(400)}😀${'y'.repeat(3000)}` },
      ],
    }),
    message('c', 'b', { role: 'user', content: 'later '.repeat(1000) }),
    // Damaged in the part a scan would cut: an issue, not an entry.
    `{"type":"message","id":"d","parentId":"c","timestamp":"${stamp}","message":{"role":"user","content":"${'z'.repeat(900)}\\q"}}`,
    `{"type":"message","id":"e","parentId":"c","timestamp":"${stamp}","message":{"role":"user","content":"${'z'.repeat(900)}`,
    JSON.stringify({
      type: 'session_info',
      id: 'f',
      parentId: 'c',
      timestamp: stamp,
      name: 'n'.repeat(2000),
    }),
    JSON.stringify({
      type: 'custom',
      id: 'g',
      parentId: 'f',
      timestamp: stamp,
      customType: 'k',
      data: { blob: 'b'.repeat(4000) },
    }),
  ];
  return `${lines.join('\n')}\n`;
}

/** The row facts and issue count of a full parse of the whole text. */
function fullParseFacts(text: string) {
  const parser = new SessionLineParser();
  const batch = parser.push(Buffer.from(text));
  const facts = emptyRowFacts();
  countEntries(
    facts,
    batch.entries.map(({ entry }) => entry),
  );
  return {
    facts,
    issueCount: batch.issues.length,
    abridged: batch.entries.filter(({ entry }) => isAbridged(entry)).length,
  };
}

describe('SessionIndex', () => {
  it('counts entries, messages, issues, the name and the first message of a file with long lines exactly as a full parse does', async () => {
    const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-index-')));
    folders.push(folder);
    const text = sessionText();
    fs.writeFileSync(path.join(folder, 'listed.jsonl'), text);

    const index = new SessionIndex([{ name: 'root', path: folder }]);
    await index.scan();
    const [session] = index.all();
    const expected = fullParseFacts(text);
    expect(expected.abridged).toBe(0);
    expect(expected.facts).toMatchObject({ entryCount: 5, messageCount: 3, infoName: 'n'.repeat(2000) });
    expect(expected.facts.firstMessage).toHaveLength(300);
    expect(session).toMatchObject({ ...expected.facts, issueCount: expected.issueCount });

    // The index's parser does take the abridged path on this file.
    const listing = new SessionLineParser();
    listing.abridgeLongStrings = true;
    expect(listing.push(Buffer.from(text)).entries.filter(({ entry }) => isAbridged(entry))).toHaveLength(4);
  });

  it('lists a file of many read pieces exactly, with lines cut between pieces and a cut-off last line completed later', async () => {
    const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-index-')));
    folders.push(folder);
    const file = path.join(folder, 'big.jsonl');
    const lines = [JSON.stringify({ type: 'session', version: 3, id: 'big', timestamp: stamp, cwd: '/w' })];
    let parentId: string | null = null;
    // About 3.5 MB of lines of uneven lengths, so piece boundaries fall inside lines (and inside a
    // two-byte character); the first user message comes after the first piece.
    for (let i = 0; i < 1500; i++) {
      const role = i === 900 ? 'user' : 'assistant';
      const text = `${i}:${'é'.repeat(i % 7)}${'w'.repeat(400 + ((i * 977) % 4000))}`;
      lines.push(
        JSON.stringify({
          type: 'message',
          id: `m${i}`,
          parentId,
          timestamp: stamp,
          message: { role, content: [{ type: 'text', text }] },
        }),
      );
      parentId = `m${i}`;
    }
    const last = JSON.stringify({
      type: 'message',
      id: 'tail',
      parentId,
      timestamp: stamp,
      message: { role: 'user', content: 'the end' },
    });
    const text = `${lines.join('\n')}\n`;
    fs.writeFileSync(file, `${text}${last.slice(0, 40)}`);
    expect(fs.statSync(file).size).toBeGreaterThan(3 << 20);

    const index = new SessionIndex([{ name: 'root', path: folder }]);
    await index.scan();
    const expected = fullParseFacts(text);
    expect(expected.facts).toMatchObject({ entryCount: 1500, messageCount: 1500 });
    expect(expected.facts.firstMessage.startsWith('900:')).toBe(true);
    expect(index.all()[0]).toMatchObject({ ...expected.facts, issueCount: 0 });

    // The cut-off line the parser kept is completed by the next read, from where the first stopped.
    fs.appendFileSync(file, `${last.slice(40)}\n`);
    await index.refreshFile(file);
    expect(index.all()[0]).toMatchObject({
      ...fullParseFacts(`${text}${last}\n`).facts,
      entryCount: 1501,
      issueCount: 0,
    });
  });
});

describe('SessionIndex: the first scan of a large folder', () => {
  function folderOf(count: number): { folder: string; files: string[] } {
    const made = smallSessionsFolder(count);
    folders.push(made.folder);
    return made;
  }

  it('hands rows over while it runs, newest files first, and answers only the rest at the end', async () => {
    const { folder, files } = folderOf(70);
    const handed: string[][] = [];
    const index = new SessionIndex([{ name: 'r', path: folder }], undefined, (delta) =>
      handed.push([...delta.upserted].map((id) => index.get(id)!.file)),
    );
    const answered = await index.scan();
    const newestFirst = [...files].reverse();
    expect(handed.length).toBeGreaterThanOrEqual(2);
    expect(handed.flat()).toEqual(newestFirst.slice(0, handed.flat().length));
    expect([...answered.upserted].map((id) => index.get(id)!.file)).toEqual(
      newestFirst.slice(handed.flat().length),
    );
    expect(index.all()).toHaveLength(70);
    expect(index.progress()).toBeUndefined();
  });

  it('knows every id once it has found the files, before reading them, and lists only what it has read', async () => {
    const { folder, files } = folderOf(40);
    const index = new SessionIndex([{ name: 'r', path: folder }]);
    const scanning = index.scan();
    await index.whenFound();
    const oldest = files[0]!;
    const pendingId = [...files].map((file) => index.getByFile(file)).find((s) => s?.file === oldest)?.id;
    expect(pendingId).toBeDefined();
    expect(index.get(pendingId!)?.pending).toBe(true);
    expect(index.all().length).toBeLessThan(40);
    expect(index.progress()).toMatchObject({ total: 40 });
    await scanning;
    expect(index.get(pendingId!)?.pending).toBeUndefined();
    expect(
      index
        .all()
        .map((s) => s.firstMessage)
        .sort(),
    ).toEqual(Array.from({ length: 40 }, (_, k) => `m${k}`).sort());
  });

  it('a file opened while the scan has not read it takes the open row and is never read by the scan', async () => {
    const { folder, files } = folderOf(40);
    const index = new SessionIndex([{ name: 'r', path: folder }]);
    const scanning = index.scan();
    await index.whenFound();
    const oldest = index.getByFile(files[0]!)!;
    const facts = { ...emptyRowFacts(), entryCount: 7, messageCount: 7, firstMessage: 'open row' };
    index.adopt(oldest.id, {
      facts,
      header: { type: 'session', id: 'h0' },
      versionKnown: true,
      identity: oldest.identity,
      issueCount: 0,
    });
    await scanning;
    expect(index.get(oldest.id)).toMatchObject({ entryCount: 7, firstMessage: 'open row', adopted: 'open' });
    expect(index.get(oldest.id)?.offset).toBe(0);
    expect(index.all()).toHaveLength(40);
  });

  it('a file claimed by a session that is still opening is neither read nor dropped by the scan, and is listed once adopted', async () => {
    const { folder, files } = folderOf(40);
    const index = new SessionIndex([{ name: 'r', path: folder }]);
    const scanning = index.scan();
    await index.whenFound();
    // The two oldest are read last: the scan has not reached them yet.
    const newest = index.getByFile(files[1]!)!;
    const oldest = index.getByFile(files[0]!)!;
    index.claim(newest.id);
    index.claim(oldest.id);
    await scanning;
    for (const claimed of [newest, oldest]) {
      expect(index.get(claimed.id)).toBe(claimed);
      expect(claimed.offset).toBe(0);
    }
    expect(index.all()).toHaveLength(38);
    index.adopt(oldest.id, {
      facts: { ...emptyRowFacts(), entryCount: 1, messageCount: 1, firstMessage: 'm0' },
      header: { type: 'session', id: 'h0' },
      versionKnown: true,
      identity: oldest.identity,
      issueCount: 0,
    });
    expect(index.all()).toHaveLength(39);
    // The other open failed: released, the next scan reads it.
    index.release(newest.id);
    await index.scan();
    expect(index.all()).toHaveLength(40);
    expect(index.get(newest.id)?.firstMessage).toBe('m1');
  });

  it('stops at its next turn once told to, listing nothing more', async () => {
    const { folder } = folderOf(40);
    const index = new SessionIndex([{ name: 'r', path: folder }]);
    const scanning = index.scan();
    await index.whenFound();
    index.stop();
    await scanning;
    expect(index.all().length).toBeLessThan(40);
  });
});

describe('resolveRoots', () => {
  it('leaves out a given path that does not exist and says so; the others are read', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-roots-'));
    folders.push(folder);
    const missing = path.join(folder, 'mistyped');
    const warnings: string[] = [];
    const roots = await resolveRoots([missing, folder], os.homedir(), (message) => warnings.push(message));
    expect(roots.map((root) => root.path)).toEqual([fs.realpathSync(folder)]);
    // Before, the missing path was dropped without a word (and start-up named it as a source).
    expect(warnings).toEqual([`${missing} does not exist; no sessions are read from it`]);
  });

  it('warns of nothing when every path exists, and keeps one root per real folder', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-roots-'));
    folders.push(folder);
    const warnings: string[] = [];
    const roots = await resolveRoots([folder, `${folder}/.`], os.homedir(), (message) =>
      warnings.push(message),
    );
    expect(roots).toHaveLength(1);
    expect(warnings).toEqual([]);
  });
});
