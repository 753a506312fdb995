// The runtime indexes of a session: entries in file order, by id, children by parent, resolved labels,
// and the structural problems of the parent links (self-parents, orphans, cycles). Entries are added
// one at a time, so the same index serves a full load and the live tail of a growing file.
// Every walk is iterative and cycle-guarded: a 200,000-entry chain or fan-out must not overflow the
// stack, and no damaged file may make a walk loop forever.
// One file because the id map, the children lists and the structural issues are updated together
// by every add; a split would let them disagree.

import { timestampSortKey } from './timestamp';
import type { EntryLookup } from './context';
import type { ParseIssue, SessionEntry, SessionTreeNode } from './types';

/** At most this many ids are spelled out in a cycle's message. */
const CYCLE_IDS_SHOWN = 6;

interface CycleInfo {
  /** The earliest member (in file order) of each cycle: it is shown as a root. */
  breakers: Set<string>;
  /** Positions of each cycle's members, in parent order, starting at the breaker. */
  cycles: number[][];
}

function quote(id: string): string {
  return JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
}

export class TreeIndex {
  private readonly list: SessionEntry[] = [];
  private readonly lineNumbers: number[] = [];
  /** Position of every entry by id; an entry by id is `list[position]` (no second map of 200,000 ids). */
  private readonly positions = new Map<string, number>();
  /** Entries by id, through `positions`. */
  private readonly entriesById: EntryLookup = { get: (id) => this.get(id) };
  /**
   * Built on first use (or ahead of it, a part at a time: `prepareChildren`), then kept up to date:
   * a bulk load does not pay for it.
   */
  private childrenByParent: Map<string, SessionEntry[]> | undefined;
  private rootEntries: SessionEntry[] = [];
  /** The children index while `prepareChildren` builds it: the first `done` entries of the list. */
  private childrenSoFar:
    { byParent: Map<string, SessionEntry[]>; roots: SessionEntry[]; done: number } | undefined;
  /** Parent ids named by an entry before any entry had that id. */
  private readonly awaitedParents = new Set<string>();
  private readonly labelsByTarget = new Map<string, string>();
  private readonly labelTimestamps = new Map<string, string>();
  private readonly duplicateIssues: ParseIssue[] = [];
  /** Sort keys of the entries' timestamps, parsed once and extended as entries arrive. */
  private readonly sortTimes: number[] = [];
  /** Undefined when it must be recomputed. */
  private cycleCache: CycleInfo | undefined = { breakers: new Set(), cycles: [] };
  private structuralCache: ParseIssue[] | undefined = [];

  /** Number of indexed entries. */
  get size(): number {
    return this.list.length;
  }

  /** Indexed entries in file order (the index's own array: do not modify it). */
  get entries(): readonly SessionEntry[] {
    return this.list;
  }

  /** Entries by id. */
  get byId(): EntryLookup {
    return this.entriesById;
  }

  /** Resolved labels by target id, in the order the reference's map would hold them. */
  get labels(): ReadonlyMap<string, string> {
    return this.labelsByTarget;
  }

  /**
   * Indexes one entry read from `line` (1-based). Returns a `duplicate-id` issue instead when the id is
   * already taken. The FIRST entry with an id is kept: ids are unique when written, so the first one is
   * the genuine entry and the entries after it that name it as parent already point at it; a later
   * line with the same id is a copy or damage.
   *
   * `retained` is what the index keeps and hands out for the entry: the entry itself, or (for a
   * session that reads entries back from its file) a stub holding what the structure needs: `type`,
   * `id`, `parentId` and `timestamp`. Labels are resolved from `entry` either way.
   */
  add(entry: SessionEntry, line: number, retained: SessionEntry = entry): ParseIssue | undefined {
    const id = entry.id;
    const firstPosition = this.positions.get(id);
    if (firstPosition !== undefined) {
      const duplicate: ParseIssue = {
        line,
        kind: 'duplicate-id',
        message: `line ${line}: duplicate id ${quote(id)} (first used on line ${
          this.lineNumbers[firstPosition] ?? '?'
        }); this later entry is skipped`,
      };
      this.duplicateIssues.push(duplicate);
      return duplicate;
    }

    // A new cycle can only pass through this entry if an earlier entry already names it as parent;
    // the same earlier entries stop being orphans. Else no earlier entry's issues change.
    const awaited = this.awaitedParents.delete(id);
    if (awaited) this.cycleCache = undefined;

    const position = this.list.length;
    this.positions.set(id, position);
    this.list.push(retained);
    this.lineNumbers.push(line);

    const parentId: unknown = entry.parentId;
    if (typeof parentId === 'string' && parentId !== id && !this.positions.has(parentId)) {
      this.awaitedParents.add(parentId);
    }
    if (this.childrenByParent) addChild(this.childrenByParent, this.rootEntries, retained);

    if (entry.type === 'label') this.applyLabel(entry);
    this.extendStructuralCache(position, awaited);
    return undefined;
  }

