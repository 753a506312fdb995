// Canopy repairs its own crashed write (docs/safety.md#crash-repair): a real `kill -9` of a child
// process in the middle of its own 1 MB append (a test seam pauses the write between two partial
// writes and waits on stdin: no sleep), then a restart over the same folders.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerEvent } from '@canopy/protocol';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { AppendJournal, JOURNAL_FOLDER } from '../src/files/append-journal';
import { sessionIdOf as idOfFile } from '../src/files/ids';
import { AUTH, buildTestApp, getSnapshot, sessionIdOf, waitFor } from './helpers';
import { makeSession, sendMessage } from './own-sessions';

const CHILD = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));

interface Folders {
  dir: string;
  root: string;
  stateDir: string;
  file: string;
  original: Buffer;
}

function folders(): Folders {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-crash-')));
  const root = path.join(dir, 'sessions');
  const stateDir = path.join(dir, 'state');
  fs.mkdirSync(root);
  const file = path.join(root, 'a.jsonl');
  fs.writeFileSync(file, makeSession(2).text);
  return { dir, root, stateDir, file, original: fs.readFileSync(file) };
}

/** Runs Canopy in a child until its append is paused after `split` bytes, then kills it with SIGKILL. */
async function crashMidAppend(
  where: Folders,
  split: number | 'whole',
): Promise<{ written: number; length: number }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, where.root, where.stateDir, 'a.jsonl', String(split)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  const paused = await new Promise<{ written: number; length: number }>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /paused (\d+) (\d+)\n/.exec(output);
      if (match) resolve({ written: Number(match[1]), length: Number(match[2]) });
    });
    child.once('exit', (code) => reject(new Error(`the child ended (${code}) before pausing: ${output}`)));
  });
  // The append is recorded before its write, and is half-way now.
  expect(fs.existsSync(path.join(where.stateDir, JOURNAL_FOLDER, idOfFile(where.file)))).toBe(true);
  expect(fs.statSync(where.file).size).toBe(where.original.length + paused.written);
  child.kill('SIGKILL');
  await exited;
  return paused;
}

/** Canopy started again over the same folders, with what it logged and published. */
async function restart(where: Folders) {
  const log: string[] = [];
  const app: FastifyInstance = await buildTestApp(where.dir, where.root, where.stateDir, {
    logger: {
      level: 'warn',
      stream: { write: (line: string) => void log.push(line) },
    },
  });
  return { app, log };
}

/** The notices a page subscribing to the session gets. */
async function noticesOf(app: FastifyInstance, id: string): Promise<ServerEvent[]> {
  const events: ServerEvent[] = [];
  const ws = await app.injectWS(
    '/ws',
    { headers: AUTH },
    {
      onInit: (socket) =>
        socket.on('message', (data) => events.push(JSON.parse(String(data)) as ServerEvent)),
    },
  );
  await waitFor(() => events.some((event) => event.type === 'hello'));
  ws.send(JSON.stringify({ type: 'subscribe', sessionId: id }));
  await waitFor(() => events.some((event) => event.type === 'subscribed'));
  ws.terminate();
  return events.filter((event) => event.type === 'error');
}

