import { BRING_BACK_FORMS, type BringBackForm as CoreBringBackForm } from '@canopy/session-core';
import { Type, type Static } from '@sinclair/typebox';
import { EntryId, JsonObject, Nullable } from './common';
import { MAX_SELECTION_IDS } from './values';
import type { Assert, SameType } from './vocabulary';

// Bringing entries from other branches into the current one (docs/bring-back.md): a preview in one
// of three forms that writes nothing, then the write of the (perhaps edited) text as one
// custom_message under the leaf, and its undo.

export const BringBackForm = Type.Union(BRING_BACK_FORMS.map((form) => Type.Literal(form)));
export type BringBackForm = Static<typeof BringBackForm>;
export type _BringBackFormIsCore = Assert<SameType<BringBackForm, CoreBringBackForm>>;

const NonEmptySelection = Type.Array(EntryId, { minItems: 1, maxItems: MAX_SELECTION_IDS });

// ---------------------------------------------------------------- POST /api/sessions/:id/bring-back/preview

export const BringBackPreviewRequest = Type.Object(
  {
    entryIds: NonEmptySelection,
    form: BringBackForm,
    /** excerpt: cut the oldest entries beyond it; condensed: the length the model is asked to keep to. */
    tokenBudget: Type.Optional(Type.Integer({ minimum: 50, maximum: 1_000_000 })),
    summarizerId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** The browser's WebSocket `clientId`: its closing aborts a condensed or summary preview. */
    clientId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type BringBackPreviewRequest = Static<typeof BringBackPreviewRequest>;

export const BringBackPreview = Type.Object({
  form: BringBackForm,
  /** The generation was aborted: no text. */
  aborted: Type.Boolean(),
  /** What the model will get, unless the user edits it. */
  text: Type.String(),
  /** Estimated tokens of `text` (characters / 4). */
  tokens: Type.Integer(),
  /** The entries the text covers, in reading order (the entry's `sourceEntryIds`). */
  sourceEntryIds: Type.Array(Type.String()),
  /** Entries the user selected. */
  selectedCount: Type.Integer(),
  /** Tool calls and results added to keep pairs together. */
  addedCalls: Type.Integer(),
  addedResults: Type.Integer(),
  branches: Type.Integer(),
  gaps: Type.Integer(),
  /** Entries the budget left out (excerpt: the oldest). */
  leftOut: Type.Integer(),
  notice: Type.Optional(Type.String()),
  /** condensed and summary: the summariser used. */
  summarizerId: Type.Optional(Type.String()),
  /** summary: the files read and modified. */
  details: Type.Optional(JsonObject),
});
export type BringBackPreview = Static<typeof BringBackPreview>;

// ---------------------------------------------------------------- POST /api/sessions/:id/bring-back

export const BringBackRequest = Type.Object(
  {
    sourceEntryIds: NonEmptySelection,
    form: BringBackForm,
    /** The previewed (perhaps edited) text, written as it is. */
    text: Type.String({ minLength: 1, maxLength: 1_000_000 }),
  },
  { additionalProperties: false },
);
export type BringBackRequest = Static<typeof BringBackRequest>;

export const BringBackResult = Type.Object({
  entryId: Type.String(),
  tokens: Type.Integer(),
  oldLeafId: Nullable(Type.String()),
  newLeafId: Nullable(Type.String()),
});
export type BringBackResult = Static<typeof BringBackResult>;

// ---------------------------------------------------------------- GET /api/sessions/:id/bring-back/:entryId

export const BringBackUndoState = Type.Object({
  possible: Type.Boolean(),
  /** Why not (another writer's file, off the current branch, already undone). */
  reason: Type.Optional(Type.String()),
  undone: Type.Optional(Type.Boolean()),
});

export const BringBackInfo = Type.Object({
  entryId: Type.String(),
  sourceFile: Type.String(),
  /** The source file is this session's own file: its entries can be selected here. */
  sameFile: Type.Boolean(),
  sourceEntryIds: Type.Array(Type.String()),
  form: BringBackForm,
  undo: BringBackUndoState,
});
export type BringBackInfo = Static<typeof BringBackInfo>;

// ---------------------------------------------------------------- POST /api/sessions/:id/bring-back/:entryId/undo

export const BringBackUndoResult = Type.Object({
  editEntryId: Type.String(),
  leafId: Nullable(Type.String()),
});
export type BringBackUndoResult = Static<typeof BringBackUndoResult>;
