// Flattening of the view tree into display rows (docs/tree-and-context.md#rows and #filters, pi's
// `flattenTree` + `applyFilter` + `recalculateVisualStructure`): depth-first order with the
// active branch first at every fork, then the filter and search, then indents, connectors and
// gutters computed over the VISIBLE forest, where each visible entry hangs from its nearest
// visible ancestor. One call is O(n) with loops only; the depth-first order is cached per tree
// version and leaf, so a filter change or a search keystroke skips the traversal. Every cache and
// working array is the tree's own (`tree.work`, work.ts): no module-level state.
// One file because the passes share the working arrays and caches that keep a call O(n) without
// allocation; split, each pass would have to hand them over.

import { rowsAfterAppend } from './append';
import { FILTER_MODES, passesFilter, type FilterMode } from './filter';
import { rowsAfterJump, type ReuseCache, type RowsState } from './jump';
import {
  childChainOf,
  lineFlipCount,
  NODE_JUST_BRANCHED,
  Row,
  RowIndex,
  ROW_ACTIVE,
  ROW_LAST,
  ROW_LEAF,
  ROW_LEAF_POSITION,
  ROW_MULTIPLE_ROOTS,
  ROW_SHOW_CONNECTOR,
  ROW_VIRTUAL_ROOT_CHILD,
  rowsWork,
  type GutterLink,
} from './row';
import {
  SCRATCH_CHILD_COUNT,
  SCRATCH_INDENT,
  SCRATCH_NEAREST,
  SCRATCH_SIBLING_POSITION,
  SCRATCH_STACK,
  SCRATCH_VISIBLE,
  SCRATCH_VISIBLE_PARENT,
  withHeadroom,
} from './work';
import { matchesQuery, tokenizeQuery } from './search';
import type { ViewEntry } from './view-entry';
import type { ViewTree } from './view-tree';
import { prepareFilterBits, visibleBits } from './visibility';

export interface Gutter {
  /** The display level of the ancestor's connector. */
  position: number;
  /** Draw `│` (the ancestor has later siblings) or a blank. */
  show: boolean;
}

/**
 * One display row. Rows are shared between results (a later call on the same tree hands back the
 * rows whose layout did not change, same objects) and are not to be changed by callers. The API's
 * one mutation after a row is returned: a later jump on the same tree turns its gutter lines over
 * in place (row.ts's flipLines) and hands back the same row; it then returns a new result, so compare
 * results, or read rows again from the newest, rather than keep a row's `gutters` from an older one.
 */
export interface FlatRow {
  id: string;
  entry: ViewEntry;
  /** Indent level of the visible forest (with several visible roots, roots are at 1). */
  indent: number;
  /** The indent as drawn: `indent - 1` with several visible roots, else `indent`. */
  displayIndent: number;
  /** The visible parent has several visible children (or this is one of several roots). */
  showConnector: boolean;
  /** Last among its visible siblings. */
  isLast: boolean;
  /** Vertical lines continued from ancestors that drew a connector, outermost first. */
  readonly gutters: readonly Gutter[];
  /** One of several visible roots: it hangs from a virtual root and draws no connector. */
  isVirtualRootChild: boolean;
  /** On the path from the current leaf to its root. */
  onActivePath: boolean;
  /** The current leaf. */
  isLeaf: boolean;
  /**
   * Where the next message goes as far as the visible rows can show it: the leaf itself, or, when
   * the filter hides the leaf (a label or model change just written), its nearest visible ancestor.
   */
  isLeafPosition: boolean;
  /** Nearest visible ancestor, or null for a visible root. */
  visibleParentId: string | null;
  visibleChildCount: number;
}

export interface ComputeRowsOptions {
  leafId: string | null;
  mode?: FilterMode;
  query?: string;
  /** The entry to select; its nearest visible ancestor is chosen when it is hidden. Defaults to the leaf. */
  selectedId?: string | null;
}

export interface RowsResult {
  rows: FlatRow[];
  /** Row index by entry id, visible rows only; iterates in row order. */
  indexById: ReadonlyMap<string, number>;
  /** The selected row, or -1 when there are no rows. */
  selectedIndex: number;
  /** More than one visible root: the rows hang from a virtual root. */
  multipleRoots: boolean;
  /** The row that carries the leaf mark (see FlatRow.isLeafPosition), or -1. */
  leafIndex: number;
}

