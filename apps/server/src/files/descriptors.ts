// A session file open for reading as one verified descriptor, for the code outside files/ that reads
// it over several steps (an open session's whole read, the list's reading of a file): confined.ts
// opens and checks it, and it is closed here, so node:fs stays inside files/
// (docs/architecture.md#invariants).
import fs from 'node:fs';
import { openConfinedSync, stateOf, type FileState } from './confined';

/** A descriptor verified to be `file` inside the roots, and the file as it was when opened. */
export interface ReadDescriptor {
  fd: number;
  state: FileState;
}

/** Opens a session file for reading (see openConfinedSync: no link followed, its real path checked). */
export function openForReadSync(file: string): ReadDescriptor {
  const { fd, stat } = openConfinedSync(file, fs.constants.O_RDONLY);
  return { fd, state: stateOf(stat) };
}

export function closeDescriptorSync(fd: number): void {
  fs.closeSync(fd);
}
