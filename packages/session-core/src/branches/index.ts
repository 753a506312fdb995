// Public API of the branch comparison and file reconstruction (docs/branches.md).
export {
  alignTurns,
  commonAncestor,
  compareBranches,
  finalAnswer,
  laneTurns,
  rollUpLane,
  sharedPrefixLength,
} from './compare';
export type {
  AlignedTurns,
  BranchComparison,
  CompareLane,
  LaneRollup,
  LaneTurn,
  UsageTotals,
} from './compare';
export {
  FileReconstruction,
  READ_ONLY_TOOLS,
  patchReplacements,
  reconstructFiles,
  toolCallPath,
} from './files';
export type {
  FailedCall,
  FileChangeReport,
  FileOperation,
  FilesReport,
  NetHunk,
  UnknownEffect,
  UnknownEffectReason,
} from './files';
export { fileLens } from './file-lens';
export type { FileLensBranch } from './file-lens';
export { MAX_DIFF_DISTANCE, countChanges, diffLines, hunksOf, splitLines } from './line-diff';
export type { DiffHunk, DiffLine } from './line-diff';