// Rows and gutter links whose layout did not change are reused from the previous call on the same
// tree: a live append or a label change then allocates a handful of rows instead of one per visible
// entry, and unchanged rows keep their identity, which lets a UI skip re-rendering them. Gutter
// links are reused when their position, their `show` and their (already reused) outer link match,
// so identity comparison of a row's gutter list is exact.

// The last rows computed per tree: a call that changes only the leaf derives its rows from them
// (jump.ts), and one that changes only the selection reuses them.

// The last rows of the default view (default filter, no search) per tree, kept while another view
// is shown: Esc after a search, or the way back to the default filter, answers them again when
// nothing they depend on changed since (the tree, the leaf, the filter's bits, and no gutter line
// turned over by a jump, which changes links these rows hold). Before, that way back was a full
// pass that built every row again (~200,000 at 200k entries, and the outline re-rendered each).

function isDefaultView(mode: FilterMode, tokens: readonly string[]): boolean {
  return mode === 'default' && tokens.length === 0;
}

/** Records `state` as the tree's last rows (and as its default view's, when it is one). */
function remember(tree: ViewTree, state: RowsState): void {
  tree.work.lastRows = state;
  if (isDefaultView(state.mode, state.tokens)) tree.work.lastDefaultRows = { state, flips: lineFlipCount() };
}

/**
 * Internal, for tests: how many calls took each path (full, a jump, the same rows, an append, the
 * default view's kept rows).
 */
export const rowsPaths = { full: 0, jump: 0, same: 0, append: 0, kept: 0 };

export { rowsWork } from './row';

/**
 * Does ahead of time (when the page is idle) what the next full pass of computeRows needs that no
 * filter or query decides: the depth-first order for the leaf, and which entries pass each filter
 * mode. A jump and a live append derive their rows without them (jump.ts, append.ts), so the first
 * search keystroke or filter change after one used to pay for both, O(tree) each. Changes no result.
 * The traversal is done at once (a few ms at 200,000 entries); the read of every entry's filter
 * class, several times that, stops when `timeUp()` answers true (asked every few thousand entries)
 * and goes on at the next call. True once all is done. Like a computeRows call, it makes a stepped
 * pass in progress (prepareRows) give up: the traversal may reuse the arrays that pass reads.
 */
export function prepareRowsAhead(
  tree: ViewTree,
  leafId: string | null,
  modes: readonly FilterMode[] = FILTER_MODES,
  timeUp: () => boolean = () => false,
): boolean {
  tree.work.calls++;
  const leaf = leafId == null ? -1 : tree.indexOf(leafId);
  new FullPass(tree, leaf, 'default', [], new Uint8Array(0)).traverseOnly();
  for (const mode of modes) if (!prepareFilterBits(tree, mode, timeUp)) return false;
  return true;
}

/** The display rows of a tree for a leaf, a filter mode, a search query and a selection. */
export function computeRows(tree: ViewTree, options: ComputeRowsOptions): RowsResult {
  tree.work.calls++;
  const count = tree.size;
  const leafId = options.leafId;
  const leaf = leafId == null ? -1 : tree.indexOf(leafId);
  const mode = options.mode ?? 'default';
  const tokens = tokenizeQuery(options.query ?? '');
  const passes = visibleBits(tree, mode, tokens);
  const previous = tree.work.lastRows;
  if (
    previous !== undefined &&
    previous.version === tree.version &&
    previous.size === count &&
    previous.mode === mode &&
    previous.passes === passes &&
    sameTokens(previous.tokens, tokens)
  ) {
    // Same tree, filter and query: the same rows for the same leaf, else those of a jump.
    if (previous.leaf === leaf) {
      rowsPaths.same++;
      return resultOf(tree, previous, options);
    }
    const reuse = tree.work.reuse;
    const jumped = rowsAfterJump(
      tree,
      previous,
      leaf,
      reuse !== undefined && reuse.rows.length >= count ? reuse : undefined,
    );
    if (jumped !== null) {
      rowsPaths.jump++;
      remember(tree, jumped);
      return resultOf(tree, jumped, options);
    }
  }
  if (
    previous !== undefined &&
    previous.version !== tree.version &&
    previous.mode === mode &&
    sameTokens(previous.tokens, tokens)
  ) {
    // A few entries appended since (a live append): only the subtree holding them is computed.
    const reuse = tree.work.reuse;
    const appended = rowsAfterAppend(tree, previous, leaf, passes, reuse);
    if (appended !== null) {
      rowsPaths.append++;
      remember(tree, appended);
      return resultOf(tree, appended, options);
    }
  }
  const kept = isDefaultView(mode, tokens) ? tree.work.lastDefaultRows : undefined;
  if (
    kept !== undefined &&
    kept.flips === lineFlipCount() &&
    kept.state.version === tree.version &&
    kept.state.size === count &&
    kept.state.leaf === leaf &&
    kept.state.passes === passes
  ) {
    // Back to the default view with nothing changed since it was shown: the same rows.
    rowsPaths.kept++;
    tree.work.lastRows = kept.state;
    return resultOf(tree, kept.state, options);
  }
  rowsPaths.full++;
  const state = new FullPass(tree, leaf, mode, tokens, passes).run(null)!;
  return resultOf(tree, state, options);
}

