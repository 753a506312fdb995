// The one wire form of tree nodes, used by the server to send and the browser to receive: the
// snapshot, the `session_changed` event and the replies that carry nodes all hold `NodeColumns`.
// Columns instead of one object per node, because the skeleton of a large session is hundreds of
// thousands of nodes: no key is repeated per node, the few distinct types and roles are a table,
// flags stay session-core's bit set, and the search text is left out where it is the row text
// lower-cased (most rows). Encoding and decoding are exact inverses (tree-codec.test.ts).

import type { NodeColumns, TreeNode, UsageNumbers } from './node-columns';

/** The usage numbers in the order the columns carry them. */
export const USAGE_FIELDS = ['input', 'output', 'cacheRead', 'cacheWrite', 'totalTokens', 'cost'] as const;

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
    if (node.label) {
      columns.labels.push([i, node.label]);
      if (node.labelTime) (columns.labelTimes ??= []).push([i, node.labelTime]);
    }
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
  for (const [at, time] of columns.labelTimes ?? []) nodes[at]!.labelTime = time;
  for (const row of columns.usage) {
    const usage = {} as UsageNumbers;
    USAGE_FIELDS.forEach((field, k) => (usage[field] = row[k + 1]!));
    nodes[row[0]]!.usage = usage;
  }
  return nodes;
}
