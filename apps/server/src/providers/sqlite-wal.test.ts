import initSqlJs from 'sql.js';
import { describe, expect, it } from 'vitest';
import { agentDbImages, asWalDatabase, walOf } from '../../test/omp-agent';
import { applyWal } from './sqlite-wal';

const key = (n: number) => ({ provider: 'openai', type: 'api_key' as const, key: `sk-row-${n}-0123456789` });

async function keysIn(image: Uint8Array): Promise<string[]> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(image);
  try {
    const rows = db.exec('SELECT data FROM auth_credentials ORDER BY id')[0]?.values ?? [];
    return rows.map((row) => (JSON.parse(String(row[0])) as { key: string }).key);
  } finally {
    db.close();
  }
}

describe('applyWal: the database as a reader sees it', () => {
  it('lays the committed frames over the database file, so rows only in the WAL are read', async () => {
    const { before, after } = await agentDbImages([key(1)], [key(2), key(3)]);
    const onDisk = asWalDatabase(before);
    const image = applyWal(onDisk, walOf(onDisk, asWalDatabase(after)));
    expect(image).toEqual(after);
    expect(await keysIn(image)).toEqual([
      'sk-row-1-0123456789',
      'sk-row-2-0123456789',
      'sk-row-3-0123456789',
    ]);
    // The file on disk is untouched.
    expect(onDisk[18]).toBe(2);
  });

  it('leaves out frames after the last commit (an unfinished transaction)', async () => {
    const { before, after } = await agentDbImages([key(1)], [key(2)]);
    const onDisk = asWalDatabase(before);
    const pageSize = (after[16]! << 8) | after[17]!;
    const garbage = new Uint8Array(pageSize).fill(7);
    const wal = walOf(onDisk, asWalDatabase(after), { uncommitted: [{ page: 2, content: garbage }] });
    expect(applyWal(onDisk, wal)).toEqual(after);
  });

  it('stops at a frame whose checksum fails: neither it nor the rest of its transaction is applied', async () => {
    const { before, after } = await agentDbImages([key(1)], [key(2)]);
    const onDisk = asWalDatabase(before);
    const wal = walOf(onDisk, asWalDatabase(after), { corruptFrame: 0 });
    const image = applyWal(onDisk, wal);
    expect(await keysIn(image)).toEqual(['sk-row-1-0123456789']);
  });

  it('ignores a WAL whose header checksum or magic is wrong', async () => {
    const { before, after } = await agentDbImages([key(1)], [key(2)]);
    const onDisk = asWalDatabase(before);
    const wal = walOf(onDisk, asWalDatabase(after));
    const badHeader = Uint8Array.from(wal);
    badHeader[25] = (badHeader[25] ?? 0) ^ 0xff;
    expect(await keysIn(applyWal(onDisk, badHeader))).toEqual(['sk-row-1-0123456789']);
    const badMagic = Uint8Array.from(wal);
    badMagic[3] = 0x00;
    expect(await keysIn(applyWal(onDisk, badMagic))).toEqual(['sk-row-1-0123456789']);
  });

  it('with no WAL, marks the image as a rollback-journal database and changes nothing else', async () => {
    const { before } = await agentDbImages([key(1)]);
    const image = applyWal(asWalDatabase(before), undefined);
    expect(image).toEqual(before);
    expect(await keysIn(image)).toEqual(['sk-row-1-0123456789']);
  });

  it('reads a database that exists only in its WAL (an empty main file)', async () => {
    const { before, after } = await agentDbImages([], [key(1)]);
    const wal = walOf(new Uint8Array(0), asWalDatabase(after));
    expect(applyWal(new Uint8Array(0), wal)).toEqual(after);
    expect(before.length).toBeGreaterThan(0);
  });
});
