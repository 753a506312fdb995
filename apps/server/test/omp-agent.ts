// A temporary oh-my-pi agent.db for tests, made by the same SQLite (sql.js) Canopy reads it with, with
// oh-my-pi 18.3's schema of `auth_credentials` (pi-ai's sqlite-credential-store.ts), and a WAL
// writer that puts the newest rows in `agent.db-wal` only, as oh-my-pi leaves them before a
// checkpoint (https://www.sqlite.org/fileformat2.html#walformat).
import fs from 'node:fs';
import initSqlJs from 'sql.js';

export type TestCredential =
  | { provider: string; type: 'api_key'; key: string; source?: 'login'; disabled?: string }
  | {
      provider: string;
      type: 'oauth';
      access: string;
      refresh: string;
      expires: number;
      disabled?: string;
    };

const SCHEMA = `
  CREATE TABLE auth_schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
  INSERT INTO auth_schema_version (id, version) VALUES (1, 8);
  CREATE TABLE auth_credentials (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    provider TEXT NOT NULL,
    credential_type TEXT NOT NULL,
    data TEXT NOT NULL,
    disabled_cause TEXT DEFAULT NULL,
    identity_key TEXT DEFAULT NULL,
    created_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s','now') AS INTEGER)),
    updated_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s','now') AS INTEGER))
  );
  CREATE INDEX idx_auth_provider ON auth_credentials(provider);
  CREATE TABLE cache (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER NOT NULL);
`;

type Database = InstanceType<Awaited<ReturnType<typeof initSqlJs>>['Database']>;

function insert(db: Database, credentials: readonly TestCredential[]) {
  for (const credential of credentials) {
    const data =
      credential.type === 'api_key'
        ? { key: credential.key, ...(credential.source ? { source: credential.source } : {}) }
        : { access: credential.access, refresh: credential.refresh, expires: credential.expires };
    db.run(
      'INSERT INTO auth_credentials (provider, credential_type, data, disabled_cause) VALUES (?, ?, ?, ?)',
      [credential.provider, credential.type, JSON.stringify(data), credential.disabled ?? null],
    );
  }
}

/** Database images: `before` holds `checkpointed`, `after` also `inWal`. */
export async function agentDbImages(
  checkpointed: readonly TestCredential[],
  inWal: readonly TestCredential[] = [],
): Promise<{ before: Uint8Array; after: Uint8Array }> {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.run(SCHEMA);
  insert(db, checkpointed);
  const before = db.export();
  insert(db, inWal);
  const after = db.export();
  db.close();
  return { before, after };
}

function checksum(bytes: Uint8Array, seed: [number, number]): [number, number] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let [s0, s1] = seed;
  for (let offset = 0; offset < bytes.length; offset += 8) {
    s0 = (s0 + view.getUint32(offset, true) + s1) >>> 0;
    s1 = (s1 + view.getUint32(offset + 4, true) + s0) >>> 0;
  }
  return [s0, s1];
}

/** A frame to write after the committed ones, with no commit (a transaction oh-my-pi has not finished). */
export interface UncommittedFrame {
  page: number;
  content: Uint8Array;
}

/**
 * A WAL (little-endian checksums) turning `before` into `after`: the pages that differ, the last
 * one marked as the commit, then `uncommitted` frames. `corruptFrame` flips a byte of that frame's page.
 */
export function walOf(
  before: Uint8Array,
  after: Uint8Array,
  options: { uncommitted?: UncommittedFrame[]; salts?: [number, number]; corruptFrame?: number } = {},
): Uint8Array {
  const pageSize = (after[16]! << 8) | after[17]!;
  const [salt1, salt2] = options.salts ?? [0x01020304, 0x05060708];
  const header = new Uint8Array(32);
  const headerView = new DataView(header.buffer);
  headerView.setUint32(0, 0x377f0682);
  headerView.setUint32(4, 3007000);
  headerView.setUint32(8, pageSize);
  headerView.setUint32(12, 0);
  headerView.setUint32(16, salt1);
  headerView.setUint32(20, salt2);
  let sums = checksum(header.subarray(0, 24), [0, 0]);
  headerView.setUint32(24, sums[0]);
  headerView.setUint32(28, sums[1]);
  const pages = after.length / pageSize;
  const changed: number[] = [];
  for (let page = 1; page <= pages; page++) {
    const start = (page - 1) * pageSize;
    const a = after.subarray(start, start + pageSize);
    const b = before.subarray(start, start + pageSize);
    if (b.length !== a.length || a.some((byte, index) => byte !== b[index])) changed.push(page);
  }
  const frames: Array<{ page: number; commit: number; content: Uint8Array }> = changed.map((page, index) => ({
    page,
    commit: index === changed.length - 1 ? pages : 0,
    content: Uint8Array.from(after.subarray((page - 1) * pageSize, page * pageSize)),
  }));
  for (const frame of options.uncommitted ?? []) frames.push({ ...frame, commit: 0 });
  const out = new Uint8Array(32 + frames.length * (24 + pageSize));
  out.set(header);
  frames.forEach((frame, index) => {
    const offset = 32 + index * (24 + pageSize);
    const view = new DataView(out.buffer, offset, 24);
    view.setUint32(0, frame.page);
    view.setUint32(4, frame.commit);
    view.setUint32(8, salt1);
    view.setUint32(12, salt2);
    sums = checksum(out.subarray(offset, offset + 8), sums);
    sums = checksum(frame.content, sums);
    view.setUint32(16, sums[0]);
    view.setUint32(20, sums[1]);
    out.set(frame.content, offset + 24);
    if (options.corruptFrame === index) out[offset + 24 + 100] = (out[offset + 24 + 100]! + 1) & 0xff;
  });
  return out;
}

/** The image as oh-my-pi leaves it on disk: marked as a WAL database (header bytes 18–19 = 2). */
export function asWalDatabase(image: Uint8Array): Uint8Array {
  const copy = Uint8Array.from(image);
  copy[18] = 2;
  copy[19] = 2;
  return copy;
}

/**
 * Writes `<file>` (the checkpointed rows) and, when `inWal` is given, `<file>-wal` holding the others,
 * as a running oh-my-pi leaves them.
 */
export async function writeAgentDb(
  file: string,
  checkpointed: readonly TestCredential[],
  inWal?: readonly TestCredential[],
): Promise<void> {
  const { before, after } = await agentDbImages(checkpointed, inWal ?? []);
  if (!inWal) {
    fs.writeFileSync(file, asWalDatabase(before));
    fs.rmSync(`${file}-wal`, { force: true });
    return;
  }
  fs.writeFileSync(file, asWalDatabase(before));
  fs.writeFileSync(`${file}-wal`, walOf(asWalDatabase(before), asWalDatabase(after)));
}
