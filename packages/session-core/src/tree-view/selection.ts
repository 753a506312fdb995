// Selection and key handling of the tree selector as a pure reducer, so the web outline, the
// terminal and the tests share one behaviour: oh-my-pi's keys (docs/tree-and-context.md#keys) and
// pi's re-selection rules (docs/tree-and-context.md#selection): after every filter or search change
// the selection moves to the nearest visible ancestor of the entry selected before, and an
// empty list does not forget that entry.

import { computeRows, findNearestVisible, type FlatRow, type RowsResult } from './flatten';
import { cycleFilter, toggleFilter, type FilterMode } from './filter';
import { applyFolds, isFoldable, NO_FOLDS, segmentStart, type FoldSet } from './fold';
import type { ViewTree } from './view-tree';

/** Moves by `delta` rows; with `wrap`, past either end comes back at the other. -1 for an empty list. */
export function moveSelection(
  rows: { readonly length: number },
  index: number,
  delta: number,
  options?: { wrap?: boolean },
): number {
  const total = rows.length;
  if (total === 0) return -1;
  const from = index < 0 ? 0 : Math.min(index, total - 1);
  const target = from + delta;
  if (options?.wrap) return ((target % total) + total) % total;
  return Math.min(total - 1, Math.max(0, target));
}

/** Moves by `delta` pages of `pageSize` rows, stopping at the ends. -1 for an empty list. */
export function pageSelection(
  rows: { readonly length: number },
  index: number,
  delta: number,
  pageSize: number,
): number {
  return moveSelection(rows, index, delta * Math.max(1, Math.floor(pageSize)), { wrap: false });
}

/** Rows per page in the terminal: pi's `max(5, floor(height / 2))`. */
export function maxVisibleLines(terminalHeight: number): number {
  return Math.max(5, Math.floor(terminalHeight / 2));
}

export interface TreeSelectorState {
  readonly tree: ViewTree;
  /** The tree version the rows were computed from. */
  readonly treeVersion: number;
  readonly leafId: string | null;
  readonly mode: FilterMode;
  readonly query: string;
  readonly pageSize: number;
  readonly rows: readonly FlatRow[];
  readonly indexById: ReadonlyMap<string, number>;
  /** -1 when the list is empty. */
  readonly selectedIndex: number;
  /** The entry the selection follows; kept while a filter shows nothing. */
  readonly lastSelectedId: string | null;
  readonly multipleRoots: boolean;
  /** Escape with an empty query: the host should close the selector. */
  readonly closeRequested: boolean;
  /**
   * The folded entries (docs/tree-and-context.md#folding): the rows above leave out their
   * descendants. Dropped by every filter or search change, as pi does.
   */
  readonly folded: FoldSet;
  /** Rows hidden under each visible folded row. */
  readonly hiddenByFold: ReadonlyMap<string, number>;
  /** The ids of the rows each visible folded row hides. */
  readonly foldedIds: ReadonlyMap<string, readonly string[]>;
  /** The folded row that hides the leaf's row (the leaf mark goes on it), or null. */
  readonly leafFoldId: string | null;
}

export type TreeSelectorAction =
  /** Alt+D/T/U/L/A: set the mode. */
  | { type: 'setFilter'; mode: FilterMode }
  /** pi's Ctrl+T/U/L/A: the mode, or default when it is on already. */
  | { type: 'toggleFilter'; mode: FilterMode }
  /** Ctrl+O (1) and Shift+Ctrl+O (-1). */
  | { type: 'cycleFilter'; direction: 1 | -1 }
  /** Printable input appended to the search; input with control characters is ignored. */
  | { type: 'typeQuery'; text: string }
  | { type: 'backspace' }
  | { type: 'setQuery'; query: string }
  | { type: 'clearQuery' }
  /** Clears the search if there is one, otherwise requests closing. */
  | { type: 'escape' }
  /** Up (-1) / Down (1), wrapping. */
  | { type: 'move'; delta: number }
  /** Left (-1) / Right (1): a page, no wrapping. */
  | { type: 'page'; delta: number }
  | { type: 'home' }
  | { type: 'end' }
  /** Selects an entry, or its nearest visible ancestor when it is hidden. */
  | { type: 'selectId'; id: string }
  | { type: 'selectIndex'; index: number }
  /** The leaf moved; `select` also moves the selection onto it. */
  | { type: 'setLeaf'; leafId: string | null; select?: boolean }
  /** The tree changed (appended entries, a label): recompute, keeping the selection. */
  | { type: 'refresh' }
  /** pi's Ctrl+← / Alt+←: fold the selected segment, or move up to the previous segment start. */
  | { type: 'foldOrUp' }
  /** pi's Ctrl+→ / Alt+→: unfold the selected row, or move down to the next segment start. */
  | { type: 'unfoldOrDown' }
  /** Fold or unfold one row (a click on its fold mark); a row that cannot fold is left alone. */
  | { type: 'toggleFold'; id: string }
  | { type: 'setPageSize'; pageSize: number };