/** Nodes a stepped pass handles between two looks at its caller's clock. */
const NODES_PER_CHECK = 2048;

/**
 * One full computation of the rows, in three passes over the tree, resumable between any two
 * nodes: computeRows runs it at once, prepareRows a few thousand nodes per step.
 */
class FullPass {
  private phase: 'traverse' | 'visibility' | 'layout' | 'done' = 'traverse';
  private readonly count: number;
  // The traversal (depth-first order, the active child first at every fork).
  private order: Int32Array = new Int32Array(0);
  private onActive: Uint8Array = new Uint8Array(0);
  private stack: Int32Array = new Int32Array(0);
  private top = 0;
  private written = 0;
  // Pass 1.
  private position = 0;
  private nearest: Int32Array = new Int32Array(0);
  private visibleParent: Int32Array = new Int32Array(0);
  private siblingPosition: Int32Array = new Int32Array(0);
  private childCount: Int32Array = new Int32Array(0);
  private visible: Int32Array = new Int32Array(0);
  private visibleCount = 0;
  private rootCount = 0;
  // Pass 2.
  private row = 0;
  private multipleRoots = false;
  private leafPosition = -1;
  private indent: Int32Array = new Int32Array(0);
  private bits: Uint8Array = new Uint8Array(0);
  private rowOfNode: Int32Array = new Int32Array(0);
  private rows: Row[] = [];
  private reuse: ReuseCache = { rows: [], chains: [] };
  private state: RowsState | null = null;

  constructor(
    private readonly tree: ViewTree,
    private readonly leaf: number,
    private readonly mode: FilterMode,
    private readonly tokens: readonly string[],
    private readonly passes: Uint8Array,
  ) {
    this.count = tree.size;
  }

  /** Works until done (the rows) or until `timeUp` says so (null); without `timeUp`, to the end. */
  run(timeUp: (() => boolean) | null): RowsState | null {
    if (this.phase === 'traverse' && this.traverse(timeUp)) this.startVisibility();
    if (this.phase === 'visibility' && this.visibility(timeUp)) this.startLayout();
    if (this.phase === 'layout' && this.layout(timeUp)) this.finish();
    return this.state;
  }

  /** The traversal alone, at once, kept in the cache for the next pass (prepareRowsAhead). */
  traverseOnly(): void {
    this.traverse(null);
  }

