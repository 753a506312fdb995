// The schema of the node columns, the one wire form of tree nodes (tree-codec.ts describes it and
// holds the codec). Kept apart from the codec so that the web app, which only decodes, imports no
// schema code (see values.ts).

import { Type, type Static } from '@sinclair/typebox';
import type { ViewEntry } from '@canopy/session-core';

/** Token and cost numbers of an entry that used a model, for per-branch totals. */
export const UsageNumbers = Type.Object({
  input: Type.Number(),
  output: Type.Number(),
  cacheRead: Type.Number(),
  cacheWrite: Type.Number(),
  totalTokens: Type.Number(),
  cost: Type.Number(),
});
export type UsageNumbers = Static<typeof UsageNumbers>;

/** One node of the tree as both sides hold it: session-core's row facts plus usage, if any. */
export interface TreeNode extends ViewEntry {
  usage?: UsageNumbers;
}

/** Column `k` of every array belongs to node `k`; `count` is the length of every column. */
export const NodeColumns = Type.Object({
  count: Type.Integer({ minimum: 0 }),
  id: Type.Array(Type.String()),
  parentId: Type.Array(Type.Union([Type.String(), Type.Null()])),
  /** Index into `types`. */
  type: Type.Array(Type.Integer({ minimum: 0 })),
  types: Type.Array(Type.String()),
  /** Index into `roles`, or -1 for an entry without a role. */
  role: Type.Array(Type.Integer({ minimum: -1 })),
  roles: Type.Array(Type.String()),
  /**
   * Every node's timestamp, row text and search text, one after another, for the texts without a
   * character past U+00FF; `wide` holds the others. Two strings instead of three per node: the
   * browser decodes each whole and its nodes keep their place in it (a string per text was most of
   * the objects a large snapshot made, see tree-codec.ts); and a single emoji does not make every
   * text of the chunk two bytes a character.
   */
  latin1: Type.String(),
  wide: Type.String(),
  /**
   * The length of each of those texts, three per node in that order: `length` when it is in
   * `latin1`, `-1 - length` when it is in `wide`.
   */
  lengths: Type.Array(Type.Integer()),
  /** session-core `ViewFlags` bit sets. */
  flags: Type.Array(Type.Integer({ minimum: 0 })),
  /** `[node index, label]` for the labelled nodes only. */
  labels: Type.Array(Type.Tuple([Type.Integer({ minimum: 0 }), Type.String()])),
  /** `[node index, input, output, cacheRead, cacheWrite, totalTokens, cost]` for nodes with usage. */
  usage: Type.Array(
    Type.Tuple([
      Type.Integer({ minimum: 0 }),
      Type.Number(),
      Type.Number(),
      Type.Number(),
      Type.Number(),
      Type.Number(),
      Type.Number(),
    ]),
  ),
});
export type NodeColumns = Static<typeof NodeColumns>;

/**
 * The first line of a snapshot's node chunk, whose two strings follow it as they are (tree-codec.ts
 * `encodeNodeChunk`): the columns without them, and their lengths in UTF-16 units.
 */
export const NodeChunkHead = Type.Composite([
  Type.Omit(NodeColumns, ['latin1', 'wide']),
  Type.Object({
    latin1Chars: Type.Integer({ minimum: 0 }),
    wideChars: Type.Integer({ minimum: 0 }),
  }),
]);
export type NodeChunkHead = Static<typeof NodeChunkHead>;
