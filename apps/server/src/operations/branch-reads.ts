// The compare view and the files of a path, served from an open session (docs/branches.md): the
// paths are read back through the session's manager (`getBranch`: only their entries), the work is
// session-core's. File reconstruction of a long path runs in slices with the event loop turning
// between them, so one big request never holds the server for long.
import { setImmediate as turn } from 'node:timers/promises';
import {
  FILE_LENS_MAX_BRANCHES,
  type CompareResponse,
  type FileLensResponse,
  type FilesResponse,
} from '@canopy/protocol';
import {
  compareBranches,
  FileReconstruction,
  fileLens,
  type SessionEntry,
  type SessionManager,
} from '@canopy/session-core';
import { AppError } from '../errors';
import type { SessionStore } from '../session-store';

/** Entries reconstructed between two turns of the event loop. */
export const FILES_SLICE_ENTRIES = 2_000;

function pathTo(sm: SessionManager, id: string): SessionEntry[] {
  if (!sm.getShape(id)) throw new AppError('ENTRY_NOT_FOUND', `No entry ${id} in this session.`);
  return sm.getBranch(id);
}

/** Feeds a path in slices, yielding between them. */
async function feedSliced(
  reconstruction: FileReconstruction,
  entries: readonly SessionEntry[],
): Promise<void> {
  for (let i = 0; i < entries.length; i += FILES_SLICE_ENTRIES) {
    reconstruction.feed(entries.slice(i, i + FILES_SLICE_ENTRIES));
    if (i + FILES_SLICE_ENTRIES < entries.length) await turn();
  }
}

/** Every leaf (an entry without children), newest in the file first. */
function leavesOf(sm: SessionManager): string[] {
  const leaves: string[] = [];
  const stack: (string | null)[] = [null];
  while (stack.length > 0) {
    const parent = stack.pop() as string | null;
    const children = sm.getChildShapes(parent);
    if (children.length === 0 && parent !== null) leaves.push(parent);
    for (const child of children) stack.push(child.id);
  }
  return leaves.sort((a, b) => (sm.getPosition(b) ?? 0) - (sm.getPosition(a) ?? 0));
}

export class BranchReads {
  constructor(private readonly store: SessionStore) {}

  private async manager(id: string): Promise<SessionManager> {
    const session = await this.store.open(id);
    await session.refresh();
    return session.sm;
  }

  async compare(id: string, a: string, b: string): Promise<CompareResponse> {
    const sm = await this.manager(id);
    return compareBranches(pathTo(sm, a), pathTo(sm, b));
  }

  async files(id: string, at: string | undefined, from: string | undefined): Promise<FilesResponse> {
    const sm = await this.manager(id);
    const leaf = at ?? sm.getLeafId();
    const path = leaf === null ? [] : pathTo(sm, leaf);
    let start = 0;
    if (from !== undefined) {
      start = path.findIndex((entry) => entry.id === from) + 1;
      if (start === 0) throw new AppError('INVALID_TARGET', `Entry ${from} is not on the path to ${leaf}.`);
    }
    const reconstruction = new FileReconstruction();
    await feedSliced(reconstruction, path.slice(0, start));
    if (start > 0) reconstruction.rebase();
    await feedSliced(reconstruction, path.slice(start));
    return { at: leaf, ...reconstruction.report() };
  }

  async fileLens(id: string, file: string): Promise<FileLensResponse> {
    const sm = await this.manager(id);
    const leaves = leavesOf(sm);
    const read = leaves.slice(0, FILE_LENS_MAX_BRANCHES);
    const branches = [];
    for (const leafId of read) {
      branches.push({ leafId, path: sm.getBranch(leafId) });
      await turn();
    }
    return { path: file, branches: fileLens(branches, file), omittedBranches: leaves.length - read.length };
  }
}
