// The tree of view entries, with the same shape rules as SessionManager.getTree()
// (docs/tree-and-context.md#tree): roots are entries whose parent is null, themselves, or absent,
// plus one breaker per parent cycle (its earliest member in file order); roots keep file order;
// children are sorted by timestamp, oldest first, stable, invalid timestamps last. Every entry
// with a new id appears exactly once; a repeated id keeps the first entry.
//
// Nodes live in parallel arrays indexed by their position in file order, so building and
// re-flattening 200,000 entries stays cheap and every walk is a loop, never recursion. A snapshot
// streamed in chunks is built with `append`: each chunk costs time in proportion to its own size,
// not the tree's (children lists are sorted when next read, not on every insertion).
// One file (past 300 lines) because every method reads and writes the same parallel arrays.

import { timestampSortKey } from '../timestamp';
import { ARCHIVE_INSIDE, ARCHIVE_NONE, ARCHIVE_ROOT, archiveStateOf } from './archive-state';
import { IdIndex } from './id-index';
import { TreeWork } from './work';
import { ViewFlags } from './row-format';
import type { ViewEntry } from './view-entry';

/** Room of the numeric columns of an empty tree. */
const INITIAL_CAPACITY = 1024;

/**
 * In-place changes remembered for {@link ViewTree.changesSince}, and the most nodes
 * {@link ViewTree.entriesChangedSince} lists one by one.
 */
const MAX_EDITS = 64;

export class ViewTree {
  /**
   * What the rows computations keep between calls for this tree (caches and working arrays,
   * work.ts): owned here so that nothing of it is module-level and two trees never share it.
   */
  readonly work = new TreeWork();
  private entries: ViewEntry[] = [];
  /** Position of every id (typed arrays: no long rehash as a large tree grows, see id-index.ts). */
  private readonly positions = new IdIndex((index) => this.entries[index]!.id);
  // The numeric columns are typed arrays grown by doubling: a plain array of 100,000+ numbers
  // grows by copying into a new backing store, 10-20 ms each time it fills (measured in Node).
  /** Tree parent of each node (-1 for a root); differs from `parentId` for orphans, self-parents and cycle breakers. */
  private parents = new Int32Array(INITIAL_CAPACITY);
  /** Sort key of each node's timestamp (timestampSortKey). */
  private keys = new Float64Array(INITIAL_CAPACITY);
  /**
   * The only child of each node with exactly one (-1 otherwise), and the child lists of those with
   * more: most nodes of a conversation have one child, and a list for each would be two more heap
   * objects per node that live as long as the tree (and are copied by every young-generation
   * collection while a large snapshot streams in).
   */
  private onlyChild = new Int32Array(INITIAL_CAPACITY).fill(-1);
  private childLists: (number[] | undefined)[] = [];
  private rootList: number[] = [];
  /** Nodes whose parent id has not appeared yet, by that id: they become children when it does. */
  private waiting = new Map<string, number[]>();
  /** Nodes whose children list got a child out of timestamp order since it was last read. */
  private unsorted = new Set<number>();
  private revision = 0;
  private skipped = 0;
  /**
   * What changed in place, with the version that did it: an entry replaced (a label, a flag, a
   * replaced row), or a subtree whose archive states a record changed (one note however large the
   * branch). The one journal of in-place changes: `entriesChangedSince` lists its nodes.
   */
  private changes: { version: number; index: number; subtree: boolean }[] = [];
  private changesKnownFrom = 0;
  /** Nodes by entry type, for the types asked about (`indicesOfType`), kept as entries arrive. */
  private byType = new Map<string, number[]>();
  /** Entries inside archived branches, and the branches' roots among them (`archivedCounts`). */
  private archivedEntries = 0;
  private archivedRoots = 0;
  private revealArchived = false;
  /**
   * The archive state of each node (archive-state.ts), derived from the ArchiveTarget flags of it and
   * its ancestors: a record changes one entry's flag, and the tree walks the subtree below it.
   */
  private archive = new Uint8Array(INITIAL_CAPACITY);
  /** Nodes whose entry is an archive target: while none is, every state is ARCHIVE_NONE and no walk runs. */
  private archiveTargets = 0;

