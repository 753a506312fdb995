// Compare two branches, and the files a path changed (docs/branches.md): the bodies of
// GET /api/sessions/:id/compare, /files and /file-lens. The shapes are session-core's
// `BranchComparison`, `FilesReport` and `FileLensBranch` (checked by `Assert` below).
import { Type, type Static } from '@sinclair/typebox';
import type { BranchComparison, FileLensBranch, FilesReport } from '@canopy/session-core';
import { EntryId, Nullable } from './common';
import type { Assert, SameType } from './vocabulary';

const Int = Type.Integer({ minimum: 0 });

export const DiffLine = Type.Object({
  kind: Type.Union([Type.Literal(' '), Type.Literal('-'), Type.Literal('+')]),
  text: Type.String(),
});
export const DiffHunk = Type.Object({
  oldStart: Type.Integer(),
  newStart: Type.Integer(),
  lines: Type.Array(DiffLine),
});

const UsageTotals = Type.Object({
  input: Type.Number(),
  output: Type.Number(),
  cacheRead: Type.Number(),
  cacheWrite: Type.Number(),
  totalTokens: Type.Number(),
  cost: Type.Number(),
  entries: Int,
});

const LaneRollup = Type.Object({
  entries: Int,
  turns: Int,
  toolCalls: Int,
  toolErrors: Int,
  errors: Int,
  aborts: Int,
  models: Type.Array(Type.String()),
  modelChanges: Int,
  thinkingChanges: Type.Array(Type.String()),
  usage: UsageTotals,
  usageBySource: Type.Record(Type.String(), UsageTotals),
  wallMs: Nullable(Type.Number()),
});

const LaneTurn = Type.Object({
  userId: Nullable(Type.String()),
  userText: Type.String(),
  entryIds: Type.Array(Type.String()),
});

const CompareLane = Type.Object({
  leafId: Type.String(),
  entryIds: Type.Array(Type.String()),
  turns: Type.Array(LaneTurn),
  rollup: LaneRollup,
  answer: Type.Optional(Type.Object({ entryId: Type.String(), text: Type.String() })),
});

export const CompareQuery = Type.Object({ a: EntryId, b: EntryId });
export type CompareQuery = Static<typeof CompareQuery>;

export const CompareResponse = Type.Object({
  ancestorId: Nullable(Type.String()),
  sharedIds: Type.Array(Type.String()),
  a: CompareLane,
  b: CompareLane,
  rows: Type.Array(Type.Object({ a: Nullable(Int), b: Nullable(Int), same: Type.Boolean() })),
  answerDiff: Type.Array(DiffLine),
  answerChanges: Type.Object({ added: Int, removed: Int }),
});
export type CompareResponse = Static<typeof CompareResponse>;

const FileOperation = Type.Object({
  entryId: Type.String(),
  resultId: Type.String(),
  toolCallId: Type.String(),
  tool: Type.String(),
  kind: Type.Union([
    Type.Literal('write'),
    Type.Literal('edit'),
    Type.Literal('delete'),
    Type.Literal('move'),
  ]),
  added: Int,
  removed: Int,
  hunks: Type.Array(DiffHunk),
  unplaced: Type.Optional(Type.Boolean()),
  movedTo: Type.Optional(Type.String()),
});

const FileChangeReport = Type.Object({
  path: Type.String(),
  ops: Type.Array(FileOperation),
  added: Int,
  removed: Int,
  net: Type.Object({
    added: Int,
    removed: Int,
    hunks: Type.Array(
      Type.Object({
        oldStart: Type.Integer(),
        newStart: Type.Integer(),
        lines: Type.Array(DiffLine),
        fragment: Int,
        entryIds: Type.Array(Type.String()),
      }),
    ),
  }),
  changedBack: Type.Boolean(),
  wholeKnown: Type.Boolean(),
  startsFromWrite: Type.Boolean(),
  deleted: Type.Boolean(),
  partlyUnknown: Type.Boolean(),
});

const UnknownEffect = Type.Object({
  entryId: Type.String(),
  tool: Type.String(),
  reason: Type.Union([
    Type.Literal('may-change-files'),
    Type.Literal('arguments-not-kept'),
    Type.Literal('no-result'),
  ]),
  toolCallId: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
});

const FailedCall = Type.Object({
  entryId: Type.String(),
  resultId: Type.String(),
  tool: Type.String(),
  toolCallId: Type.String(),
  path: Type.Optional(Type.String()),
});

export const FilesQuery = Type.Object({
  /** The path's last entry (root → at); the current leaf when absent. */
  at: Type.Optional(EntryId),
  /** An entry on the path after which the changes count (a lane's common ancestor); before it is the base. */
  from: Type.Optional(EntryId),
});
export type FilesQuery = Static<typeof FilesQuery>;

export const FilesResponse = Type.Object({
  at: Nullable(Type.String()),
  files: Type.Array(FileChangeReport),
  unknownEffects: Type.Array(UnknownEffect),
  failed: Type.Array(FailedCall),
});
export type FilesResponse = Static<typeof FilesResponse>;

export const FileLensQuery = Type.Object({ path: Type.String({ minLength: 1, maxLength: 4_096 }) });
export type FileLensQuery = Static<typeof FileLensQuery>;

export const FileLensResponse = Type.Object({
  path: Type.String(),
  branches: Type.Array(
    Type.Object({
      leafId: Type.String(),
      sameAs: Type.Array(Type.String()),
      report: FileChangeReport,
      unknownEffects: Type.Array(UnknownEffect),
    }),
  ),
  /** Leaves left out past the limit (the lens reads at most `FILE_LENS_MAX_BRANCHES` branches). */
  omittedBranches: Int,
});
export type FileLensResponse = Static<typeof FileLensResponse>;

/** At most this many branches (leaves, newest first) are read for one file lens. */
export const FILE_LENS_MAX_BRANCHES = 64;

export type BranchSchemasMatch = [
  Assert<SameType<Omit<CompareResponse, never>, BranchComparison>>,
  Assert<SameType<Omit<FilesResponse, 'at'>, FilesReport>>,
  Assert<SameType<FileLensResponse['branches'][number], FileLensBranch>>,
];
