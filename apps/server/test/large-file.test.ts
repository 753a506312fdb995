import fs from 'node:fs';
import { assistantMessage } from '@canopy/fixtures';
import path from 'node:path';
import { MemoryStorage, SessionManager } from '@canopy/session-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { outlineOfSession, printOutlines } from '../src/outline';
import { readChunksConfined } from '../src/files/confined';
import { READ_CHUNK_BYTES } from '../src/files/files';
import { AUTH, getSnapshot, sessionIdOf, setup, type TestEnv } from './helpers';

// A session file can be larger than the longest string the runtime holds (about 512 MB), so the
// server must never decode a whole file at once. These tests use files a few read pieces long and
// watch every UTF-8 decode: none may be larger than one piece plus the line cut at its end.

const TEXT_BYTES = 40_000;

/** A session of `count` user/assistant turns of ~40 KB each, written by session-core. */
function sessionText(count: number, prefix: string): string {
  const storage = new MemoryStorage();
  const sm = SessionManager.inMemory('/w', { storage });
  for (let i = 0; i < count; i++) {
    const text = `${prefix} ${i} ${'x'.repeat(TEXT_BYTES)}`;
    if (i % 2 === 0) sm.appendMessage({ role: 'user', content: text, timestamp: i });
    else sm.appendMessage(assistantMessage(text, i));
  }
  return storage.read();
}

function longestLine(text: string): number {
  return Math.max(...text.split('\n').map((line) => Buffer.byteLength(line) + 1));
}

describe('a session file larger than one read piece', () => {
  let env: TestEnv;
  let largestDecode = 0;
  beforeEach(() => {
    largestDecode = 0;
    const decode = TextDecoder.prototype.decode;
    vi.spyOn(TextDecoder.prototype, 'decode').mockImplementation(function (
      this: InstanceType<typeof TextDecoder>,
      input,
      options,
    ) {
      if (input) largestDecode = Math.max(largestDecode, input.byteLength);
      return decode.call(this, input, options);
    });
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await env?.close();
  });

  it('opens, and takes a larger external append, without ever decoding more than one piece at once', async () => {
    // One session cut at a line: the append continues from the leaf, so the leaf follows it.
    const whole = sessionText(Math.ceil((4 * READ_CHUNK_BYTES) / TEXT_BYTES), 'turn');
    const lines = whole.split('\n');
    const cut = Math.ceil(lines.length * 0.6);
    const first = `${lines.slice(0, cut).join('\n')}\n`;
    const more = lines.slice(cut).join('\n');
    expect(Buffer.byteLength(first)).toBeGreaterThan(2 * READ_CHUNK_BYTES);
    expect(Buffer.byteLength(more)).toBeGreaterThan(READ_CHUNK_BYTES);
    env = await setup([]);
    fs.writeFileSync(env.file('big.jsonl'), first);
    await env.restart(); // index the new file
    const id = await sessionIdOf(env.app, 'big.jsonl');

    const expectedFirst = SessionManager.fromJsonl(first).getEntries();
    const firstNodes = (await getSnapshot(env.app, id)).nodes;
    expect(firstNodes.map((node) => node.id)).toEqual(expectedFirst.map((entry) => entry.id));

    fs.appendFileSync(env.file('big.jsonl'), more);
    const body = await getSnapshot(env.app, id);
    const expected = SessionManager.fromJsonl(first + more).getEntries();
    expect(body.nodes.map((node) => node.id)).toEqual(expected.map((entry) => entry.id));
    expect(body.leafId).toBe(expected.at(-1)?.id);

    expect(largestDecode).toBeGreaterThan(0);
    expect(largestDecode).toBeLessThanOrEqual(READ_CHUNK_BYTES + longestLine(first + more));
  });

  it('prints its outline without decoding more than one piece at once, as from the whole text', async () => {
    const text = sessionText(Math.ceil((2.5 * READ_CHUNK_BYTES) / TEXT_BYTES), 'outline');
    env = await setup([]);
    fs.writeFileSync(env.file('big.jsonl'), text);
    let printed = '';
    await printOutlines([env.root], (part) => (printed += part));
    const largest = largestDecode;
    const expected = `${outlineOfSession(env.file('big.jsonl'), Buffer.from(text)).join('\n')}\n\n`;
    expect(printed).toBe(expected);
    expect(largest).toBeLessThanOrEqual(READ_CHUNK_BYTES + longestLine(text));
  });

  it('branches and forks it into files holding exactly the lines the whole-text manager writes, without ever serialising the whole session or decoding more than one piece at once', async () => {
    const text = sessionText(Math.ceil((2.5 * READ_CHUNK_BYTES) / TEXT_BYTES), 'copy');
    const entries = SessionManager.fromJsonl(text).getEntries();
    // A user message in the middle: the branch keeps the path root → its parent.
    const target = entries[2 * Math.floor(entries.length / 4)]!;
    const reference = SessionManager.fromJsonl(text);
    reference.createBranchedSession(target.parentId!);
    const linesAfterHeader = (jsonl: string) => jsonl.slice(jsonl.indexOf('\n') + 1);
    const expectedBranch = linesAfterHeader(reference.toJsonl());
    const expectedFork = linesAfterHeader(text);
    env = await setup([]);
    fs.writeFileSync(env.file('big.jsonl'), text);
    await env.restart();
    const id = await sessionIdOf(env.app, 'big.jsonl');
    largestDecode = 0;
    const toJsonl = vi.spyOn(SessionManager.prototype, 'toJsonl');

    const post = async (url: string, payload?: Record<string, unknown>) => {
      const response = await env.app.inject({
        method: 'POST',
        url,
        headers: AUTH,
        ...(payload ? { payload } : {}),
      });
      expect(response.statusCode).toBe(200);
      return response.json() as { session: { path: string } };
    };
    const fork = await post(`/api/sessions/${id}/fork`);
    const branch = await post(`/api/sessions/${id}/branch`, { entryId: target.id });

    const written = (result: { session: { path: string } }) =>
      fs.readFileSync(path.join(env.root, result.session.path), 'utf8');
    expect(linesAfterHeader(written(fork))).toBe(expectedFork);
    expect(linesAfterHeader(written(branch))).toBe(expectedBranch);
    expect(fs.readFileSync(env.file('big.jsonl'), 'utf8')).toBe(text);
    expect(toJsonl).not.toHaveBeenCalled();
    expect(largestDecode).toBeLessThanOrEqual(READ_CHUNK_BYTES + longestLine(text));
  });
});

describe('readChunksConfined', () => {
  let env: TestEnv;
  afterEach(async () => env.close());

  it('yields the file from the start offset in pieces of at most the asked size', async () => {
    env = await setup([]);
    const file = env.file('bytes.jsonl');
    const content = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
    fs.writeFileSync(file, content);
    const pieces: Buffer[] = [];
    for await (const piece of readChunksConfined(file, 10, 64)) pieces.push(piece);
    expect(pieces.every((piece) => piece.length <= 64)).toBe(true);
    expect(pieces.map((piece) => piece.length)).toEqual([...Array<number>(15).fill(64), 30]);
    expect(Buffer.concat(pieces).equals(content.subarray(10))).toBe(true);
    // A link put in its place is not followed.
    fs.renameSync(file, `${file}.moved`);
    fs.symlinkSync(`${file}.moved`, file);
    await expect(readChunksConfined(file).next()).rejects.toMatchObject({ reason: 'outside-roots' });
  });
});
