import { Type, type Static } from '@sinclair/typebox';
import { EntryId, JsonObject, Nullable } from './common';
import { MAX_SELECTION_IDS } from './values';

// Summaries are written in two steps so the browser can show (and let the user edit) a summary
// before anything reaches the file: POST …/summary/preview generates the text and writes nothing;
// the navigate and summarize-selection routes then write it, either generating it themselves
// (`summarize: true`) or taking the previewed text as given (`summary`).

/** The summariser choice and the custom prompt, shared by every summary request. */
const summaryOptionFields = {
  /** A summariser from GET /api/info; the configured default when absent. */
  summarizerId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  customInstructions: Type.Optional(Type.String({ maxLength: 20_000 })),
  /** The custom instructions replace the default prompt instead of adding a focus to it. */
  replaceInstructions: Type.Optional(Type.Boolean()),
  /**
   * The `clientId` of the browser's WebSocket (from `hello`): when that socket closes, the
   * summary being generated for this request is aborted.
   */
  clientId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
};

/** A summary the user has seen (and perhaps edited) in the preview, written as given. */
export const ProvidedSummary = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 1_000_000 }),
    /** The preview's details (`readFiles`, `modifiedFiles`, …), stored verbatim. */
    details: Type.Optional(JsonObject),
    /** The model's usage of the preview's request, stored on the entry as pi 1.6 stores it. */
    usage: Type.Optional(JsonObject),
  },
  { additionalProperties: false },
);
export type ProvidedSummary = Static<typeof ProvidedSummary>;

export const SelectionIds = Type.Array(EntryId, { maxItems: MAX_SELECTION_IDS });

// ---------------------------------------------------------------- POST /api/sessions/:id/summary/preview

export const NavigateSummarySource = Type.Object(
  {
    kind: Type.Literal('navigate'),
    targetId: EntryId,
    /** Narrows the abandoned path to these entries (the user's selection). */
    onlyIds: Type.Optional(SelectionIds),
  },
  { additionalProperties: false },
);

export const SelectionSummarySource = Type.Object(
  { kind: Type.Literal('selection'), entryIds: SelectionIds },
  { additionalProperties: false },
);

export const SummaryPreviewRequest = Type.Object(
  {
    source: Type.Union([NavigateSummarySource, SelectionSummarySource]),
    ...summaryOptionFields,
  },
  { additionalProperties: false },
);
export type SummaryPreviewRequest = Static<typeof SummaryPreviewRequest>;

export const LEFT_OUT_REASONS = ['budget', 'context-edit', 'tool-result', 'no-content'] as const;

/** What a summariser read of the entries it was given (see @canopy/summarizer's SummarySent). */
export const SummarySent = Type.Object({
  entries: Type.Integer(),
  tokens: Type.Integer(),
  /** The token budget of the model's window; null for a summariser without one (offline). */
  budget: Nullable(Type.Integer()),
  leftOut: Type.Array(
    Type.Object({
      reason: Type.Union(LEFT_OUT_REASONS.map((reason) => Type.Literal(reason))),
      entries: Type.Integer(),
      tokens: Type.Integer(),
    }),
  ),
});
export type SummarySent = Static<typeof SummarySent>;

/** How a selection was summarised: the entries added to keep tool calls with their results, its branches and gaps. */
export const SelectionShape = Type.Object({
  /** Tool calls (assistant entries) added because a result of theirs was selected. */
  addedCalls: Type.Integer(),
  /** Tool results added because their call was selected. */
  addedResults: Type.Integer(),
  /** Branches the selection spans (1: one path). */
  branches: Type.Integer(),
  /** Places where unselected entries lie between two selected ones on a branch. */
  gaps: Type.Integer(),
  /** Whether every selected entry lies on the current path (the root to the leaf). */
  onCurrentPath: Type.Boolean(),
});
export type SelectionShape = Static<typeof SelectionShape>;

export const SummaryPreview = Type.Object({
  /** The generation was aborted (Esc, abort_summary, or the browser went away): no text. */
  aborted: Type.Boolean(),
  /** There was nothing to summarise: a navigation goes on without a summary entry. */
  nothingToSummarize: Type.Boolean(),
  summary: Type.String(),
  /** What the written entry's `details` will be unless edited: readFiles, modifiedFiles, … */
  details: JsonObject,
  summarizerId: Type.String(),
  /** Entries handed to the summariser, in the order it read them. */
  entryCount: Type.Integer(),
  /** Entries chosen (abandoned path or selection) before any cut. */
  selectedCount: Type.Integer(),
  /** Estimated tokens of what was summarised (characters / 4). */
  tokenEstimate: Type.Integer(),
  /** Set when not everything chosen was summarised, saying what was left out. */
  notice: Type.Optional(Type.String()),
  /** What the summariser actually read: the entries and tokens within its budget, and what it left out and why. */
  sent: Type.Optional(SummarySent),
  /** The model's usage of the request (absent for the offline summariser). */
  usage: Type.Optional(JsonObject),
  /** A selection: how it was completed and what shape it has. */
  selection: Type.Optional(SelectionShape),
});
export type SummaryPreview = Static<typeof SummaryPreview>;

// ---------------------------------------------------------------- POST /api/sessions/:id/summary/selection

export const SelectionSummaryRequest = Type.Object(
  {
    entryIds: SelectionIds,
    /** Write this (previewed) text; when absent the summariser generates it first. */
    summary: Type.Optional(ProvidedSummary),
    ...summaryOptionFields,
  },
  { additionalProperties: false },
);
export type SelectionSummaryRequest = Static<typeof SelectionSummaryRequest>;

export const SelectionSummaryResult = Type.Object({
  /** The generation was aborted: nothing was written, the leaf did not move. */
  aborted: Type.Boolean(),
  oldLeafId: Nullable(Type.String()),
  newLeafId: Nullable(Type.String()),
  summaryEntry: Type.Optional(JsonObject),
});
export type SelectionSummaryResult = Static<typeof SelectionSummaryResult>;

/** The navigate request's summary fields beyond the reference's (see NavigateRequest). */
export const navigateSummaryFields = {
  ...summaryOptionFields,
  /** Narrows the abandoned path to these entries before summarising. */
  onlyIds: Type.Optional(SelectionIds),
  /** Write this (previewed) text instead of generating one; implies summarize. */
  summary: Type.Optional(ProvidedSummary),
};

// ---------------------------------------------------------------- GET /api/info

export const SummarizerInfo = Type.Object({
  id: Type.String(),
  label: Type.String(),
  /** Where the model and its credentials come from (`pi's settings: ~/.pi/agent/settings.json; pi login …`). */
  source: Type.Optional(Type.String()),
});
export type SummarizerInfo = Static<typeof SummarizerInfo>;
