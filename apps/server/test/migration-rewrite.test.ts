// The migration rewrite of a legacy file (docs/safety.md#migration-rewrite) never holds the file
// whole: the check that the file is still what was read, the backup and the new v3 file are each
// read and written in pieces. These tests watch every read and write the server makes on the files of
// the session folder, with a small piece size, and break writes half-way.
import fs from 'node:fs';
import * as reference from '@mariozechner/pi-coding-agent';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { getSnapshot, sessionIdOf } from './helpers';
import { sendMessage, setupOwn, type OwnEnv } from './own-sessions';

const PIECE_BYTES = 1024;
const TURNS = 120;

/** A legacy v1 session (no ids, no version) of `turns` exchanges, some 60 KB. */
function legacyV1(turns: number): string {
  const header = { type: 'session', id: 'legacy-1', timestamp: '2025-01-01T00:00:00.000Z', cwd: '/w' };
  const lines = [JSON.stringify(header)];
  for (let turn = 0; turn < turns; turn++) {
    lines.push(
      JSON.stringify({
        type: 'message',
        timestamp: '2025-01-01T00:00:01.000Z',
        message: {
          role: 'user',
          content: [{ type: 'text', text: `question ${turn} ${'q'.repeat(150)}` }],
          timestamp: 1,
        },
      }),
      JSON.stringify({
        type: 'message',
        timestamp: '2025-01-01T00:00:02.000Z',
        message: {
          role: 'assistant',
          content: [{ type: 'text', text: `answer ${turn} ${'a'.repeat(150)}` }],
          provider: 'p',
          model: 'm',
          timestamp: 2,
        },
      }),
    );
  }
  return `${lines.join('\n')}\n`;
}

interface Io {
  path: string;
  kind: 'read' | 'write';
  bytes: number;
}

/**
 * Records every read and write (bytes asked for) on a descriptor of a file in `folder`; `failWrite`
 * may throw instead of a write (a full disk half-way).
 */
function watchIo(folder: string, failWrite: (path: string) => boolean = () => false): Io[] {
  const io: Io[] = [];
  const pathOf = (fd: number): string | undefined => {
    try {
      const linked = fs.readlinkSync(`/proc/self/fd/${fd}`);
      return linked.startsWith(`${folder}/`) ? linked : undefined;
    } catch {
      return undefined;
    }
  };
  const readSync = fs.readSync.bind(fs) as (...args: unknown[]) => number;
  const writeSync = fs.writeSync.bind(fs) as (...args: unknown[]) => number;
  vi.spyOn(fs, 'readSync').mockImplementation(((fd: number, ...rest: unknown[]) => {
    const file = pathOf(fd);
    if (file !== undefined) io.push({ path: file, kind: 'read', bytes: Number(rest[2]) });
    return readSync(fd, ...rest);
  }) as typeof fs.readSync);
  vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, ...rest: unknown[]) => {
    const file = pathOf(fd);
    if (file !== undefined) {
      const data = rest[0] as Uint8Array;
      const bytes = typeof rest[2] === 'number' ? rest[2] : data.length;
      io.push({ path: file, kind: 'write', bytes });
      if (failWrite(file))
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
          code: 'ENOSPC',
          syscall: 'write',
        });
    }
    return writeSync(fd, ...rest);
  }) as typeof fs.writeSync);
  return io;
}

/** Files of the folder a failed rewrite could leave behind: temporary files and backups. */
function leftovers(env: OwnEnv): string[] {
  return fs.readdirSync(env.root).filter((name) => name.endsWith('.tmp') || name.endsWith('.bak'));
}

