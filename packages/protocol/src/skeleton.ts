import { Type, type Static } from '@sinclair/typebox';
import { EntryId } from './common';

/** Token and cost numbers of an assistant message, for per-branch totals. */
export const UsageNumbers = Type.Object({
  input: Type.Number(),
  output: Type.Number(),
  cacheRead: Type.Number(),
  cacheWrite: Type.Number(),
  totalTokens: Type.Number(),
  cost: Type.Number(),
});
export type UsageNumbers = Static<typeof UsageNumbers>;

/**
 * Boolean facts about an entry that the filters and the row styling need, computed once on the
 * server (session-core `ViewFlags`). Open-ended so a newer session-core can add flags.
 */
export const SkeletonFlags = Type.Record(Type.String(), Type.Boolean());
export type SkeletonFlags = Static<typeof SkeletonFlags>;

/**
 * One entry of the tree as the browser needs it to lay out, filter and search, without the full
 * content (which loads on demand). Fields mirror session-core `ViewEntry`.
 */
export const SkeletonNode = Type.Object({
  id: EntryId,
  parentId: Type.Union([Type.String(), Type.Null()]),
  type: Type.String(),
  role: Type.Optional(Type.String()),
  timestamp: Type.String(),
  label: Type.Optional(Type.String()),
  /** The row text (docs/tree-and-context.md#row-text), already normalised. */
  text: Type.String(),
  /** Lower-cased searchable text (docs/tree-and-context.md#search). */
  search: Type.String(),
  flags: SkeletonFlags,
  /** Assistant messages only. */
  usage: Type.Optional(UsageNumbers),
});
export type SkeletonNode = Static<typeof SkeletonNode>;