  constructor(entries: readonly ViewEntry[] = []) {
    this.build(entries);
  }

  /** Number of entries in the tree. */
  get size(): number {
    return this.entries.length;
  }

  /** Changes whenever the structure or a label changes; caches key on it. */
  get version(): number {
    return this.revision;
  }

  /**
   * The nodes whose entry changed in place since `version` (a label set, a row replaced, and every
   * node of a subtree whose archive states a record changed), for caches that keep per-node facts;
   * a node may be listed twice, and nodes added since may be listed (callers skip them). Null when
   * that is not known (built anew since, too many changes ago, or more than MAX_EDITS nodes):
   * compute from scratch. Node indices never change while the tree lives; it only grows.
   */
  entriesChangedSince(version: number): readonly number[] | null {
    const changes = this.changesSince(version);
    if (changes === null) return null;
    // A subtree note stands for every node under it (whose archive states may differ): listed while
    // they are a few, else the caller starts over, as it would for a whole branch anyway.
    const changed = changes.entries;
    for (const root of changes.subtrees)
      this.walkSubtree(root, (node) => {
        if (changed.length > MAX_EDITS) return false;
        changed.push(node);
        return true;
      });
    return changed.length > MAX_EDITS ? null : changed;
  }

  /**
   * What changed in place since `version`, coarser than `entriesChangedSince` and known further
   * back: `entries` replaced in place (a label, a flag, a replaced row), and `subtrees`, nodes whose
   * whole subtree's archive states may differ (an archive record's target, an orphan adopted under
   * an archived entry) however many nodes that is. Appended nodes are not listed. Null when not known.
   */
  changesSince(version: number): { entries: number[]; subtrees: number[] } | null {
    if (version < this.changesKnownFrom || version > this.revision) return null;
    const entries: number[] = [];
    const subtrees: number[] = [];
    for (const change of this.changes) {
      if (change.version <= version) continue;
      (change.subtree ? subtrees : entries).push(change.index);
    }
    return { entries, subtrees };
  }

  /**
   * The nodes whose entry has this type, in file order. The first call for a type walks the tree;
   * later ones are kept up to date as entries arrive (a bring-back marker is a rare custom_message:
   * finding them must not cost a walk of 200,000 entries per live append).
   */
  indicesOfType(type: string): readonly number[] {
    let list = this.byType.get(type);
    if (list === undefined) {
      list = [];
      const entries = this.entries;
      for (let i = 0; i < entries.length; i++) if (entries[i]!.type === type) list.push(i);
      this.byType.set(type, list);
    }
    return list;
  }

  /** Entries inside archived branches and how many branches hold them (what the folded view hides). */
  get archivedCounts(): { branches: number; entries: number } {
    return { branches: this.archivedRoots, entries: this.archivedEntries };
  }

  /**
   * Whether archived branches are shown (dimmed) rather than folded into their stub
   * (docs/archive-and-family.md#archive). A view setting kept on the tree because every cache of
   * rows and visibility keys on the tree's version: changing it is a new version.
   */
  get archivedRevealed(): boolean {
    return this.revealArchived;
  }

  /** Shows or folds archived branches; answers whether that changed anything. */
  setArchivedRevealed(revealed: boolean): boolean {
    if (revealed === this.revealArchived) return false;
    this.revealArchived = revealed;
    // Every entry's filter class may differ: no cache may catch up edit by edit.
    this.revision++;
    this.forgetChanges();
    return true;
  }

  /** The archive state of a node (archive-state.ts): whether it is inside an archived branch, and its root. */
  archiveStateAt(index: number): number {
    return this.archive[index]!;
  }

  /** The archive state of an entry (ARCHIVE_NONE for an unknown id). */
  archiveStateOf(id: string): number {
    const index = this.positions.indexOf(id);
    return index < 0 ? ARCHIVE_NONE : this.archive[index]!;
  }

  /** The archive state the filters see: a node's state while archived branches are folded, none while revealed. */
  foldedArchiveAt(index: number): number {
    return this.revealArchived ? ARCHIVE_NONE : this.archive[index]!;
  }