  /**
   * Keeps the structural issues current after the entry at `position` was added: without an earlier
   * entry awaiting it as parent, the issues before stand and only its own link issue is new (so a live
   * tail pays for one entry, not for a scan of every entry). Else they are found again when asked.
   */
  private extendStructuralCache(position: number, awaited: boolean): void {
    const cache = this.structuralCache;
    if (!cache) return;
    if (awaited) {
      this.structuralCache = undefined;
      return;
    }
    const issue = this.parentLinkIssue(position);
    if (!issue) return;
    // The cache is in line order; an entry from an earlier line (never from a file read in order)
    // takes the full recount.
    if ((cache[cache.length - 1]?.line ?? 0) > issue.line) this.structuralCache = undefined;
    else cache.push(issue);
  }

  /**
   * Builds the children index ahead of its first use, up to `entries` more entries per call (a
   * large session's first children query otherwise builds it whole: 0.4 s at 500,000 entries).
   * Answers whether it is complete. Entries added meanwhile are taken as the build reaches them.
   */
  prepareChildren(entries: number): boolean {
    if (this.childrenByParent) return true;
    const soFar = (this.childrenSoFar ??= { byParent: new Map(), roots: [], done: 0 });
    const end = Math.min(this.list.length, soFar.done + entries);
    for (; soFar.done < end; soFar.done++) addChild(soFar.byParent, soFar.roots, this.list[soFar.done]!);
    if (soFar.done < this.list.length) return false;
    this.childrenByParent = soFar.byParent;
    this.rootEntries = soFar.roots;
    this.childrenSoFar = undefined;
    return true;
  }

  private childrenIndex(): Map<string, SessionEntry[]> {
    if (!this.childrenByParent) this.prepareChildren(Number.POSITIVE_INFINITY);
    return this.childrenByParent as Map<string, SessionEntry[]>;
  }

  has(id: string): boolean {
    return this.positions.has(id);
  }

  get(id: string): SessionEntry | undefined {
    const position = this.positions.get(id);
    return position === undefined ? undefined : this.list[position];
  }

  /** Position of an entry in file order (among indexed entries), or undefined for an unknown id. */
  positionOf(id: string): number | undefined {
    return this.positions.get(id);
  }

  /** The 1-based file line of the entry at a position. */
  lineAt(position: number): number | undefined {
    return this.lineNumbers[position];
  }

  /** The 1-based file line an entry was read from. */
  lineOf(id: string): number | undefined {
    const position = this.positions.get(id);
    return position === undefined ? undefined : this.lineNumbers[position];
  }

  /** The last indexed entry in file order. */
  last(): SessionEntry | undefined {
    return this.list[this.list.length - 1];
  }

  /** Entries whose `parentId` equals `parentId`, in file order (not sorted by time). */
  getChildren(parentId: string | null): SessionEntry[] {
    const childrenByParent = this.childrenIndex();
    if (parentId === null) return this.rootEntries.slice();
    return childrenByParent.get(parentId)?.slice() ?? [];
  }

  getLabel(id: string): string | undefined {
    return this.labelsByTarget.get(id);
  }

