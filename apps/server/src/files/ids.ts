import { createHash } from 'node:crypto';

/** The opaque session id of a real file path: stable across restarts, reveals nothing of the path. */
export function sessionIdOf(realFile: string): string {
  return createHash('sha256').update(realFile).digest('base64url').slice(0, 22);
}
