// How the snapshot worker hands a part's nodes to the page: few objects instead of one per string.
//
// Every node the page keeps lives as long as the session is open, so it survives each young-
// generation collection of the page's heap and is copied by it, and at 500,000 nodes those copies
// were the open's longest tasks (60-210 ms scavenges, docs/architecture.md#opening-a-session). A
// node posted as an object arrives as that object plus about eight fresh strings (its id, a second
// copy of its parent's id, its type and role, its timestamp, row text and search text). Posted
// packed, the part's timestamps and texts arrive as two long strings (one for Latin-1 text, one for
// the rest, so a single emoji does not double the part's memory; a string past 128 KB is never
// copied by the collector at all), types and roles as small tables, and a parent whose id is in the
// same part as a reference to that node's id. On the page each node keeps its part's texts and its
// place in them, and reads its timestamp, row text and search text from there when asked: three
// fewer heap objects per node for every collection to copy while a large snapshot streams in (the
// search and the rows read the texts of a few nodes at a time; a read makes a short-lived slice).

import type { NodeColumns, TreeNode, UsageNumbers } from '@canopy/protocol';
import {
  encodeNodes,
  textSpans,
  TEXTS_PER_NODE,
  USAGE_FIELDS,
  type TextSpans,
} from '@canopy/protocol/values';
import { searchMaskColumnsOf, type MaskedText, type SearchMaskColumns } from '@canopy/session-core';

export interface PackedNodes {
  count: number;
  ids: string[];
  /** Each node's parent id: null, the id, or the position in this part of the node with that id. */
  parents: (string | number | null)[];
  types: string[];
  /** Index into `types`. */
  type: Int32Array;
  roles: string[];
  /** Index into `roles`, or -1 for a node without a role. */
  role: Int32Array;
  flags: Int32Array;
  /** The Latin-1 ones of every node's timestamp, row text and search text, one after another. */
  latin1: string;
  /** The others (a character past U+00FF), one after another. */
  wide: string;
  /** For each node's three texts in turn, where it starts and ends in its string; in `wide` when `inWide`. */
  starts: Uint32Array;
  ends: Uint32Array;
  inWide: Uint8Array;
  labels: [number, string][];
  /** The nodes with usage, by position, and their numbers in USAGE_FIELDS order, one after another. */
  usageAt: Int32Array;
  usage: Float64Array;
}

/** The nodes of `columns` from `from` to `to` (not included), packed: their texts are already two strings. */
export function packColumns(
  columns: NodeColumns,
  spans: TextSpans,
  from = 0,
  to = columns.count,
): PackedNodes {
  const count = to - from;
  const ids = columns.id.slice(from, to);
  const parents = new Array<string | number | null>(count);
  const type = new Int32Array(count);
  const role = new Int32Array(count);
  const flags = new Int32Array(count);
  const positions = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const parentId = columns.parentId[from + i]!;
    const parentAt = parentId === null ? undefined : positions.get(parentId);
    parents[i] = parentAt ?? parentId;
    if (!positions.has(ids[i]!)) positions.set(ids[i]!, i);
    type[i] = columns.type[from + i]!;
    role[i] = columns.role[from + i]!;
    flags[i] = columns.flags[from + i]!;
  }
  const labels: [number, string][] = [];
  for (const [at, label] of columns.labels) if (at >= from && at < to) labels.push([at - from, label]);
  const usageAt: number[] = [];
  const usage: number[] = [];
  for (const [at, ...numbers] of columns.usage) {
    if (at < from || at >= to) continue;
    usageAt.push(at - from);
    usage.push(...numbers);
  }
  return {
    count,
    ids,
    parents,
    types: columns.types,
    type,
    roles: columns.roles,
    role,
    flags,
    ...textsBetween(columns, spans, from * TEXTS_PER_NODE, to * TEXTS_PER_NODE),
    labels,
    usageAt: Int32Array.from(usageAt),
    usage: Float64Array.from(usage),
  };
}

/**
 * The texts `lo` to `hi` (not included) of `columns`: their part of each string and their spans in
 * it. Each string holds its texts in order, so those of a range are one slice of it.
 */
function textsBetween(
  columns: NodeColumns,
  spans: TextSpans,
  lo: number,
  hi: number,
): Pick<PackedNodes, 'latin1' | 'wide' | 'starts' | 'ends' | 'inWide'> {
  const starts = spans.starts.slice(lo, hi);
  const ends = spans.ends.slice(lo, hi);
  const inWide = spans.inWide.slice(lo, hi);
  // Per string (0: latin1, 1: wide), where the range's first text there begins and its last ends.
  const first = [-1, -1];
  const last = [0, 0];
  for (let k = 0; k < starts.length; k++) {
    const which = inWide[k]!;
    if (first[which] === -1) first[which] = starts[k]!;
    last[which] = ends[k]!;
  }
  for (let k = 0; k < starts.length; k++) {
    const origin = first[inWide[k]!]!;
    starts[k] = starts[k]! - origin;
    ends[k] = ends[k]! - origin;
  }
  const part = (text: string, which: number) =>
    first[which] === -1 ? '' : text.slice(first[which], last[which]);
  return { latin1: part(columns.latin1, 0), wide: part(columns.wide, 1), starts, ends, inWide };
}