  /** Timestamp of the label entry that set the current label of `id`. */
  getLabelTimestamp(id: string): string | undefined {
    return this.labelTimestamps.get(id);
  }

  /** How many issues `getIssues` would answer, without building the list. */
  get issueCount(): number {
    return this.duplicateIssues.length + this.structuralIssues().length;
  }

  /** Duplicate ids seen so far, then the current structural issues, by line. */
  getIssues(): ParseIssue[] {
    return [...this.duplicateIssues, ...this.structuralIssues()].sort((a, b) => a.line - b.line);
  }

  /**
   * Problems of the parent links as they stand now: self-parents, orphans (a parent id that is not in
   * the file, or no parent id at all) and the members of parent cycles. An orphan stops being one when
   * its parent arrives later, so they are the current state's: kept as entries arrive while no entry
   * awaited as a parent does (`extendStructuralCache`), else computed again when asked. The cache
   * itself: do not modify it.
   */
  private structuralIssues(): readonly ParseIssue[] {
    if (this.structuralCache) return this.structuralCache;
    const found: ParseIssue[] = [];
    for (let position = 0; position < this.list.length; position++) {
      const linkIssue = this.parentLinkIssue(position);
      if (linkIssue) found.push(linkIssue);
    }
    for (const cycle of this.cycleInfo().cycles) {
      for (const position of cycle) found.push(this.cycleIssue(cycle, position));
    }
    found.sort((a, b) => a.line - b.line);
    this.structuralCache = found;
    return found;
  }

  /** The structural issues of just these entries, as they stand now (cheap: for the live tail). */
  structuralIssuesOf(ids: Iterable<string>): ParseIssue[] {
    const positions = new Set<number>();
    for (const id of ids) {
      const position = this.positions.get(id);
      if (position !== undefined) positions.add(position);
    }
    const found: ParseIssue[] = [];
    for (const position of positions) {
      const linkIssue = this.parentLinkIssue(position);
      if (linkIssue) found.push(linkIssue);
    }
    for (const cycle of this.cycleInfo().cycles) {
      for (const position of cycle) {
        if (positions.has(position)) found.push(this.cycleIssue(cycle, position));
      }
    }
    return found.sort((a, b) => a.line - b.line);
  }

  private parentLinkIssue(position: number): ParseIssue | undefined {
    const entry = this.list[position] as SessionEntry;
    const line = this.lineNumbers[position] as number;
    const parentId: unknown = entry.parentId;
    if (parentId === null) return undefined;
    if (parentId === entry.id) {
      return {
        line,
        kind: 'self-parent',
        message: `line ${line}: entry ${quote(entry.id)} is its own parent; it is shown as a root`,
      };
    }
    if (typeof parentId !== 'string') {
      const what = parentId === undefined ? 'has no parentId' : 'has a parentId that is not a string';
      return {
        line,
        kind: 'orphan',
        message: `line ${line}: entry ${quote(entry.id)} ${what}; it is shown as a root`,
      };
    }
    if (this.positions.has(parentId)) return undefined;
    return {
      line,
      kind: 'orphan',
      message: `line ${line}: the parent ${quote(parentId)} of entry ${quote(
        entry.id,
      )} is not in the file; it is shown as a root`,
    };
  }

  private cycleIssue(cycle: readonly number[], position: number): ParseIssue {
    const ids = cycle.slice(0, CYCLE_IDS_SHOWN + 1).map((member) => (this.list[member] as SessionEntry).id);
    const breaker = ids[0] as string;
    const chain =
      cycle.length <= CYCLE_IDS_SHOWN
        ? [...ids, breaker].join(' → ')
        : `${ids.slice(0, CYCLE_IDS_SHOWN).join(' → ')} → … (${cycle.length} entries)`;
    const line = this.lineNumbers[position] as number;
    return {
      line,
      kind: 'parent-cycle',
      message: `line ${line}: entry ${quote(
        (this.list[position] as SessionEntry).id,
      )} is in a parent cycle (${chain}); ${quote(breaker)}, the earliest, is shown as a root`,
    };
  }

