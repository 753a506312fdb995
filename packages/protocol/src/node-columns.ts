// The schema of the node columns, the one wire form of tree nodes (tree-codec.ts describes it and
// holds the codec). Kept apart from the codec so that the web app, which only decodes, imports no
// schema code (see values.ts).

import { Type, type Static } from '@sinclair/typebox';
import type { UsageNumbers as CoreUsageNumbers, ViewEntry } from '@canopy/session-core';
import type { Assert, SameType } from './vocabulary';

/** Token and cost numbers of an entry that used a model, for per-branch totals (session-core's). */
export const UsageNumbers = Type.Object({
  input: Type.Number(),
  output: Type.Number(),
  cacheRead: Type.Number(),
  cacheWrite: Type.Number(),
  totalTokens: Type.Number(),
  cost: Type.Number(),
});
export type UsageNumbers = CoreUsageNumbers;
export type _UsageNumbersAgree = Assert<SameType<Static<typeof UsageNumbers>, UsageNumbers>>;

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
  timestamp: Type.Array(Type.String()),
  text: Type.Array(Type.String()),
  /** The search text, or 0 where it equals the row text lower-cased. */
  search: Type.Array(Type.Union([Type.String(), Type.Literal(0)])),
  /** session-core `ViewFlags` bit sets. */
  flags: Type.Array(Type.Integer({ minimum: 0 })),
  /** `[node index, label]` for the labelled nodes only. */
  labels: Type.Array(Type.Tuple([Type.Integer({ minimum: 0 }), Type.String()])),
  /** `[node index, label time]` for the labelled nodes whose label has a time (Shift+T shows it). */
  labelTimes: Type.Optional(Type.Array(Type.Tuple([Type.Integer({ minimum: 0 }), Type.String()]))),
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