describe('the migration rewrite of a legacy file', () => {
  let env: OwnEnv;
  let original: Buffer;
  let id: string;
  beforeEach(async () => {
    env = await setupOwn({ 'old.jsonl': legacyV1(TURNS) }, { quietWindowMs: 0, pieceBytes: PIECE_BYTES });
    original = fs.readFileSync(env.file('old.jsonl'));
    id = await sessionIdOf(env.app, 'old.jsonl');
    expect((await getSnapshot(env.app, id)).nodes).toHaveLength(2 * TURNS);
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await env.close();
  });

  it('reads and writes the file, its backup and the new file in pieces, never whole', async () => {
    const io = watchIo(env.root);
    const response = await sendMessage(env, id, 'after the migration');
    vi.restoreAllMocks();
    expect(response.statusCode).toBe(200);
    const file = env.file('old.jsonl');
    expect(fs.readFileSync(`${file}.v1.bak`).equals(original)).toBe(true);
    const migrated = fs.readFileSync(file);
    expect(JSON.parse(migrated.toString('utf8').split('\n')[0]!)).toMatchObject({ version: 3 });
    expect(reference.SessionManager.open(file).getEntries()).toHaveLength(2 * TURNS + 1);

    const total = (kind: Io['kind'], path: (name: string) => boolean) =>
      io.filter((op) => op.kind === kind && path(op.path)).reduce((sum, op) => sum + op.bytes, 0);
    const isBackupTemp = (name: string) => name.endsWith('.bak.tmp');
    const isNewTemp = (name: string) => name.endsWith('.tmp') && !isBackupTemp(name);
    // The original checked and copied, the backup copied and read back, the new file written.
    expect(total('read', (name) => name === file)).toBeGreaterThanOrEqual(2 * original.length);
    expect(total('write', isBackupTemp)).toBe(original.length);
    expect(total('read', isBackupTemp)).toBeGreaterThanOrEqual(original.length);
    expect(total('write', isNewTemp)).toBeGreaterThan(original.length);
    expect(Math.max(...io.filter((op) => op.kind === 'read').map((op) => op.bytes))).toBeLessThanOrEqual(
      PIECE_BYTES,
    );
    // A batch of whole lines closes once it reaches the piece size: at most one line past it.
    const longestLine = Math.max(
      ...migrated
        .toString('utf8')
        .split('\n')
        .map((line) => line.length + 1),
    );
    const largestWrite = Math.max(...io.filter((op) => op.kind === 'write').map((op) => op.bytes));
    expect(largestWrite).toBeLessThan(PIECE_BYTES + longestLine);
    expect(largestWrite).toBeLessThan(original.length / 10);
  });

  it.each([
    ['the new file', (name: string) => name.endsWith('.tmp') && !name.endsWith('.bak.tmp')],
    ['the backup', (name: string) => name.endsWith('.bak.tmp')],
  ])(
    'a full disk half-way through writing %s: DISK_FULL, the file byte-identical, nothing left beside it, and the next write migrates it',
    async (_what, target) => {
      let writes = 0;
      watchIo(env.root, (name) => target(name) && ++writes === 3);
      const response = await sendMessage(env, id, 'lost');
      vi.restoreAllMocks();
      expect(writes).toBe(3);
      expect(original.length).toBeGreaterThan(10 * PIECE_BYTES);
      expect(response.statusCode).toBe(507);
      expect((response.json() as { error: { code: string } }).error.code).toBe('DISK_FULL');
      const file = env.file('old.jsonl');
      expect(fs.readFileSync(file).equals(original)).toBe(true);
      expect(leftovers(env)).toEqual(target('x.bak.tmp') ? [] : ['old.jsonl.v1.bak']);
      expect((await getSnapshot(env.app, id)).nodes).toHaveLength(2 * TURNS);

      const retry = await sendMessage(env, id, 'kept');
      expect(retry.statusCode).toBe(200);
      expect(fs.readFileSync(`${file}.v1.bak`).equals(original)).toBe(true);
      expect(leftovers(env)).toEqual(['old.jsonl.v1.bak']);
      const entries = reference.SessionManager.open(file).getEntries();
      expect(entries).toHaveLength(2 * TURNS + 1);
      expect(JSON.stringify(entries.at(-1))).toContain('kept');
    },
  );
});
