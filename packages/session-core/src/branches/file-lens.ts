// One file across branches (docs/branches.md#file-lens): for each branch (a path to a leaf), what its
// tool calls did to that one file. Branches whose changes to it are the same calls are shown once.
import type { SessionEntry } from '../types';
import { FileReconstruction, type FileChangeReport, type UnknownEffect } from './files';

export interface FileLensBranch {
  leafId: string;
  /** Other leaves whose paths made exactly the same changes to the file. */
  sameAs: string[];
  report: FileChangeReport;
  /** Effects on this path that may have changed the file too (bash, unknown tools, …). */
  unknownEffects: UnknownEffect[];
}

/** The changes each branch made to `file`; branches that did not touch it are left out. */
export function fileLens(
  branches: readonly { leafId: string; path: readonly SessionEntry[] }[],
  file: string,
): FileLensBranch[] {
  const out: FileLensBranch[] = [];
  const byCalls = new Map<string, FileLensBranch>();
  for (const { leafId, path } of branches) {
    const reconstruction = new FileReconstruction(file);
    reconstruction.feed(path);
    const report = reconstruction.report();
    const fileReport = report.files.find((f) => f.path === file);
    if (!fileReport) continue;
    const key = fileReport.ops.map((o) => `${o.entryId}:${o.toolCallId}`).join(',');
    const seen = byCalls.get(key);
    if (seen) {
      seen.sameAs.push(leafId);
      continue;
    }
    const branch = { leafId, sameAs: [], report: fileReport, unknownEffects: report.unknownEffects };
    byCalls.set(key, branch);
    out.push(branch);
  }
  return out;
}