export interface TreeSelectorInit {
  leafId: string | null;
  mode?: FilterMode;
  query?: string;
  /** Initially selected entry (pi's `initialSelectedId`); defaults to the leaf. */
  selectedId?: string | null;
  pageSize?: number;
}

const DEFAULT_PAGE_SIZE = 12;

export function createTreeSelectorState(tree: ViewTree, init: TreeSelectorInit): TreeSelectorState {
  const mode = init.mode ?? 'default';
  const query = init.query ?? '';
  const target = init.selectedId ?? init.leafId;
  const result = computeRows(tree, { leafId: init.leafId, mode, query, selectedId: target });
  return {
    tree,
    treeVersion: tree.version,
    leafId: init.leafId,
    mode,
    query,
    pageSize: init.pageSize ?? DEFAULT_PAGE_SIZE,
    rows: result.rows,
    indexById: result.indexById,
    selectedIndex: result.selectedIndex,
    lastSelectedId: result.rows[result.selectedIndex]?.id ?? target ?? null,
    multipleRoots: result.multipleRoots,
    closeRequested: false,
    folded: NO_FOLDS,
    hiddenByFold: EMPTY_COUNTS,
    foldedIds: EMPTY_IDS,
    leafFoldId: null,
  };
}

const EMPTY_IDS: ReadonlyMap<string, readonly string[]> = new Map();
const EMPTY_COUNTS: ReadonlyMap<string, number> = new Map();

/** The rows of `result` with `folded` applied, the selection on the nearest row still shown. */
function foldedView(
  tree: ViewTree,
  result: RowsResult,
  folded: FoldSet,
): Pick<
  TreeSelectorState,
  'rows' | 'indexById' | 'selectedIndex' | 'folded' | 'hiddenByFold' | 'foldedIds' | 'leafFoldId'
> {
  const view = applyFolds(result.rows, folded);
  if (view === null)
    return {
      rows: result.rows,
      indexById: result.indexById,
      selectedIndex: result.selectedIndex,
      folded,
      hiddenByFold: EMPTY_COUNTS,
      foldedIds: EMPTY_IDS,
      leafFoldId: null,
    };
  const selectedId = result.rows[result.selectedIndex]?.id ?? null;
  const leafRowId = result.rows[result.leafIndex]?.id;
  return {
    rows: view.rows,
    indexById: view.indexById,
    selectedIndex: findNearestVisible(tree, view.indexById, selectedId),
    folded,
    hiddenByFold: view.hiddenCount,
    foldedIds: view.hiddenIds,
    leafFoldId: (leafRowId !== undefined && view.hiddenUnder.get(leafRowId)) || null,
  };
}

/** The selected row, or undefined for an empty list. */
export function selectedRow(state: TreeSelectorState): FlatRow | undefined {
  return state.rows[state.selectedIndex];
}

/** Recomputes the rows and re-selects the remembered entry (pi's `applyFilter`). */
function refilter(
  state: TreeSelectorState,
  changes: Partial<Pick<TreeSelectorState, 'mode' | 'query' | 'leafId' | 'folded'>>,
  selectId?: string | null,
): TreeSelectorState {
  const mode = changes.mode ?? state.mode;
  const query = changes.query ?? state.query;
  const leafId = changes.leafId !== undefined ? changes.leafId : state.leafId;
  // pi clears its folds on every filter or search change (docs/tree-and-context.md#folding).
  const folded = changes.folded ?? (mode !== state.mode || query !== state.query ? NO_FOLDS : state.folded);
  // The remembered entry only changes while the list is non-empty.
  const remembered =
    selectId !== undefined ? selectId : (state.rows[state.selectedIndex]?.id ?? state.lastSelectedId);
  const result = computeRows(state.tree, { leafId, mode, query, selectedId: remembered ?? leafId });
  const view = foldedView(state.tree, result, folded);
  return {
    ...state,
    ...view,
    treeVersion: state.tree.version,
    leafId,
    mode,
    query,
    lastSelectedId: view.rows[view.selectedIndex]?.id ?? remembered,
    multipleRoots: result.multipleRoots,
    closeRequested: false,
  };
}