  /** Whether `getTree()` shows this entry as a root. */
  isRoot(id: string): boolean {
    const position = this.positions.get(id);
    return position !== undefined && this.treeParentPosition(position, this.cycleInfo().breakers) === -1;
  }

  /**
   * The path from the root of `fromId`'s tree down to `fromId`, root first; `[]` for an unknown id.
   * It stops where `getTree()` puts a root: a null, missing or self parent, or a cycle's breaker.
   */
  getBranch(fromId: string | null | undefined): SessionEntry[] {
    if (fromId === null || fromId === undefined) return [];
    let position = this.positions.get(fromId);
    if (position === undefined) return [];
    const breakers = this.cycleInfo().breakers;
    const path: SessionEntry[] = [];
    // The bound is a second guard: the breakers already end every cycle.
    while (position !== -1 && path.length <= this.list.length) {
      path.push(this.list[position] as SessionEntry);
      position = this.treeParentPosition(position, breakers);
    }
    return path.reverse();
  }

  /**
   * The forest of all entries (docs/tree-and-context.md#tree): roots in file order are entries with a null,
   * missing or self parent, plus the earliest member of each parent cycle; every node's children are
   * sorted by timestamp, oldest first, equal times in file order, unparsable times after the valid ones
   * in file order. Every indexed entry appears exactly once. Nodes are fresh objects on every call.
   *
   * Built in O(n log n) over index arrays: children are gathered in one counting pass (CSR layout), and
   * only sibling groups that are not already in time order get sorted.
   */
  getTree(): SessionTreeNode[] {
    const count = this.list.length;
    const breakers = this.cycleInfo().breakers;
    const times = this.timesUpToDate();

    const parentOf = new Int32Array(count);
    const childCounts = new Int32Array(count + 1);
    const roots: number[] = [];
    for (let position = 0; position < count; position++) {
      const parent = this.treeParentPosition(position, breakers);
      parentOf[position] = parent;
      if (parent === -1) roots.push(position);
      else childCounts[parent + 1] = (childCounts[parent + 1] as number) + 1;
    }
    // Prefix sums turn counts into each parent's start offset in `children`.
    const starts = childCounts;
    for (let position = 0; position < count; position++) {
      starts[position + 1] = (starts[position + 1] as number) + (starts[position] as number);
    }
    const fill = starts.slice(0, count);
    const children = new Int32Array(count - roots.length);
    for (let position = 0; position < count; position++) {
      const parent = parentOf[position] as number;
      if (parent !== -1) {
        children[fill[parent] as number] = position;
        fill[parent] = (fill[parent] as number) + 1;
      }
    }

    const byTimeThenFileOrder = (a: number, b: number): number => compareTimes(times, a, b) || a - b;

    const nodes: SessionTreeNode[] = new Array<SessionTreeNode>(count);
    for (let position = 0; position < count; position++) {
      const entry = this.list[position] as SessionEntry;
      const label = this.labelsByTarget.get(entry.id);
      if (label === undefined) {
        nodes[position] = { entry, children: [] };
      } else {
        const labelTimestamp = this.labelTimestamps.get(entry.id);
        nodes[position] =
          labelTimestamp === undefined
            ? { entry, children: [], label }
            : { entry, children: [], label, labelTimestamp };
      }
    }
    for (let parent = 0; parent < count; parent++) {
      const start = starts[parent] as number;
      const end = starts[parent + 1] as number;
      if (end === start) continue;
      const group = children.subarray(start, end);
      if (end - start > 1 && !isSorted(group, times)) group.sort(byTimeThenFileOrder);
      const list = (nodes[parent] as SessionTreeNode).children;
      for (let k = 0; k < group.length; k++) list.push(nodes[group[k] as number] as SessionTreeNode);
    }
    return roots.map((position) => nodes[position] as SessionTreeNode);
  }

