// The migration rewrite of a legacy file before its first write (docs/safety.md#migration-rewrite),
// with the file never held whole.
import type { SessionManager } from '@canopy/session-core';
import {
  backupExactSync,
  FileSafetyError,
  lockStateOf,
  replaceConfinedSync,
  seenSync,
} from '../files/confined';
import { closeDescriptorSync, openForReadSync } from '../files/descriptors';
import { droppedLinesOf } from '../files/file-errors';
import { FileTail } from './file-tail';

export interface MigrationRewrite {
  file: string;
  /** What was read of the file: it must still be exactly that. */
  tail: FileTail;
  /** The manager being migrated (its version names the backup; its issues, the lines left out). */
  sm: SessionManager;
  /** The v3 lines, serialised batch by batch as they are written. */
  content: Iterable<Buffer>;
  now: number;
  confined: (realDir: string) => boolean;
  /** Bytes per read of the backup copy (default READ_CHUNK_BYTES); a test seam. */
  pieceBytes?: number;
}

/** What a migration rewrite left: the file's new tail, the backup and the lines it left out. */
export interface Migrated {
  tail: FileTail;
  backup: string;
  droppedLines: number[];
}

/**
 * Through one verified descriptor, the file must still be exactly what was read (hashed again piece
 * by piece), an exact backup is copied beside it piece by piece (see backupExactSync), then the
 * content goes to a temporary file renamed over it (replaceConfinedSync). A new tail takes the
 * pieces as they are written; a failure anywhere throws and leaves the file as it was.
 */
export function rewriteForMigration(rewrite: MigrationRewrite): Migrated {
  const { file, tail, sm } = rewrite;
  const { fd, state } = openForReadSync(file);
  try {
    if (!tail.isExactly(fd, state)) {
      throw new FileSafetyError('changed', 'the file changed before the migration rewrite');
    }
    const lock = lockStateOf(file, rewrite.now);
    if (lock.held) throw new FileSafetyError('locked', `${lock.message}.`);
    const backup = backupExactSync(
      file,
      sm.version ?? 1,
      tail.contentIn(fd),
      state.mode,
      rewrite.confined,
      rewrite.pieceBytes,
    );
    const written = new FileTail(file, rewrite.pieceBytes);
    const pieces = seenSync(rewrite.content, (piece) => written.took(piece));
    const replaced = replaceConfinedSync(file, pieces, state, rewrite.confined);
    written.loaded(replaced, sm.getTitleSlot() !== undefined);
    return { tail: written, backup, droppedLines: droppedLinesOf(sm.issues) };
  } finally {
    closeDescriptorSync(fd);
  }
}