function withFold(state: TreeSelectorState, id: string, fold: boolean): TreeSelectorState {
  const folded = new Set(state.folded);
  if (fold) folded.add(id);
  else folded.delete(id);
  return refilter(state, { folded }, id);
}

function withIndex(state: TreeSelectorState, index: number): TreeSelectorState {
  if (index === state.selectedIndex && !state.closeRequested) return state;
  return {
    ...state,
    selectedIndex: index,
    lastSelectedId: state.rows[index]?.id ?? state.lastSelectedId,
    closeRequested: false,
  };
}

function hasControlCharacters(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 32 || code === 0x7f || (code >= 0x80 && code <= 0x9f)) return true;
  }
  return false;
}

/** The query without its last character (a whole surrogate pair for characters outside the BMP). */
function dropLastCharacter(query: string): string {
  const last = query.charCodeAt(query.length - 1);
  const before = query.charCodeAt(query.length - 2);
  const pair = last >= 0xdc00 && last <= 0xdfff && before >= 0xd800 && before <= 0xdbff;
  return query.slice(0, pair ? -2 : -1);
}

export function treeSelectorReducer(state: TreeSelectorState, action: TreeSelectorAction): TreeSelectorState {
  switch (action.type) {
    case 'setFilter':
      return refilter(state, { mode: action.mode });
    case 'toggleFilter':
      return refilter(state, { mode: toggleFilter(state.mode, action.mode) });
    case 'cycleFilter':
      return refilter(state, { mode: cycleFilter(state.mode, action.direction) });
    case 'typeQuery':
      if (action.text.length === 0 || hasControlCharacters(action.text)) return state;
      return refilter(state, { query: state.query + action.text });
    case 'backspace':
      if (state.query.length === 0) return state;
      return refilter(state, { query: dropLastCharacter(state.query) });
    case 'setQuery':
      if (action.query === state.query) return state;
      return refilter(state, { query: action.query });
    case 'clearQuery':
      if (state.query.length === 0) return state;
      return refilter(state, { query: '' });
    case 'escape':
      if (state.query.length > 0) return refilter(state, { query: '' });
      return state.closeRequested ? state : { ...state, closeRequested: true };
    case 'move':
      return withIndex(state, moveSelection(state.rows, state.selectedIndex, action.delta, { wrap: true }));
    case 'page':
      return withIndex(state, pageSelection(state.rows, state.selectedIndex, action.delta, state.pageSize));
    case 'home':
      return withIndex(state, state.rows.length === 0 ? -1 : 0);
    case 'end':
      return withIndex(state, state.rows.length - 1);
    case 'selectId': {
      const index = findNearestVisible(state.tree, state.indexById, action.id);
      if (index < 0) return { ...state, lastSelectedId: action.id, closeRequested: false };
      return withIndex(state, index);
    }
    case 'selectIndex':
      if (action.index < 0 || action.index >= state.rows.length) return state;
      return withIndex(state, action.index);
    case 'setLeaf':
      return refilter(state, { leafId: action.leafId }, action.select ? action.leafId : undefined);
    case 'refresh':
      return refilter(state, {});
    case 'foldOrUp': {
      const row = state.rows[state.selectedIndex];
      if (row === undefined) return state;
      if (
        !state.folded.has(row.id) &&
        isFoldable(state.rows, state.indexById, state.selectedIndex, state.folded)
      )
        return withFold(state, row.id, true);
      return withIndex(
        state,
        segmentStart(state.rows, state.indexById, state.selectedIndex, 'up', state.folded),
      );
    }
    case 'unfoldOrDown': {
      const row = state.rows[state.selectedIndex];
      if (row === undefined) return state;
      if (state.folded.has(row.id)) return withFold(state, row.id, false);
      return withIndex(
        state,
        segmentStart(state.rows, state.indexById, state.selectedIndex, 'down', state.folded),
      );
    }
    case 'toggleFold': {
      const index = state.indexById.get(action.id);
      if (index === undefined) return state;
      if (state.folded.has(action.id)) return withFold(state, action.id, false);
      if (!isFoldable(state.rows, state.indexById, index, state.folded)) return state;
      return withFold(state, action.id, true);
    }
    case 'setPageSize':
      return { ...state, pageSize: Math.max(1, Math.floor(action.pageSize)) };
  }
}
