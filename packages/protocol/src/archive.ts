// Schemas of archiving and tidying (docs/archive-and-family.md): PUT /api/sessions/:id/archive/:entryId
// and GET /api/sessions/:id/tidy. The reasons come from session-core's own list.
import { Type, type Static } from '@sinclair/typebox';
import { TIDY_REASONS, type TidyReason as CoreTidyReason } from '@canopy/session-core';
import { Nullable } from './common';
import type { Assert, SameType } from './vocabulary';

export const ArchiveRequest = Type.Object(
  {
    /** true archives the branch under the entry, false restores it. */
    archived: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type ArchiveRequest = Static<typeof ArchiveRequest>;

export const ArchiveResult = Type.Object({
  targetId: Type.String(),
  archived: Type.Boolean(),
  /** The id of the record appended (a `custom` entry of type `canopy.archive`). */
  recordId: Type.String(),
  leafId: Nullable(Type.String()),
});
export type ArchiveResult = Static<typeof ArchiveResult>;

export const TidyReason = Type.Union(TIDY_REASONS.map((reason) => Type.Literal(reason)));
export type TidyReason = CoreTidyReason;
export type _TidyReasonAgrees = Assert<SameType<Static<typeof TidyReason>, TidyReason>>;

export const TidySuggestionItem = Type.Object({
  targetId: Type.String(),
  reason: TidyReason,
  /** Entries in the branch. */
  entries: Type.Integer({ minimum: 1 }),
  /** The branch summary that covers it ('summarized'). */
  summaryId: Type.Optional(Type.String()),
  /** The row text of the branch's first entry. */
  text: Type.String(),
});
export type TidySuggestionItem = Static<typeof TidySuggestionItem>;

export const TidyResponse = Type.Object({
  suggestions: Type.Array(TidySuggestionItem),
  /** Targets of archive records that name no entry of the session: reported, never fatal. */
  unknownTargets: Type.Array(Type.String()),
});
export type TidyResponse = Static<typeof TidyResponse>;
