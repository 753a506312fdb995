// oh-my-pi 18.3's stored credentials, read the way it reads them and never written: the table
// `auth_credentials` (id, provider, credential_type 'api_key' | 'oauth', data JSON, disabled_cause)
// of its SQLite `agent.db`. Rows whose `disabled_cause` is set are tombstones oh-my-pi ignores; the
// rest are taken in id order. An `api_key` row's data is `{ key, source? }` (`source: 'login'` for a
// key a /login stored); an `oauth` row's is `{ access, refresh, expires (ms), … }`.
// The file and its WAL are read through readBoundedNoFollow (bounded, no link followed) and opened
// in memory by sql.js (SQLite compiled to WebAssembly): SQLite's own file I/O never touches them.
// See docs/summaries.md#where-credentials-come-from.
import path from 'node:path';
import type initSqlJs from 'sql.js';
import { readBoundedNoFollow } from '../files/confined';
import { isDirectorySync } from '../files/files';
import { applyWal } from './sqlite-wal';

/** agent.db holds usage history too; a larger file than this is not read. */
export const AGENT_DB_MAX_BYTES = 64 * 1024 * 1024;

export type OmpCredential =
  | { id: number; provider: string; type: 'api_key'; key: string; login: boolean }
  | {
      id: number;
      provider: string;
      type: 'oauth';
      access: string;
      refresh: string;
      expires: number;
      data: Record<string, unknown>;
    };

/**
 * Where oh-my-pi keeps agent.db: `<agent dir>/agent.db`, or `$XDG_DATA_HOME/omp/agent.db` on Linux
 * and macOS when the agent folder is the default one and that folder exists (after `omp config
 * init-xdg`; a named profile uses `$XDG_DATA_HOME/omp/profiles/<name>` the same way).
 */
export function ompAgentDbPath(
  env: NodeJS.ProcessEnv,
  agentDir: string,
  defaultAgentDir: string,
  profile: string | undefined,
  isDirectory: (folder: string) => boolean = isDirectorySync,
): string {
  const xdg = env.XDG_DATA_HOME;
  if (
    xdg &&
    agentDir === defaultAgentDir &&
    (process.platform === 'linux' || process.platform === 'darwin')
  ) {
    const root = profile ? path.join(xdg, 'omp', 'profiles', profile) : path.join(xdg, 'omp');
    if (isDirectory(root)) return path.join(root, 'agent.db');
  }
  return path.join(agentDir, 'agent.db');
}

type SqlJs = Awaited<ReturnType<typeof initSqlJs>>;
let sqlJs: Promise<SqlJs> | undefined;

/** sql.js, loaded on first use (its WebAssembly is ~650 KB). */
function loadSqlJs(): Promise<SqlJs> {
  sqlJs ??= import('sql.js').then((module) => module.default());
  return sqlJs;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function credentialOf(id: number, provider: string, type: string, data: string): OmpCredential | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  if (type === 'api_key' && typeof parsed.key === 'string')
    return { id, provider, type, key: parsed.key, login: parsed.source === 'login' };
  if (
    type === 'oauth' &&
    typeof parsed.access === 'string' &&
    typeof parsed.refresh === 'string' &&
    typeof parsed.expires === 'number'
  )
    return {
      id,
      provider,
      type,
      access: parsed.access,
      refresh: parsed.refresh,
      expires: parsed.expires,
      data: parsed,
    };
  return undefined;
}

/**
 * The active credentials of agent.db, in id order; undefined when there is no agent.db. Throws an
 * Error naming the file when it cannot be read or is not a database.
 */
export async function readOmpCredentials(file: string): Promise<OmpCredential[] | undefined> {
  let db: Uint8Array;
  try {
    db = (await readBoundedNoFollow(file, { maxBytes: AGENT_DB_MAX_BYTES })).bytes;
  } catch (error) {
    if ((error as { reason?: string }).reason === 'deleted') return undefined;
    throw new Error(`${file} cannot be read: ${(error as Error).message}`);
  }
  let wal: Uint8Array | undefined;
  try {
    wal = (await readBoundedNoFollow(`${file}-wal`, { maxBytes: AGENT_DB_MAX_BYTES })).bytes;
  } catch (error) {
    if ((error as { reason?: string }).reason !== 'deleted')
      throw new Error(`${file}-wal cannot be read: ${(error as Error).message}`);
  }
  const SQL = await loadSqlJs();
  let database: InstanceType<SqlJs['Database']> | undefined;
  try {
    database = new SQL.Database(applyWal(db, wal));
    const columns = database.exec('PRAGMA table_info(auth_credentials)')[0]?.values.map((row) => row[1]);
    if (!columns || columns.length === 0) return [];
    const active = columns.includes('disabled_cause') ? 'WHERE disabled_cause IS NULL' : '';
    const rows =
      database.exec(
        `SELECT id, provider, credential_type, data FROM auth_credentials ${active} ORDER BY id ASC`,
      )[0]?.values ?? [];
    const credentials: OmpCredential[] = [];
    for (const [id, provider, type, data] of rows) {
      if (typeof id !== 'number' || typeof provider !== 'string' || typeof type !== 'string') continue;
      if (typeof data !== 'string') continue;
      const credential = credentialOf(id, provider, type, data);
      if (credential) credentials.push(credential);
    }
    return credentials;
  } catch (error) {
    throw new Error(`${file} is not a database Canopy can read: ${(error as Error).message}`);
  } finally {
    database?.close();
  }
}
