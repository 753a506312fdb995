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

import type { TreeNode, UsageNumbers } from '@canopy/protocol';
import { USAGE_FIELDS } from '@canopy/protocol/values';

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
  /** `[position, label time]` of the labelled nodes whose label has a time. */
  labelTimes: [number, string][];
  /** The nodes with usage, by position, and their numbers in USAGE_FIELDS order, one after another. */
  usageAt: Int32Array;
  usage: Float64Array;
}

/** A UTF-16 code unit past U+00FF (surrogates included: no `u` flag). */
const NOT_LATIN1 = /[\u0100-\uffff]/;

/** The three texts of a node, in the order they are packed. */
const TEXTS_PER_NODE = 3;

export function packNodes(nodes: readonly TreeNode[]): PackedNodes {
  const count = nodes.length;
  const ids = new Array<string>(count);
  const parents = new Array<string | number | null>(count);
  const type = new Int32Array(count);
  const role = new Int32Array(count);
  const flags = new Int32Array(count);
  const starts = new Uint32Array(count * TEXTS_PER_NODE);
  const ends = new Uint32Array(count * TEXTS_PER_NODE);
  const inWide = new Uint8Array(count * TEXTS_PER_NODE);
  const types = new Map<string, number>();
  const roles = new Map<string, number>();
  const positions = new Map<string, number>();
  const texts = new Array<string>(count * TEXTS_PER_NODE);
  const labels: [number, string][] = [];
  const labelTimes: [number, string][] = [];
  const usageAt: number[] = [];
  const usage: number[] = [];
  const tableIndex = (table: Map<string, number>, value: string) => {
    let at = table.get(value);
    if (at === undefined) table.set(value, (at = table.size));
    return at;
  };
  for (let i = 0; i < count; i++) {
    const node = nodes[i]!;
    ids[i] = node.id;
    const parentId = node.parentId;
    const parentAt = parentId === null ? undefined : positions.get(parentId);
    parents[i] = parentAt ?? parentId;
    if (!positions.has(node.id)) positions.set(node.id, i);
    type[i] = tableIndex(types, node.type);
    role[i] = node.role === undefined ? -1 : tableIndex(roles, node.role);
    flags[i] = node.flags;
    texts[i * TEXTS_PER_NODE] = node.timestamp;
    texts[i * TEXTS_PER_NODE + 1] = node.text;
    texts[i * TEXTS_PER_NODE + 2] = node.search;
    if (node.label !== undefined) labels.push([i, node.label]);
    if (node.labelTime !== undefined) labelTimes.push([i, node.labelTime]);
    if (node.usage !== undefined) {
      usageAt.push(i);
      for (const field of USAGE_FIELDS) usage.push(node.usage[field]);
    }
  }
  return {
    count,
    ids,
    parents,
    types: [...types.keys()],
    type,
    roles: [...roles.keys()],
    role,
    flags,
    ...splitTexts(texts, starts, ends, inWide),
    starts,
    ends,
    inWide,
    labels,
    labelTimes,
    usageAt: Int32Array.from(usageAt),
    usage: Float64Array.from(usage),
  };
}

/**
 * The part's texts as its two long strings, with where each starts and ends in its own. Most parts
 * are all Latin-1: one join and one scan of it decide that, instead of a test per text.
 */
function splitTexts(
  texts: readonly string[],
  starts: Uint32Array,
  ends: Uint32Array,
  inWide: Uint8Array,
): { latin1: string; wide: string } {
  const joined = texts.join('');
  if (!NOT_LATIN1.test(joined)) {
    let end = 0;
    for (let at = 0; at < texts.length; at++) {
      starts[at] = end;
      ends[at] = end += texts[at]!.length;
    }
    return { latin1: joined, wide: '' };
  }
  const latin1: string[] = [];
  const wide: string[] = [];
  let latin1End = 0;
  let wideEnd = 0;
  for (let at = 0; at < texts.length; at++) {
    const text = texts[at]!;
    if (NOT_LATIN1.test(text)) {
      wide.push(text);
      starts[at] = wideEnd;
      ends[at] = wideEnd += text.length;
      inWide[at] = 1;
    } else {
      latin1.push(text);
      starts[at] = latin1End;
      ends[at] = latin1End += text.length;
    }
  }
  return { latin1: latin1.join(''), wide: wide.join('') };
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

/**
 * A node of an unpacked part: its own fields, and its timestamp, row text and search text read
 * from the part's strings (getters on the prototype: a copy of it made by spreading would lose
 * them, see ViewTree.setLabel).
 */
class PackedNode implements TreeNode {
  label: string | undefined = undefined;
  labelTime: string | undefined = undefined;

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
  const texts = new PartTexts(packed.latin1, packed.wide, packed.starts, packed.ends, packed.inWide);
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
  for (const [at, time] of packed.labelTimes) nodes[at]!.labelTime = time;
  return nodes;
}