  /** Entries dropped because their id was empty or already taken. */
  get skippedCount(): number {
    return this.skipped;
  }

  get(id: string): ViewEntry | undefined {
    const index = this.positions.indexOf(id);
    return index < 0 ? undefined : this.entries[index];
  }

  has(id: string): boolean {
    return this.positions.indexOf(id) >= 0;
  }

  /** The tree parent's id (null for a root or an unknown id). */
  parentOf(id: string): string | null {
    const index = this.positions.indexOf(id);
    if (index < 0) return null;
    const parent = this.parents[index]!;
    return parent < 0 ? null : this.entries[parent]!.id;
  }

  /** Ids of the children, in display order before active-branch reordering. */
  childrenOf(id: string): string[] {
    const index = this.positions.indexOf(id);
    if (index < 0) return [];
    return (this.childIndicesAt(index) ?? []).map((child) => this.entries[child]!.id);
  }

  /** Ids of the roots, in file order. */
  rootIds(): string[] {
    return this.rootList.map((root) => this.entries[root]!.id);
  }

  /** Every entry, in file order. */
  allEntries(): readonly ViewEntry[] {
    return this.entries;
  }

  // ---- index-based access for the flattening code (no allocation per call)

  /** Position of an id in file order, or -1. */
  indexOf(id: string): number {
    return this.positions.indexOf(id);
  }

  entryAt(index: number): ViewEntry {
    return this.entries[index]!;
  }

  parentIndexAt(index: number): number {
    return this.parents[index]!;
  }

  /** The children in display order (before active-branch reordering); a new array for one child. */
  childIndicesAt(index: number): readonly number[] | undefined {
    if (this.unsorted.size > 0) this.sortChildren();
    const only = this.onlyChild[index]!;
    return only >= 0 ? [only] : this.childLists[index];
  }

  /** How many children a node has; with `childAt`, a walk that allocates nothing per node. */
  childCountAt(index: number): number {
    if (this.unsorted.size > 0) this.sortChildren();
    if (this.onlyChild[index]! >= 0) return 1;
    return this.childLists[index]?.length ?? 0;
  }

  /** The `k`-th child of a node in display order (k < childCountAt(index)). */
  childAt(index: number, k: number): number {
    const only = this.onlyChild[index]!;
    return only >= 0 ? only : this.childLists[index]![k]!;
  }

