// The files oh-my-pi keeps beside its sessions: image blobs (`<agent dir>/blobs/<sha256>`), saved
// tool outputs (`<session file without .jsonl>/N.<tool>.log`, referred to as `artifact://N`),
// subagent and advisor transcripts in that same folder, and archived `*.jsonl.gz` sessions.
// Every path here comes from a session file, which is user data: names are validated against
// strict patterns, the resolved real path must stay inside its folder, and sizes are capped.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { CURRENT_SESSION_VERSION, isKnownSessionVersion, type SessionHeader } from '@canopy/session-core';
import { AppError } from '../errors';
import { FileSafetyError, readBoundedNoFollow } from './confined';
import { isDirectory, isInside, isNotFound, realpathOrUndefined } from './files';

/** Larger blobs are refused: an image in a chat never needs more. */
export const MAX_BLOB_BYTES = 20 * 1024 * 1024;
/** Artifacts are sent up to this size, with a note on what was left out. */
export const MAX_ARTIFACT_BYTES = 4 * 1024 * 1024;

const BLOB_HASH = /^[a-f0-9]{64}$/;
const ARTIFACT_ID = /^[0-9]{1,9}$/;
/** oh-my-pi sanitizes the tool name in an artifact's file name to these characters. */
const ARTIFACT_FILE = /^([0-9]{1,9})\.([A-Za-z0-9_-]{1,64})\.log$/;

export const ARCHIVE_SUFFIX = '.jsonl.gz';

export function isArchive(file: string): boolean {
  return file.endsWith(ARCHIVE_SUFFIX);
}

/** The session file's name without `.jsonl` / `.jsonl.gz`: its artifacts and subagents folder. */
export function sessionFolderOf(file: string): string {
  if (file.endsWith(ARCHIVE_SUFFIX)) return file.slice(0, -ARCHIVE_SUFFIX.length);
  if (file.endsWith('.jsonl')) return file.slice(0, -'.jsonl'.length);
  return file;
}

/**
 * Why a session opens read-only, or undefined when Canopy may write to it: an archive, or a header
 * whose version is not one Canopy knows (newer, or not a whole number: `{"major": 4}`, `"3"`, 3.5),
 * which must be neither migrated nor written to. `header` is undefined when the file has none;
 * `known` is decided on the version as written (an open session's header may have been migrated in
 * memory since: it passes SessionManager.versionKnown).
 */
export function readOnlyReason(
  file: string,
  header: Pick<SessionHeader, 'version'> | undefined,
  known = isKnownSessionVersion(header),
): string | undefined {
  if (isArchive(file)) return 'An archived session (.jsonl.gz): it is shown read-only.';
  if (!header || known) return undefined;
  const raw: unknown = header.version;
  if (typeof raw === 'number' && Number.isInteger(raw) && raw > CURRENT_SESSION_VERSION) {
    return `Format version ${raw} is newer than the version ${CURRENT_SESSION_VERSION} Canopy knows: it is shown read-only so nothing of it is lost.`;
  }
  const shown = (JSON.stringify(raw) ?? String(raw)).slice(0, 40);
  return `The header's version ${shown} is not a format version Canopy knows (a whole number from 1 to ${CURRENT_SESSION_VERSION}): it is shown read-only so nothing of it is lost.`;
}

export type SubagentKind = 'subagent' | 'advisor';

/**
 * The parent of a transcript kept in a session's folder, as candidate files in order: an advisor
 * (`__advisor*.jsonl`) and a top-level subagent (`<AgentId>.jsonl`) belong to the folder's session;
 * a nested subagent `<Parent>.<Child>.jsonl` to `<Parent>.jsonl` beside it, else the folder's session.
 */
export function subagentParentCandidates(file: string): { kind: SubagentKind; parents: string[] } {
  const dir = path.dirname(file);
  const folderSessions = [`${dir}.jsonl`, `${dir}${ARCHIVE_SUFFIX}`];
  const name = path.basename(sessionFolderOf(file));
  if (name.startsWith('__advisor')) return { kind: 'advisor', parents: folderSessions };
  const lastDot = name.lastIndexOf('.');
  const nested = lastDot > 0 ? [path.join(dir, `${name.slice(0, lastDot)}.jsonl`)] : [];
  return { kind: 'subagent', parents: [...nested, ...folderSessions] };
}

/**
 * The blobs folder of the agent a session belongs to: `blobs/` beside the sessions folder
 * (`~/.omp/agent/blobs`, or `$XDG_DATA_HOME/omp/blobs`), looked for from the session's folder up to
 * the parent of its root. Its real path must lie inside that parent: a `blobs` that links elsewhere
 * is no blobs folder.
 */