  private applyLabel(entry: SessionEntry): void {
    const targetId = entry.targetId;
    if (typeof targetId !== 'string') return;
    const label = entry.label;
    // Same map operations as the reference: `set` keeps an existing key's place, so the iteration
    // order used when labels are copied into a branched session matches.
    if (typeof label === 'string' && label.length > 0) {
      this.labelsByTarget.set(targetId, label);
      if (typeof entry.timestamp === 'string') this.labelTimestamps.set(targetId, entry.timestamp);
      else this.labelTimestamps.delete(targetId);
    } else {
      this.labelsByTarget.delete(targetId);
      this.labelTimestamps.delete(targetId);
    }
  }

  /** Position of the parent link `getTree()` follows, or -1 where the entry is shown as a root. */
  private treeParentPosition(position: number, breakers: ReadonlySet<string>): number {
    const entry = this.list[position] as SessionEntry;
    if (breakers.has(entry.id)) return -1;
    return this.parentPosition(position);
  }

  /** Position of the entry's parent, or -1 for a null, missing, non-string or self parent. */
  private parentPosition(position: number): number {
    const entry = this.list[position] as SessionEntry;
    const parentId: unknown = entry.parentId;
    if (typeof parentId !== 'string' || parentId === entry.id) return -1;
    return this.positions.get(parentId) ?? -1;
  }

  private timesUpToDate(): number[] {
    for (let position = this.sortTimes.length; position < this.list.length; position++) {
      this.sortTimes.push(timestampSortKey((this.list[position] as SessionEntry).timestamp));
    }
    return this.sortTimes;
  }

  /**
   * Finds every parent cycle in O(n): each entry has at most one parent, so walking up from each
   * unvisited entry either ends at a root, reaches an entry finished by an earlier walk, or comes back
   * to an entry of the current walk, which closes a cycle.
   */
  private cycleInfo(): CycleInfo {
    if (this.cycleCache) return this.cycleCache;
    const count = this.list.length;
    const state = new Uint8Array(count); // 0 unvisited, 1 on the current walk, 2 finished
    const info: CycleInfo = { breakers: new Set(), cycles: [] };
    const walk: number[] = [];
    for (let start = 0; start < count; start++) {
      if (state[start] !== 0) continue;
      walk.length = 0;
      let position = start;
      while (position !== -1 && state[position] === 0) {
        state[position] = 1;
        walk.push(position);
        position = this.parentPosition(position);
      }
      if (position !== -1 && state[position] === 1) {
        const members = walk.slice(walk.indexOf(position));
        let earliest = 0;
        for (let k = 1; k < members.length; k++) {
          if ((members[k] as number) < (members[earliest] as number)) earliest = k;
        }
        const rotated = [...members.slice(earliest), ...members.slice(0, earliest)];
        info.breakers.add((this.list[rotated[0] as number] as SessionEntry).id);
        info.cycles.push(rotated);
      }
      for (const visited of walk) state[visited] = 2;
    }
    this.cycleCache = info;
    return info;
  }
}

/** Compares two entries' sort times; two unparsable times (both infinite) are equal. */
function compareTimes(times: readonly number[], a: number, b: number): number {
  const difference = (times[a] as number) - (times[b] as number);
  return Number.isNaN(difference) ? 0 : difference;
}

function isSorted(group: Int32Array, times: readonly number[]): boolean {
  for (let k = 1; k < group.length; k++) {
    const previous = group[k - 1] as number;
    const current = group[k] as number;
    const order = compareTimes(times, previous, current) || previous - current;
    if (order > 0) return false;
  }
  return true;
}

/** Files `entry` under its parent in `childrenByParent`, or among `roots` for a null parent. */
function addChild(
  childrenByParent: Map<string, SessionEntry[]>,
  roots: SessionEntry[],
  entry: SessionEntry,
): void {
  const parentId: unknown = entry.parentId;
  if (parentId === null) {
    roots.push(entry);
  } else if (typeof parentId === 'string') {
    const siblings = childrenByParent.get(parentId);
    if (siblings) siblings.push(entry);
    else childrenByParent.set(parentId, [entry]);
  }
}
