// The one wire form of tree nodes, used by the server to send and the browser to receive: the
// snapshot, the `session_changed` event and the replies that carry nodes all hold `NodeColumns`.
// Columns instead of one object per node, because the skeleton of a large session is hundreds of
// thousands of nodes: no key is repeated per node, the few distinct types and roles are a table,
// flags stay session-core's bit set, and the search text is left out where it is the row text
// lower-cased (most rows). Encoding and decoding are exact inverses (tree-codec.test.ts).

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

const USAGE_FIELDS = ['input', 'output', 'cacheRead', 'cacheWrite', 'totalTokens', 'cost'] as const;

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

/** Interns strings into a table, answering each string's index. */
function interner(): { table: string[]; indexOf(value: string): number } {
  const table: string[] = [];
  const index = new Map<string, number>();
  return {
    table,
    indexOf(value) {
      let at = index.get(value);
      if (at === undefined) {
        at = table.length;
        table.push(value);
        index.set(value, at);
      }
      return at;
    },
  };
}

export function encodeNodes(nodes: readonly TreeNode[]): NodeColumns {
  const count = nodes.length;
  const types = interner();
  const roles = interner();
  const columns: NodeColumns = {
    count,
    id: new Array<string>(count),
    parentId: new Array<string | null>(count),
    type: new Array<number>(count),
    types: types.table,
    role: new Array<number>(count),
    roles: roles.table,
    timestamp: new Array<string>(count),
    text: new Array<string>(count),
    search: new Array<string | 0>(count),
    flags: new Array<number>(count),
    labels: [],
    usage: [],
  };
  for (let i = 0; i < count; i++) {
    const node = nodes[i]!;
    columns.id[i] = node.id;
    columns.parentId[i] = node.parentId;
    columns.type[i] = types.indexOf(node.type);
    columns.role[i] = node.role === undefined ? -1 : roles.indexOf(node.role);
    columns.timestamp[i] = node.timestamp;
    columns.text[i] = node.text;
    columns.search[i] = node.search === node.text.toLowerCase() ? 0 : node.search;
    columns.flags[i] = node.flags;
    if (node.label) columns.labels.push([i, node.label]);
    const usage = node.usage;
    if (usage)
      columns.usage.push([
        i,
        usage.input,
        usage.output,
        usage.cacheRead,
        usage.cacheWrite,
        usage.totalTokens,
        usage.cost,
      ]);
  }
  return columns;
}

/**
 * The nodes of `columns`, in order. Trusts its input to match the schema (the browser validates
 * events in development builds); columns shorter than `count` are an error, never a silent gap.
 */
export function decodeNodes(columns: NodeColumns): TreeNode[] {
  const { count } = columns;
  for (const column of ['id', 'parentId', 'type', 'role', 'timestamp', 'text', 'search', 'flags'] as const) {
    if (columns[column].length !== count)
      throw new Error(`node columns: "${column}" has ${columns[column].length} values for ${count} nodes`);
  }
  const nodes = new Array<TreeNode>(count);
  for (let i = 0; i < count; i++) {
    const text = columns.text[i]!;
    const search = columns.search[i]!;
    const node: TreeNode = {
      id: columns.id[i]!,
      parentId: columns.parentId[i]!,
      type: columns.types[columns.type[i]!]!,
      timestamp: columns.timestamp[i]!,
      text,
      search: search === 0 ? text.toLowerCase() : search,
      flags: columns.flags[i]!,
    };
    const role = columns.role[i]!;
    if (role >= 0) node.role = columns.roles[role]!;
    nodes[i] = node;
  }
  for (const [at, label] of columns.labels) nodes[at]!.label = label;
  for (const row of columns.usage) {
    const usage = {} as UsageNumbers;
    USAGE_FIELDS.forEach((field, k) => (usage[field] = row[k + 1]!));
    nodes[row[0]]!.usage = usage;
  }
  return nodes;
}