  private traverse(timeUp: (() => boolean) | null): boolean {
    const { tree, leaf, count } = this;
    if (this.stack.length === 0) {
      const cached = tree.work.traversal;
      if (cached !== undefined && cached.version === tree.version && cached.leaf === leaf) {
        this.order = cached.order;
        this.onActive = cached.onActive;
        return true;
      }
      rowsWork.traversals++;
      // The arrays of the traversal this one replaces are reused: only computeRows reads them,
      // and only during its call. At 200,000 entries, fresh arrays on every jump fed the garbage
      // collector. Until this traversal is done, no other call may take them for its own.
      tree.work.traversal = undefined;
      // With room to grow, like the scratch arrays: a pass after a live append reuses them too.
      const recycled = cached !== undefined && cached.order.length >= count;
      this.onActive = recycled ? cached.onActive.fill(0) : new Uint8Array(withHeadroom(count));
      this.order = recycled ? cached.order : new Int32Array(withHeadroom(count));
      // Tree parents are acyclic by construction, so this walk ends.
      for (let node = leaf; node >= 0; node = tree.parentIndexAt(node)) this.onActive[node] = 1;
      this.stack = tree.work.ints(SCRATCH_STACK, Math.max(1, count));
      const stack = this.stack;
      let top = 0;
      const roots = tree.rootIndices();
      // The root holding the leaf goes first; the others keep file order.
      let activeRoot = -1;
      for (const root of roots) if (this.onActive[root] === 1) activeRoot = root;
      for (let i = roots.length - 1; i >= 0; i--) {
        const root = roots[i]!;
        if (root !== activeRoot) stack[top++] = root;
      }
      if (activeRoot >= 0) stack[top++] = activeRoot;
      this.top = top;
    }
    const { stack, order, onActive } = this;
    let top = this.top;
    let written = this.written;
    while (top > 0) {
      if (timeUp !== null && written % NODES_PER_CHECK === 0 && written > this.written && timeUp()) {
        this.top = top;
        this.written = written;
        return false;
      }
      const node = stack[--top]!;
      order[written++] = node;
      let activeChild = -1;
      for (let i = tree.childCountAt(node) - 1; i >= 0; i--) {
        const child = tree.childAt(node, i);
        if (onActive[child] === 1) activeChild = child;
        else stack[top++] = child;
      }
      if (activeChild >= 0) stack[top++] = activeChild;
    }
    this.top = 0;
    this.written = written;
    tree.work.traversal = { version: tree.version, leaf, order, onActive };
    return true;
  }

  private startVisibility(): void {
    const count = this.count;
    // Scratch arrays: every element is written before it is read, except the counters, zeroed here.
    this.nearest = this.tree.work.ints(SCRATCH_NEAREST, count);
    this.visibleParent = this.tree.work.ints(SCRATCH_VISIBLE_PARENT, count);
    this.siblingPosition = this.tree.work.ints(SCRATCH_SIBLING_POSITION, count);
    this.childCount = this.tree.work.ints(SCRATCH_CHILD_COUNT, count).fill(0);
    this.visible = this.tree.work.ints(SCRATCH_VISIBLE, count);
    this.phase = 'visibility';
  }

  /**
   * Pass 1, in depth-first order so parents come first: visibility, the nearest visible ancestor
   * (`nearest` holds it for hidden nodes and the node itself for visible ones), and each visible
   * node's position among its visible siblings.
   */
  private visibility(timeUp: (() => boolean) | null): boolean {
    const { tree, leaf, mode, tokens, passes, count, order } = this;
    const { nearest, visibleParent, siblingPosition, childCount, visible } = this;
    let visibleCount = this.visibleCount;
    let rootCount = this.rootCount;
    const from = this.position;
    for (let k = from; k < count; k++) {
      if (timeUp !== null && k % NODES_PER_CHECK === 0 && k > from && timeUp()) {
        this.position = k;
        this.visibleCount = visibleCount;
        this.rootCount = rootCount;
        return false;
      }
      const node = order[k]!;
      const parent = tree.parentIndexAt(node);
      const ancestor = parent < 0 ? -1 : nearest[parent]!;
      const shown =
        node === leaf
          ? passesFilter(tree.entryAt(node), mode, true, tree.foldedArchiveAt(node)) &&
            matchesQuery(tree.entryAt(node), tokens)
          : passes[node] === 1;
      if (shown) {
        nearest[node] = node;
        visibleParent[node] = ancestor;
        if (ancestor < 0) siblingPosition[node] = rootCount++;
        else siblingPosition[node] = childCount[ancestor]!++;
        visible[visibleCount++] = node;
      } else {
        nearest[node] = ancestor;
      }
    }
    this.visibleCount = visibleCount;
    this.rootCount = rootCount;
    return true;
  }