/** `nodes` packed as the snapshot worker packs a part (for callers that hold nodes, not columns). */
export function packNodes(nodes: readonly TreeNode[]): PackedNodes {
  const columns = encodeNodes(nodes);
  return packColumns(columns, textSpans(columns));
}

/** The search masks of a packed part (session-core's searchMaskColumns), read from its strings. */
export function packedSearchMasks(packed: PackedNodes): SearchMaskColumns {
  const texts = partTexts(packed);
  const labels = new Map(packed.labels);
  const entry: MaskedText = { search: '', label: undefined };
  return searchMaskColumnsOf(packed.count, (index) => {
    entry.search = texts.text(index * TEXTS_PER_NODE + 2);
    entry.label = labels.get(index);
    return entry;
  });
}

/** The buffers a packed part can hand over instead of copying (postMessage's transfer list). */
export function packedTransfers(packed: PackedNodes): ArrayBuffer[] {
  const { type, role, flags, starts, ends, inWide, usageAt, usage } = packed;
  return [type, role, flags, starts, ends, inWide, usageAt, usage].map(
    (array) => array.buffer as ArrayBuffer,
  );
}

/** The timestamps and texts of one unpacked part, shared by its nodes. */
class PartTexts {
  constructor(
    private readonly latin1: string,
    private readonly wide: string,
    private readonly starts: Uint32Array,
    private readonly ends: Uint32Array,
    private readonly inWide: Uint8Array,
  ) {}

  /** The `at`-th text of the part (node `i`'s are `3i`, `3i + 1`, `3i + 2`). */
  text(at: number): string {
    return (this.inWide[at] === 1 ? this.wide : this.latin1).slice(this.starts[at]!, this.ends[at]!);
  }
}

function partTexts(packed: PackedNodes): PartTexts {
  return new PartTexts(packed.latin1, packed.wide, packed.starts, packed.ends, packed.inWide);
}

/**
 * A node of an unpacked part: its own fields, and its timestamp, row text and search text read
 * from the part's strings (getters on the prototype: a copy of it made by spreading would lose
 * them, see ViewTree.setLabel).
 */
class PackedNode implements TreeNode {
  label: string | undefined = undefined;

  constructor(
    readonly id: string,
    readonly parentId: string | null,
    readonly type: string,
    readonly flags: number,
    readonly role: string | undefined,
    readonly usage: UsageNumbers | undefined,
    private readonly texts: PartTexts,
    private readonly at: number,
  ) {}

  get timestamp(): string {
    return this.texts.text(this.at);
  }

  get text(): string {
    return this.texts.text(this.at + 1);
  }

  get search(): string {
    return this.texts.text(this.at + 2);
  }
}

/** The nodes of a packed part, with the fields of those packed (the texts read through getters). */
export function unpackNodes(packed: PackedNodes): TreeNode[] {
  const { count, ids, parents, types, type, roles, role, flags, usageAt, usage } = packed;
  const texts = partTexts(packed);
  const nodes = new Array<TreeNode>(count);
  const fields = USAGE_FIELDS.length;
  // A number read from a Float64Array is a double, which an object field holds as one more heap
  // object (a HeapNumber) per value; a whole number stored as an int32 is held in the field itself.
  const usageNumber = (k: number) => {
    const value = usage[k]!;
    return (value | 0) === value ? value | 0 : value;
  };
  /** The usage of the `k`-th node that has one. */
  const usageObject = (k: number): UsageNumbers => {
    const from = fields * k;
    return {
      input: usageNumber(from),
      output: usageNumber(from + 1),
      cacheRead: usageNumber(from + 2),
      cacheWrite: usageNumber(from + 3),
      totalTokens: usageNumber(from + 4),
      cost: usageNumber(from + 5),
    };
  };
  // `usageAt` is in node order: one cursor walks it beside the nodes.
  let nextUsage = 0;
  for (let i = 0; i < count; i++) {
    const parent = parents[i]!;
    const roleAt = role[i]!;
    nodes[i] = new PackedNode(
      ids[i]!,
      typeof parent === 'number' ? ids[parent]! : parent,
      types[type[i]!]!,
      flags[i]!,
      roleAt < 0 ? undefined : roles[roleAt]!,
      usageAt[nextUsage] === i ? usageObject(nextUsage++) : undefined,
      texts,
      i * TEXTS_PER_NODE,
    );
  }
  for (const [at, label] of packed.labels) nodes[at]!.label = label;
  return nodes;
}