export async function blobDirOf(sessionFile: string, rootPath: string): Promise<string | undefined> {
  const stop = path.dirname(rootPath);
  let dir = path.dirname(sessionFile);
  for (let depth = 0; depth < 64; depth++) {
    const candidate = path.join(dir, 'blobs');
    if (await isDirectory(candidate)) {
      // A blobs folder that links out of the agent folder is not the agent's: none is used.
      const real = await realpathOrUndefined(candidate);
      return real !== undefined && isInside(stop, real) ? real : undefined;
    }
    if (dir === stop || !isInside(stop, dir)) return undefined;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}

/** The image types a blob may be served as, by their magic bytes; anything else is refused. */
export function sniffImageType(bytes: Uint8Array): string | undefined {
  const at = (i: number) => bytes[i];
  if (at(0) === 0x89 && at(1) === 0x50 && at(2) === 0x4e && at(3) === 0x47) return 'image/png';
  if (at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return 'image/jpeg';
  if (at(0) === 0x47 && at(1) === 0x49 && at(2) === 0x46 && at(3) === 0x38) return 'image/gif';
  const ascii = (from: number, to: number) => Buffer.from(bytes.subarray(from, to)).toString('latin1');
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

/**
 * A file served beside a session, read through readBoundedNoFollow (never a link, a regular file
 * inside `folder` checked on its descriptor, bounded), its refusals as client errors.
 */
async function readServed(
  folder: string,
  name: string,
  what: string,
  options: { maxBytes: number; truncate?: boolean },
) {
  try {
    return await readBoundedNoFollow(path.join(folder, name), { ...options, inside: [folder] });
  } catch (error) {
    if (!(error instanceof FileSafetyError)) throw error;
    switch (error.reason) {
      case 'deleted':
      case 'not-a-file':
        throw new AppError('NOT_FOUND', `No ${what} ${name}.`);
      case 'outside-roots':
        throw new AppError(
          'OUTSIDE_ROOTS',
          `The ${what} is a link or resolves outside its folder; Canopy does not follow it.`,
        );
      case 'too-large':
        throw new AppError(
          'PAYLOAD_TOO_LARGE',
          `The ${what} is larger than the ${options.maxBytes} bytes Canopy shows.`,
        );
      default:
        throw new AppError('NOT_FOUND', `The ${what} ${name} cannot be read: ${error.message}`);
    }
  }
}

export interface BlobContent {
  bytes: Buffer;
  contentType: string;
}

/**
 * Reads `<blobDir>/<hash>`: the hash is 64 hex digits; the file is opened without following a link,
 * checked on its descriptor (a regular file inside the blobs folder, at most MAX_BLOB_BYTES) and read
 * from it; it is served only as an image its bytes show.
 */
export async function readBlob(blobDir: string | undefined, hash: string): Promise<BlobContent> {
  if (!BLOB_HASH.test(hash))
    throw new AppError('BAD_REQUEST', 'A blob is named by 64 lower-case hex digits.');
  if (!blobDir) throw new AppError('NOT_FOUND', 'This session has no blobs folder.');
  const { bytes } = await readServed(blobDir, hash, 'blob', { maxBytes: MAX_BLOB_BYTES });
  const contentType = sniffImageType(bytes);
  if (!contentType) throw new AppError('INVALID_TARGET', 'The blob is not a PNG, JPEG, GIF or WebP image.');
  return { bytes, contentType };
}

export interface ArtifactContent {
  text: string;
  /** Its file name (`N.<tool>.log`). */
  name: string;
  size: number;
  truncated: boolean;
}

/**
 * Reads artifact N of a session: `<session folder>/N.<tool>.log`. The folder is taken by its real
 * path, which must lie inside the roots (`confined`); the file is read like a blob (no link, a
 * regular file inside that folder, checked on its descriptor), its first MAX_ARTIFACT_BYTES only.
 */
export async function readArtifact(
  sessionFile: string,
  artifactId: string,
  confined: (real: string) => boolean,
): Promise<ArtifactContent> {
  if (!ARTIFACT_ID.test(artifactId)) throw new AppError('BAD_REQUEST', 'An artifact is named by its number.');
  const folder = await realpathOrUndefined(sessionFolderOf(sessionFile));
  if (!folder) throw new AppError('NOT_FOUND', 'This session has no artifacts folder.');
  if (!confined(folder)) {
    throw new AppError(
      'OUTSIDE_ROOTS',
      "The session's artifacts folder resolves outside the configured folders.",
    );
  }
  let names: string[];
  try {
    names = await fsp.readdir(folder);
  } catch (error) {
    if (isNotFound(error)) throw new AppError('NOT_FOUND', 'This session has no artifacts folder.');
    throw error;
  }
  const name = firstArtifactName(names, String(Number(artifactId)));
  if (!name) throw new AppError('NOT_FOUND', `No artifact ${artifactId} in this session.`);
  const read = await readServed(folder, name, 'artifact', { maxBytes: MAX_ARTIFACT_BYTES, truncate: true });
  return { text: read.bytes.toString('utf8'), name, size: read.size, truncated: read.truncated };
}

/** The first (in sort order) of `names` that is artifact `id`: one pass, however many files the folder holds. */
function firstArtifactName(names: readonly string[], id: string): string | undefined {
  let first: string | undefined;
  for (const name of names) {
    if (ARTIFACT_FILE.exec(name)?.[1] === id && (first === undefined || name < first)) first = name;
  }
  return first;
}