  private startLayout(): void {
    const { tree, count, leaf } = this;
    this.multipleRoots = this.rootCount > 1;
    this.leafPosition = leaf < 0 ? -1 : this.nearest[leaf]!;
    this.indent = tree.work.ints(SCRATCH_INDENT, count);
    this.bits = tree.work.bytes(count);
    this.rowOfNode = new Int32Array(count).fill(-1);
    let reuse = tree.work.reuse;
    if (reuse === undefined || reuse.rows.length < count) {
      // Sized to the tree up front: rows are written in depth-first order, which jumps to high node
      // numbers early, and a write far past the end of an array turns it into a slow hash table.
      // With room to grow: a live session grows a few entries at a time, and copying every row
      // into arrays one entry larger was a third of the first search keystroke after each append.
      rowsWork.reuseGrowths++;
      const capacity = withHeadroom(count);
      const rows = new Array<Row | undefined>(capacity);
      const chains = new Array<GutterLink | null | undefined>(capacity);
      if (reuse !== undefined) {
        for (let node = 0; node < reuse.rows.length; node++) {
          rows[node] = reuse.rows[node];
          chains[node] = reuse.chains[node];
        }
      }
      reuse = { rows, chains };
      tree.work.reuse = reuse;
    }
    this.reuse = reuse;
    this.rows = new Array<Row>(this.visibleCount);
    this.phase = 'layout';
  }

  /** Pass 2: indents, connectors and gutters of the visible forest (pi's rules, docs/tree-and-context.md#rows). */
  private layout(timeUp: (() => boolean) | null): boolean {
    const { tree, leaf, multipleRoots, leafPosition, indent, bits, rowOfNode, rows, onActive } = this;
    const { visible, visibleParent, siblingPosition, childCount, visibleCount, rootCount } = this;
    const rowCache = this.reuse.rows;
    // Written for a node before any of its visible children reads it (parents come first).
    const childChains = this.reuse.chains;
    const from = this.row;
    for (let r = from; r < visibleCount; r++) {
      if (timeUp !== null && r % NODES_PER_CHECK === 0 && r > from && timeUp()) {
        this.row = r;
        return false;
      }
      const node = visible[r]!;
      const parent = visibleParent[node]!;
      let level: number;
      let flags = multipleRoots ? ROW_MULTIPLE_ROOTS : 0;
      let chain: GutterLink | null;
      if (parent < 0) {
        level = multipleRoots ? 1 : 0;
        if (multipleRoots) flags |= NODE_JUST_BRANCHED | ROW_SHOW_CONNECTOR | ROW_VIRTUAL_ROOT_CHILD;
        if (siblingPosition[node] === rootCount - 1) flags |= ROW_LAST;
        chain = null;
      } else {
        const siblings = childCount[parent]!;
        const parentLevel = indent[parent]!;
        // A fork indents its children; so does a just-branched node with indent > 0, which sets
        // the chain under each fork child one level deeper; a single-child chain stays flat.
        if (siblings > 1) {
          level = parentLevel + 1;
          flags |= NODE_JUST_BRANCHED | ROW_SHOW_CONNECTOR;
        } else {
          level =
            (bits[parent]! & NODE_JUST_BRANCHED) !== 0 && parentLevel > 0 ? parentLevel + 1 : parentLevel;
        }
        if (siblingPosition[node] === siblings - 1) flags |= ROW_LAST;
        chain = childChains[parent] ?? null;
      }
      indent[node] = level;
      bits[node] = flags;
      const children = childCount[node]!;
      if (children > 0) {
        // Descendants continue this node's connector as a gutter at the connector's level.
        childChains[node] = childChainOf(flags, level, multipleRoots, chain, childChains[node]);
      }
      if (onActive[node] === 1) flags |= ROW_ACTIVE;
      if (node === leaf) flags |= ROW_LEAF;
      if (node === leafPosition) flags |= ROW_LEAF_POSITION;
      const entry = tree.entryAt(node);
      let row = rowCache[node];
      if (row === undefined || !row.sameAs(entry, level, flags, chain, parent, children)) {
        const parentId = parent < 0 ? null : tree.entryAt(parent).id;
        row = new Row(entry, level, flags, chain, parentId, children, node, parent);
        rowCache[node] = row;
      }
      rows[r] = row;
      rowOfNode[node] = r;
    }
    this.row = visibleCount;
    return true;
  }