  /**
   * Visits `root` and the nodes under it depth first, a node before its children (in their order),
   * going below a node only when `visit` answers true for it. Iterative: a branch may be 100,000
   * entries deep.
   */
  walkSubtree(root: number, visit: (node: number) => boolean): void {
    const stack = [root];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (!visit(node)) continue;
      for (let k = this.childCountAt(node) - 1; k >= 0; k--) stack.push(this.childAt(node, k));
    }
  }

  rootIndices(): readonly number[] {
    return this.rootList;
  }

  // ---- updates

  /**
   * Makes room for `count` entries in all (a streamed snapshot whose head says how many nodes
   * come), so that appending them never stops to grow the id index. Changes nothing visible.
   */
  reserve(count: number): void {
    this.positions.reserve(count);
    if (count > this.parents.length) this.growColumns(count);
  }

  /** Makes the numeric columns hold at least `count` nodes (doubling, so appends stay O(1) amortised). */
  private growColumns(count: number): void {
    let capacity = this.parents.length;
    while (capacity < count) capacity *= 2;
    const parents = new Int32Array(capacity);
    parents.set(this.parents);
    this.parents = parents;
    const keys = new Float64Array(capacity);
    keys.set(this.keys);
    this.keys = keys;
    const onlyChild = new Int32Array(capacity);
    onlyChild.set(this.onlyChild);
    this.onlyChild = onlyChild;
    const archive = new Uint8Array(capacity);
    archive.set(this.archive);
    this.archive = archive;
  }

  /**
   * Adds entries written after the ones already in the tree: a live tail, or the next chunk of a
   * streamed snapshot. Costs time in proportion to `entries.length` (an entry that arrives before
   * its parent adds a walk up from that parent when it arrives); the result is the same as
   * building from all entries at once.
   */
  append(entries: readonly ViewEntry[]): void {
    if (entries.length === 0) return;
    if (this.entries.length === 0) {
      this.build(entries);
      return;
    }
    const adoptedSubtrees: number[] = [];
    for (const entry of entries) this.appendOne(entry, adoptedSubtrees);
    this.revision++;
    for (const orphan of adoptedSubtrees) this.noteChange(orphan, true);
  }

  /** Sets or clears (undefined or "") the label of an entry; returns false for an unknown id. */
  setLabel(id: string, label: string | undefined): boolean {
    const index = this.positions.indexOf(id);
    if (index < 0) return false;
    const entry = this.entries[index]!;
    const next = label === '' ? undefined : label;
    if (entry.label === next) return true;
    // Entries are treated as immutable values (UI code may hold them), so a label change replaces the
    // object: a copy with the same prototype, since an entry may read some fields through getters
    // there (the page's unpacked snapshot nodes), which a spread would not copy.
    const updated = Object.assign(Object.create(Object.getPrototypeOf(entry) as object) as ViewEntry, entry);
    // A label set here has no known time: the server's next row for it brings one.
    delete updated.labelTime;
    if (next === undefined) delete updated.label;
    else updated.label = next;
    this.entries[index] = updated;
    this.revision++;
    this.noteChange(index, false);
    return true;
  }

  /**
   * Replaces the entry with the same id by `entry` (a row whose facts changed after it was first
   * read: a label, a tool result whose call arrived later); returns false for an unknown id. An
   * entry that keeps its parent and timestamp keeps its place; otherwise the tree is rebuilt.
   */
  replace(entry: ViewEntry): boolean {
    const index = this.positions.indexOf(entry.id);
    if (index < 0) return false;
    const before = this.entries[index]!;
    this.entries[index] = entry;
    this.archiveTargets += isArchiveTarget(entry) - isArchiveTarget(before);
    if (before.type !== entry.type) this.byType.clear();
    if (before.parentId === entry.parentId && before.timestamp === entry.timestamp) {
      const subtree = isArchiveTarget(entry) !== isArchiveTarget(before) && this.deriveArchive(index);
      this.revision++;
      this.noteChange(index, false);
      if (subtree) this.noteChange(index, true);
    } else this.build(this.entries);
    return true;
  }

  private noteChange(index: number, subtree: boolean): void {
    this.changes.push({ version: this.revision, index, subtree });
    if (this.changes.length > MAX_EDITS) this.changesKnownFrom = this.changes.shift()!.version;
  }

  /**
   * Sets the archive state of `start` and its subtree from their flags and `start`'s parent, listing
   * in `changed` each node whose state changed. A node whose state stays is not walked below: its
   * subtree's states follow from it and were right before.
   */
  private deriveArchive(start: number): boolean {
    const { archive, parents, entries } = this;
    let changed = false;
    this.walkSubtree(start, (node) => {
      const parent = parents[node]!;
      const state = archiveStateOf(entries[node]!.flags, parent < 0 ? ARCHIVE_NONE : archive[parent]!);
      if (state === archive[node]) return false;
      this.setArchiveState(node, state);
      changed = true;
      return true;
    });
    return changed;
  }

  /** Sets a node's archive state, keeping the archived counts. */
  private setArchiveState(node: number, state: number): void {
    const old = this.archive[node]!;
    this.archivedEntries += (state & ARCHIVE_INSIDE) - (old & ARCHIVE_INSIDE);
    this.archivedRoots += ((state & ARCHIVE_ROOT) - (old & ARCHIVE_ROOT)) / ARCHIVE_ROOT;
    this.archive[node] = state;
  }

  // ---- building

  private reset(): void {
    this.entries = [];
    this.positions.clear();
    this.childLists = [];
    this.rootList = [];
    this.waiting = new Map();
    this.unsorted = new Set();
    this.archiveTargets = 0;
    this.archivedEntries = 0;
    this.archivedRoots = 0;
    this.byType.clear();
  }

  private accept(entry: ViewEntry): number {
    // The id index answers -1 for an id already taken; positions and entries grow together.
    const index = typeof entry.id !== 'string' || entry.id === '' ? -1 : this.positions.add(entry.id);
    if (index < 0) {
      this.skipped++;
      return -1;
    }
    this.entries.push(entry);
    if (this.byType.size > 0) this.byType.get(entry.type)?.push(index);
    if (index >= this.parents.length) this.growColumns(index + 1);
    this.keys[index] = timestampSortKey(entry.timestamp);
    this.archive[index] = ARCHIVE_NONE;
    this.archiveTargets += isArchiveTarget(entry);
    this.parents[index] = -1;
    this.onlyChild[index] = -1;
    this.childLists.push(undefined);
    return index;
  }

  /** The parent index an entry links to, -1 when it is a root; records it as waiting when its parent is absent. */
  private resolveParent(index: number): number {
    const entry = this.entries[index]!;
    const parentId = entry.parentId;
    if (typeof parentId !== 'string' || parentId === entry.id) return -1;
    const parent = this.positions.indexOf(parentId);
    if (parent >= 0) return parent;
    const list = this.waiting.get(parentId);
    if (list === undefined) this.waiting.set(parentId, [index]);
    else list.push(index);
    return -1;
  }

  private build(entries: readonly ViewEntry[]): void {
    this.reset();
    if (entries.length > this.parents.length) this.growColumns(entries.length);
    this.positions.reserve(entries.length);
    for (const entry of entries) this.accept(entry);
    const count = this.entries.length;
    const parents = this.parents;
    // Every entry is indexed before any parent is resolved, so only ids that never appeared end up
    // waiting (in file order); a later append may still bring them.
    for (let i = 0; i < count; i++) parents[i] = this.resolveParent(i);
    this.breakCycles();
    const { onlyChild, childLists } = this;
    for (let i = 0; i < count; i++) {
      const parent = parents[i]!;
      if (parent < 0) {
        this.rootList.push(i);
      } else {
        const list = childLists[parent];
        if (list !== undefined) list.push(i);
        else if (onlyChild[parent]! < 0) onlyChild[parent] = i;
        else {
          childLists[parent] = [onlyChild[parent]!, i];
          onlyChild[parent] = -1;
        }
      }
    }
    const keys = this.keys;
    for (let i = 0; i < count; i++) {
      const list = childLists[i];
      if (list === undefined || list.length < 2) continue;
      // Lists were filled in file order, so sorting by key with the index as tie-break is stable.
      let sorted = true;
      for (let j = 1; j < list.length; j++) {
        if (keys[list[j - 1]!]! > keys[list[j]!]!) {
          sorted = false;
          break;
        }
      }
      if (!sorted) list.sort((a, b) => keys[a]! - keys[b]! || a - b);
    }
    if (this.archiveTargets > 0) {
      // From each target down (in any order: a walk stops where states no longer change, and an
      // outer target's walk turns an inner branch root it reaches into an entry inside).
      const entries = this.entries;
      for (let i = 0; i < count; i++) if (isArchiveTarget(entries[i]!) === 1) this.deriveArchive(i);
    }
    this.revision++;
    this.forgetChanges();
  }

  /** Every node may have changed: no cache catches up change by change. */
  private forgetChanges(): void {
    this.changes = [];
    this.changesKnownFrom = this.revision;
  }

  /**
   * Cuts one link per parent cycle: the earliest member in file order becomes a root, the rest
   * keep hanging under it. Linear: each node is walked once.
   */
  private breakCycles(): void {
    const parents = this.parents;
    const count = this.entries.length;
    // 0 = not visited, walk number + 1 while on the current walk, -1 when settled.
    const state = new Int32Array(count);
    for (let start = 0; start < count; start++) {
      if (state[start] !== 0) continue;
      const walk = start + 1;
      let node = start;
      while (node >= 0 && state[node] === 0) {
        state[node] = walk;
        node = parents[node]!;
      }
      if (node >= 0 && state[node] === walk) {
        // `node` is on a cycle that this walk closed.
        let earliest = node;
        let member = parents[node]!;
        while (member !== node) {
          if (member < earliest) earliest = member;
          member = parents[member]!;
        }
        parents[earliest] = -1;
      }
      node = start;
      while (node >= 0 && state[node] === walk) {
        state[node] = -1;
        node = parents[node]!;
      }
    }
  }

  private appendOne(entry: ViewEntry, adoptedSubtrees: number[]): void {
    const index = this.accept(entry);
    if (index < 0) return;
    const parent = this.resolveParent(index);
    if (parent >= 0) this.link(index, parent);
    // The highest index so far: appending keeps the roots in file order.
    else this.rootList.push(index);
    if (this.archiveTargets > 0)
      this.setArchiveState(
        index,
        archiveStateOf(entry.flags, parent < 0 ? ARCHIVE_NONE : this.archive[parent]!),
      );
    // Most sessions have no orphan waiting: no lookup (a hash of the id) per appended entry then.
    if (this.waiting.size === 0) return;
    const waiting = this.waiting.get(entry.id);
    if (waiting === undefined) return;
    this.waiting.delete(entry.id);
    for (const orphan of waiting) {
      this.adoptOrphan(orphan, index);
      // Under its new parent, an earlier entry's subtree may be inside an archived branch now.
      if (this.archiveTargets > 0 && this.deriveArchive(orphan)) adoptedSubtrees.push(orphan);
    }
  }

  /** An earlier root whose parent just appeared becomes its child, unless that closes a cycle. */
  private adoptOrphan(orphan: number, parent: number): void {
    // The orphan is a root, so the new parent descends from it exactly when the walk up from the
    // parent ends at the orphan; that walk is the whole cycle the new link would close.
    let earliest = orphan;
    let node = parent;
    while (node >= 0 && node !== orphan) {
      if (node < earliest) earliest = node;
      node = this.parents[node]!;
    }
    if (node === orphan) {
      // Same rule as a full build: the cycle's earliest member is the root.
      if (earliest === orphan) return;
      this.unlink(earliest);
      this.insertRoot(earliest);
    }
    this.removeRoot(orphan);
    this.link(orphan, parent);
  }

  private link(child: number, parent: number): void {
    this.parents[child] = parent;
    let list = this.childLists[parent];
    if (list === undefined) {
      const only = this.onlyChild[parent]!;
      if (only < 0) {
        this.onlyChild[parent] = child;
        return;
      }
      this.onlyChild[parent] = -1;
      this.childLists[parent] = list = [only];
    }
    const keys = this.keys;
    const last = list[list.length - 1]!;
    // Appended entries usually come in timestamp order: then the child goes last, as a stable sort
    // of (key, index) would put it. Otherwise the list is sorted when next read.
    if (keys[last]! > keys[child]! || (keys[last] === keys[child] && last > child)) this.unsorted.add(parent);
    list.push(child);
  }

  /** Sorts the children lists that got a child out of order, by (key, index) like a full build. */
  private sortChildren(): void {
    const keys = this.keys;
    for (const parent of this.unsorted) {
      this.childLists[parent]?.sort((a, b) => keys[a]! - keys[b]! || a - b);
    }
    this.unsorted.clear();
  }

  private unlink(child: number): void {
    const parent = this.parents[child]!;
    if (parent < 0) return;
    this.parents[child] = -1;
    if (this.onlyChild[parent] === child) {
      this.onlyChild[parent] = -1;
      return;
    }
    const list = this.childLists[parent]!;
    list.splice(list.indexOf(child), 1);
    if (list.length > 1) return;
    // Back to one child: it is kept as the only child (a list is for two or more).
    this.onlyChild[parent] = list[0]!;
    this.childLists[parent] = undefined;
  }

  private rootPosition(index: number): number {
    const roots = this.rootList;
    let low = 0;
    let high = roots.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (roots[mid]! < index) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private insertRoot(index: number): void {
    this.rootList.splice(this.rootPosition(index), 0, index);
  }

  private removeRoot(index: number): void {
    const position = this.rootPosition(index);
    if (this.rootList[position] === index) this.rootList.splice(position, 1);
  }
}

/** 1 when the entry is an archive target (its flags carry ArchiveTarget), else 0. */
function isArchiveTarget(entry: ViewEntry): number {
  return (entry.flags & ViewFlags.ArchiveTarget) !== 0 ? 1 : 0;
}
