// Schemas of the words @canopy/session-core defines: the lists come from session-core, and each type
// is session-core's own. The `Assert<SameType<…>>` lines fail to compile if a schema and the type it
// stands for ever disagree.
import { Type, type Static } from '@sinclair/typebox';
import { DIALECTS, FILTER_MODES, ISSUE_KINDS } from '@canopy/session-core';
import type {
  BranchSummaryOrigin as CoreBranchSummaryOrigin,
  Dialect as CoreDialect,
  FilterMode as CoreFilterMode,
  LocatedToolCall as CoreLocatedToolCall,
  ParseIssue as CoreParseIssue,
} from '@canopy/session-core';

/** True when A and B are assignable both ways. */
export type SameType<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Compiles only when its argument is `true`. */
export type Assert<T extends true> = T;

const literals = <const T extends readonly string[]>(values: T) =>
  Type.Union(values.map((value) => Type.Literal(value as T[number])));

export const FilterMode = literals(FILTER_MODES);
export type FilterMode = CoreFilterMode;
export type _FilterModeAgrees = Assert<SameType<Static<typeof FilterMode>, FilterMode>>;

export const Dialect = literals(DIALECTS);
export type Dialect = CoreDialect;
export type _DialectAgrees = Assert<SameType<Static<typeof Dialect>, Dialect>>;

export const ParseIssue = Type.Object({
  /** 1-based line in the file as written. */
  line: Type.Integer(),
  kind: literals(ISSUE_KINDS),
  message: Type.String(),
});
export type ParseIssue = CoreParseIssue;
export type _ParseIssueAgrees = Assert<SameType<Static<typeof ParseIssue>, ParseIssue>>;

/** The tool call a toolResult answers, with its id and the assistant entry holding it. */
export const LocatedToolCall = Type.Object({
  id: Type.String(),
  name: Type.String(),
  arguments: Type.Unknown(),
  entryId: Type.String(),
});
export type LocatedToolCall = CoreLocatedToolCall;
export type _LocatedToolCallAgrees = Assert<SameType<Static<typeof LocatedToolCall>, LocatedToolCall>>;

/** What a branch_summary's `fromId` names in its file: the leaf that was left, or the branch point. */
export const BranchSummaryOrigin = Type.Object({
  meaning: Type.Union([Type.Literal('left-leaf'), Type.Literal('branch-point')]),
  id: Type.Union([Type.String(), Type.Null()]),
});
export type BranchSummaryOrigin = CoreBranchSummaryOrigin;
export type _BranchSummaryOriginAgrees = Assert<
  SameType<Static<typeof BranchSummaryOrigin>, BranchSummaryOrigin>
>;
