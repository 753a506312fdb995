// The one wire form of tree nodes, used by the server to send and the browser to receive: the
// snapshot, the `session_changed` event and the replies that carry nodes all hold `NodeColumns`.
// Columns instead of one object per node, because the skeleton of a large session is hundreds of
// thousands of nodes: no key is repeated per node, the few distinct types and roles are a table,
// flags stay session-core's bit set, and the texts (timestamp, row text, search text) are two long
// strings with a length per text. A string per text made three of the nine objects per node the
// browser's snapshot worker decoded and packed again into long strings for the page (at 500,000
// nodes, the worker was the page's busiest thread). Encoding and decoding are exact inverses
// (tree-codec.test.ts).

import type { NodeChunkHead, NodeColumns, TreeNode, UsageNumbers } from './node-columns';

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

/** A UTF-16 code unit past U+00FF (surrogates included: no `u` flag). */
const NOT_LATIN1 = /[\u0100-\uffff]/;

/** A node's texts, in the order the columns carry them: timestamp, row text, search text. */
export const TEXTS_PER_NODE = 3;

/**
 * `texts` as the columns' two strings and lengths. Most chunks are all Latin-1: one join and one
 * scan of it decide that, instead of a test per text.
 */
function joinTexts(texts: readonly string[]): Pick<NodeColumns, 'latin1' | 'wide' | 'lengths'> {
  const lengths = new Array<number>(texts.length);
  const joined = texts.join('');
  if (!NOT_LATIN1.test(joined)) {
    for (let k = 0; k < texts.length; k++) lengths[k] = texts[k]!.length;
    return { latin1: joined, wide: '', lengths };
  }
  const latin1: string[] = [];
  const wide: string[] = [];
  for (let k = 0; k < texts.length; k++) {
    const text = texts[k]!;
    if (NOT_LATIN1.test(text)) {
      wide.push(text);
      lengths[k] = -1 - text.length;
    } else {
      latin1.push(text);
      lengths[k] = text.length;
    }
  }
  return { latin1: latin1.join(''), wide: wide.join(''), lengths };
}

export function encodeNodes(nodes: readonly TreeNode[]): NodeColumns {
  const count = nodes.length;
  const types = interner();
  const roles = interner();
  const id = new Array<string>(count);
  const parentId = new Array<string | null>(count);
  const type = new Array<number>(count);
  const role = new Array<number>(count);
  const flags = new Array<number>(count);
  const texts = new Array<string>(count * TEXTS_PER_NODE);
  const labels: NodeColumns['labels'] = [];
  const usageRows: NodeColumns['usage'] = [];
  for (let i = 0; i < count; i++) {
    const node = nodes[i]!;
    id[i] = node.id;
    parentId[i] = node.parentId;
    type[i] = types.indexOf(node.type);
    role[i] = node.role === undefined ? -1 : roles.indexOf(node.role);
    texts[i * TEXTS_PER_NODE] = node.timestamp;
    texts[i * TEXTS_PER_NODE + 1] = node.text;
    texts[i * TEXTS_PER_NODE + 2] = node.search;
    flags[i] = node.flags;
    if (node.label) labels.push([i, node.label]);
    const usage = node.usage;
    if (usage)
      usageRows.push([
        i,
        usage.input,
        usage.output,
        usage.cacheRead,
        usage.cacheWrite,
        usage.totalTokens,
        usage.cost,
      ]);
  }
  return {
    count,
    id,
    parentId,
    type,
    types: types.table,
    role,
    roles: roles.table,
    ...joinTexts(texts),
    flags,
    labels,
    usage: usageRows,
  };
}

/**
 * Where each text of some columns is: the `k`-th (node `i`'s are `3i`, `3i + 1`, `3i + 2`) is
 * `(inWide[k] ? wide : latin1).slice(starts[k], ends[k])`.
 */
export interface TextSpans {
  starts: Uint32Array;
  ends: Uint32Array;
  inWide: Uint8Array;
}

/**
 * The spans of `columns`' texts. Throws when a column does not hold a value per node or the texts'
 * lengths do not add up to the two strings: columns that do not hold their nodes are an error,
 * never a silent gap.
 */
