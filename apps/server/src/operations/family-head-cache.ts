// The heads of family members already read, kept while their files stay as they were: the page
// asks for the family again after every change of the open file (a live agent's every append), and
// reading the heads of a 50-file family anew each time took ~0.6 s of the server's thread. Keyed by
// the file and the size and modification time the session list gives it (the index keeps them up to
// date, a same-size rewrite included); bounded by the entries the heads hold.
import type { FamilyHeadRead } from '../files/family-heads';

/** The most head entries kept in all (about 100 bytes each). */
export const FAMILY_HEAD_CACHE_ENTRIES = 500_000;

export interface FileVersion {
  file: string;
  size: number;
  mtime: number;
}

export class FamilyHeadCache {
  private readonly heads = new Map<string, { key: string; read: FamilyHeadRead; entries: number }>();
  private entries = 0;

  constructor(private readonly maxEntries = FAMILY_HEAD_CACHE_ENTRIES) {}

  /** The head read of this version of the file, reading it (with `read`) when not kept. */
  async get(version: FileVersion, read: () => Promise<FamilyHeadRead>): Promise<FamilyHeadRead> {
    const key = `${version.size}:${version.mtime}`;
    const kept = this.heads.get(version.file);
    if (kept?.key === key) {
      // The most recently used last: the oldest go first when the bound is reached.
      this.heads.delete(version.file);
      this.heads.set(version.file, kept);
      return kept.read;
    }
    const fresh = await read();
    this.forget(version.file);
    const entries = fresh.reader.parsed.head.length;
    this.heads.set(version.file, { key, read: fresh, entries });
    this.entries += entries;
    // Oldest first (a Map iterates in insertion order); never the head just read.
    for (const file of this.heads.keys()) {
      if (this.entries <= this.maxEntries || file === version.file) break;
      this.forget(file);
    }
    return fresh;
  }

  private forget(file: string): void {
    const kept = this.heads.get(file);
    if (!kept) return;
    this.entries -= kept.entries;
    this.heads.delete(file);
  }

  /** How many files' heads are kept (for tests). */
  get size(): number {
    return this.heads.size;
  }
}