  private finish(): void {
    const { tree, rows, rowOfNode } = this;
    const state: RowsState = {
      version: tree.version,
      size: this.count,
      leaf: this.leaf,
      leafPosition: this.leafPosition,
      mode: this.mode,
      tokens: this.tokens,
      passes: this.passes,
      rows,
      rowOfNode,
      multipleRoots: this.multipleRoots,
      index: new RowIndex(tree, rows, rowOfNode),
      sizes: null,
    };
    remember(tree, state);
    this.state = state;
    this.phase = 'done';
  }
}

/** Computes rows a few thousand nodes at a time: see {@link prepareRows}. */
export interface RowsPreparation {
  /**
   * Works until `timeUp()` answers true (asked every few thousand nodes) or the work is over;
   * answers whether it is over (done, or given up because the tree changed or rows were
   * computed meanwhile).
   */
  step(timeUp: () => boolean): boolean;
}

/**
 * The full computation of `computeRows` for `tree` as it is now, in steps that the caller spreads
 * over several tasks, so that no one task holds the whole O(n) pass. Once it is over, a
 * `computeRows` call with the same leaf, filter and query on the unchanged tree answers from its
 * result without computing again; if the tree changed or rows were computed between two steps,
 * it gives up and that call computes in full, as it would have anyway.
 */
export function prepareRows(
  tree: ViewTree,
  options: Omit<ComputeRowsOptions, 'selectedId'>,
): RowsPreparation {
  const version = tree.version;
  const size = tree.size;
  // A stepped pass shares the tree's working arrays and caches with every call on it, so one made
  // between two of its steps makes it give up.
  const epoch = ++tree.work.calls;
  let pass: FullPass | null = null;
  let over = false;
  return {
    step(timeUp) {
      if (over) return true;
      if (tree.work.calls !== epoch || tree.version !== version || tree.size !== size) {
        over = true;
        return true;
      }
      if (pass === null) {
        const leafId = options.leafId;
        const leaf = leafId == null ? -1 : tree.indexOf(leafId);
        const mode = options.mode ?? 'default';
        const tokens = tokenizeQuery(options.query ?? '');
        const previous = tree.work.lastRows;
        if (
          previous !== undefined &&
          previous.version === version &&
          previous.size === size &&
          previous.leaf === leaf &&
          previous.mode === mode &&
          sameTokens(previous.tokens, tokens)
        ) {
          over = true;
          return true;
        }
        pass = new FullPass(tree, leaf, mode, tokens, visibleBits(tree, mode, tokens));
        if (timeUp()) return false;
      }
      over = pass.run(timeUp) !== null;
      return over;
    },
  };
}

function sameTokens(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The result of a rows state for a selection: re-selection walks the full tree up from the wanted entry to the first visible one. */
function resultOf(tree: ViewTree, state: RowsState, options: ComputeRowsOptions): RowsResult {
  const { rows, rowOfNode, leafPosition } = state;
  const visibleCount = rows.length;
  let selectedIndex = -1;
  if (visibleCount > 0) {
    const target = options.selectedId ?? options.leafId;
    let node = target == null ? -1 : tree.indexOf(target);
    while (node >= 0 && rowOfNode[node]! < 0) node = tree.parentIndexAt(node);
    selectedIndex = node >= 0 ? rowOfNode[node]! : visibleCount - 1;
  }
  const leafIndex = leafPosition < 0 ? -1 : rowOfNode[leafPosition]!;
  return { rows, indexById: state.index, selectedIndex, multipleRoots: state.multipleRoots, leafIndex };
}

/**
 * The row of an entry or, when it is hidden, of its nearest visible ancestor in the full tree;
 * the last row when neither exists; -1 when there are no rows.
 */
export function findNearestVisible(
  tree: ViewTree,
  indexById: ReadonlyMap<string, number>,
  id: string | null,
): number {
  const total = indexById.size;
  if (total === 0) return -1;
  if (id !== null) {
    for (let node = tree.indexOf(id); node >= 0; node = tree.parentIndexAt(node)) {
      const row = indexById.get(tree.entryAt(node).id);
      if (row !== undefined) return row;
    }
  }
  return total - 1;
}