export function textSpans(columns: NodeColumns): TextSpans {
  const { count, lengths } = columns;
  for (const column of ['id', 'parentId', 'type', 'role', 'flags'] as const) {
    const values = columns[column] as unknown[] | undefined;
    if (values?.length !== count)
      throw new Error(`node columns: "${column}" has ${values?.length ?? 0} values for ${count} nodes`);
  }
  if (typeof columns.latin1 !== 'string' || typeof columns.wide !== 'string')
    throw new Error('node columns: "latin1" and "wide" are not both strings');
  const total = count * TEXTS_PER_NODE;
  if (lengths?.length !== total)
    throw new Error(`node columns: "lengths" has ${lengths?.length ?? 0} values for ${count} nodes`);
  const starts = new Uint32Array(total);
  const ends = new Uint32Array(total);
  const inWide = new Uint8Array(total);
  let latin1End = 0;
  let wideEnd = 0;
  for (let k = 0; k < total; k++) {
    const length = lengths[k]!;
    if (length >= 0) {
      starts[k] = latin1End;
      ends[k] = latin1End += length;
    } else {
      inWide[k] = 1;
      starts[k] = wideEnd;
      ends[k] = wideEnd += -1 - length;
    }
  }
  if (latin1End !== columns.latin1.length || wideEnd !== columns.wide.length)
    throw new Error(
      `node columns: the texts' lengths add up to ${latin1End} and ${wideEnd} characters, ` +
        `not the ${columns.latin1.length} and ${columns.wide.length} of "latin1" and "wide"`,
    );
  return { starts, ends, inWide };
}

/**
 * The nodes of `columns`, in order. Trusts its input to match the schema (the browser validates
 * events in development builds); columns shorter than `count` are an error, never a silent gap.
 */
export function decodeNodes(columns: NodeColumns): TreeNode[] {
  const { count } = columns;
  const { starts, ends, inWide } = textSpans(columns);
  const { latin1, wide } = columns;
  const text = (k: number) => (inWide[k] === 1 ? wide : latin1).slice(starts[k]!, ends[k]!);
  const nodes = new Array<TreeNode>(count);
  for (let i = 0; i < count; i++) {
    const at = i * TEXTS_PER_NODE;
    const node: TreeNode = {
      id: columns.id[i]!,
      parentId: columns.parentId[i]!,
      type: columns.types[columns.type[i]!]!,
      timestamp: text(at),
      text: text(at + 1),
      search: text(at + 2),
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

/** A UTF-16 surrogate without its other half: UTF-8 cannot carry it (JSON can, escaped). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * `nodes` as one chunk of a snapshot (rest.ts, SNAPSHOT_CONTENT_TYPE), newline included: a
 * `NodeChunkHead` line, then the `latin1` and `wide` strings as they are, `latin1Chars + wideChars`
 * UTF-16 units, then a newline. Neither side escapes or parses the texts, most of a snapshot's
 * bytes: a long string costs `JSON.parse` several times its length in an array of short ones, and
 * the browser slices them from the text it decoded. A chunk whose texts hold a lone surrogate
 * (which UTF-8 would replace) is a plain `NodeColumns` line instead.
 */
export function encodeNodeChunk(nodes: readonly TreeNode[]): string {
  const columns = encodeNodes(nodes);
  const { latin1, wide, ...rest } = columns;
  // Latin-1 text holds no surrogate at all.
  if (LONE_SURROGATE.test(wide)) return `${JSON.stringify(columns)}\n`;
  const head: NodeChunkHead = { ...rest, latin1Chars: latin1.length, wideChars: wide.length };
  return `${JSON.stringify(head)}\n${latin1}${wide}\n`;
}

/** Whether a parsed snapshot line is a node chunk's head, whose texts follow it. */
export function isNodeChunkHead(value: unknown): value is NodeChunkHead {
  return typeof value === 'object' && value !== null && 'latin1Chars' in value;
}

/** The columns of a chunk head and the raw texts that followed it (`latin1Chars + wideChars` units). */
export function chunkColumns(head: NodeChunkHead, texts: string): NodeColumns {
  const { latin1Chars, wideChars, ...rest } = head;
  if (!Number.isInteger(latin1Chars) || !Number.isInteger(wideChars) || latin1Chars < 0 || wideChars < 0)
    throw new Error(`node chunk: ${latin1Chars} and ${wideChars} are not lengths`);
  return {
    ...rest,
    latin1: texts.slice(0, latin1Chars),
    wide: texts.slice(latin1Chars, latin1Chars + wideChars),
  };
}

/**
 * Every value of a whole snapshot's text in order, node chunks as their `NodeColumns` (for tests and
 * tools: the browser reads the same framing as it arrives, apps/web snapshotDecoder.ts).
 */
export function parseSnapshotText(text: string): unknown[] {
  const values: unknown[] = [];
  let from = 0;
  while (from < text.length) {
    const newline = text.indexOf('\n', from);
    const end = newline < 0 ? text.length : newline;
    const value = JSON.parse(text.slice(from, end)) as unknown;
    from = end + 1;
    if (!isNodeChunkHead(value)) {
      values.push(value);
      continue;
    }
    const size = value.latin1Chars + value.wideChars;
    if (text.charAt(from + size) !== '\n')
      throw new Error(`node chunk: its ${size} characters of text are not followed by a newline`);
    values.push(chunkColumns(value, text.slice(from, from + size)));
    from += size + 1;
  }
  return values;
}