describe('a crash in the middle of Canopy’s own append', () => {
  let where: Folders | undefined;
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
    if (where) fs.rmSync(where.dir, { recursive: true, force: true });
    where = undefined;
  });

  for (const [name, split] of [
    ['after its first byte', 1],
    ['half-way through its 1 MB', 500_000],
    ['one byte short of its newline', -1],
  ] as const) {
    it(`${name}: the restart removes exactly its partial line, says so, and writes work again`, async () => {
      where = folders();
      const paused = await crashMidAppend(where, split);
      expect(paused.written).toBe(split > 0 ? split : paused.length - 1);
      const restarted = await restart(where);
      app = restarted.app;
      expect(fs.readFileSync(where.file).equals(where.original)).toBe(true);
      expect(fs.readdirSync(path.join(where.stateDir, JOURNAL_FOLDER))).toEqual([]);
      expect(restarted.log.join('')).toContain('that partial line was removed');
      const id = await sessionIdOf(app, 'a.jsonl');
      const notices = await noticesOf(app, id);
      expect(notices).toEqual([
        expect.objectContaining({
          code: 'WRITE_REPAIRED',
          sessionId: id,
          message: expect.stringContaining(`after ${paused.written} of its ${paused.length} bytes`),
        }),
      ]);
      const written = await sendMessage({ app } as never, id, 'after the repair');
      expect(written.statusCode, written.body).toBe(200);
      const text = fs.readFileSync(where.file, 'utf8');
      expect(text.startsWith(where.original.toString('utf8'))).toBe(true);
      expect(text.slice(where.original.length)).toMatch(/^\{.*"after the repair".*\}\n$/);
    });
  }

  it('killed after its whole line was written: nothing is removed, nothing is reported as damage', async () => {
    where = folders();
    const paused = await crashMidAppend(where, 'whole');
    const restarted = await restart(where);
    app = restarted.app;
    const text = fs.readFileSync(where.file, 'utf8');
    expect(Buffer.byteLength(text)).toBe(where.original.length + paused.length);
    expect(text.slice(where.original.length)).toMatch(/^\{.* end".*\}\n$/);
    expect(fs.readdirSync(path.join(where.stateDir, JOURNAL_FOLDER))).toEqual([]);
    const id = await sessionIdOf(app, 'a.jsonl');
    expect(await noticesOf(app, id)).toEqual([]);
  });

  it('another program wrote after the partial line: the file is left exactly as it is, and that is said', async () => {
    where = folders();
    await crashMidAppend(where, 1 << 18);
    fs.appendFileSync(
      where.file,
      '{"type":"custom","id":"other01","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z"}\n',
    );
    const before = fs.readFileSync(where.file);
    const restarted = await restart(where);
    app = restarted.app;
    expect(fs.readFileSync(where.file).equals(before)).toBe(true);
    const id = await sessionIdOf(app, 'a.jsonl');
    expect(await noticesOf(app, id)).toEqual([
      expect.objectContaining({
        code: 'WRITE_NOT_REPAIRED',
        message: expect.stringContaining('nothing was changed'),
      }),
    ]);
  });

  it('a record found when the session opens (not at start) is repaired before it is read; the record is owner-only', async () => {
    where = folders();
    app = (await restart(where)).app;
    const id = await sessionIdOf(app, 'a.jsonl');
    // What a crashed Canopy sharing this state folder left: its record, then part of its line.
    const journal = new AppendJournal(where.stateDir);
    const stat = fs.statSync(where.file);
    const line = Buffer.from(
      '{"type":"custom","id":"late0001","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z"}\n',
    );
    journal.record({ file: where.file, dev: stat.dev, ino: stat.ino, offset: stat.size, data: line });
    const record = path.join(where.stateDir, JOURNAL_FOLDER, idOfFile(where.file));
    expect(fs.statSync(record).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(record)).mode & 0o777).toBe(0o700);
    fs.appendFileSync(where.file, line.subarray(0, 20));
    const notices = await noticesOf(app, id);
    expect(notices).toEqual([expect.objectContaining({ code: 'WRITE_REPAIRED', sessionId: id })]);
    expect(fs.readFileSync(where.file).equals(where.original)).toBe(true);
    expect(fs.existsSync(record)).toBe(false);
    expect((await getSnapshot(app, id)).issues).toEqual([]);
  });

  it('a record of a file outside the folders read now is kept, and repaired by a later start that reads it', async () => {
    where = folders();
    await crashMidAppend(where, 1000);
    const elsewhere = path.join(where.dir, 'elsewhere');
    fs.mkdirSync(elsewhere);
    const other = await buildTestApp(where.dir, elsewhere, where.stateDir);
    await other.close();
    const record = path.join(where.stateDir, JOURNAL_FOLDER, idOfFile(where.file));
    expect(fs.existsSync(record)).toBe(true);
    expect(fs.statSync(where.file).size).toBe(where.original.length + 1000);
    app = (await restart(where)).app;
    expect(fs.readFileSync(where.file).equals(where.original)).toBe(true);
    expect(fs.existsSync(record)).toBe(false);
  });
});
