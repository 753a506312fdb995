// Public API of the tree views shared by the server, the web app and the terminal outline.
export {
  ViewFlags,
  ROW_TEXT_MAX_LENGTH,
  SEARCH_TEXT_MAX_LENGTH,
  ToolCallIndex,
  findToolCall,
  formatToolCall,
  rowText,
  searchText,
  viewFlags,
  toViewEntry,
  toViewEntries,
} from './view-entry';
export type {
  ViewEntry,
  ViewFlagName,
  ToolCallInfo,
  LocatedToolCall,
  ToolCallLookup,
  RowTextOptions,
  ToViewEntriesOptions,
} from './view-entry';
export { ViewTree } from './view-tree';
export { archivedCounts, archivedMatchCount, subtreeSize } from './archived';
export {
  ARCHIVE_INSIDE,
  ARCHIVE_NONE,
  ARCHIVE_ROOT,
  archiveStateOf,
  isArchivedState,
  isArchiveRootState,
} from './archive-state';
export type { ArchivedCounts } from './archived';
export { isAnsweredReply, TIDY_REASONS, tidySuggestions } from './tidy';
export type { LeftBranchSummary, TidyNode, TidyReason, TidySuggestion } from './tidy';
export {
  FILTER_MODES,
  SETTINGS_ENTRY_TYPES,
  isFilterMode,
  cycleFilter,
  toggleFilter,
  filterTag,
  passesFilter,
} from './filter';
export type { FilterMode } from './filter';
export { tokenizeQuery, matchesQuery } from './search';
export { computeRows, findNearestVisible, prepareRows, prepareRowsAhead } from './flatten';
export { addSearchMasks, prepareSearchMasks, searchMaskColumns } from './search-masks';
export type { SearchMaskColumns } from './search-masks';
export type { FlatRow, Gutter, ComputeRowsOptions, RowsResult, RowsPreparation } from './flatten';
export {
  moveSelection,
  pageSelection,
  maxVisibleLines,
  createTreeSelectorState,
  selectedRow,
  treeSelectorReducer,
} from './selection';
export type { TreeSelectorState, TreeSelectorAction, TreeSelectorInit } from './selection';
export { applyFolds, foldMark, isFoldable, NO_FOLDS, segmentStart } from './fold';
export type { FoldSet, FoldMark, FoldedRows } from './fold';
export {
  renderOutline,
  renderFooter,
  rowPrefix,
  rowLine,
  hasConnector,
  outlineWindow,
  displayWidth,
  truncateToWidth,
} from './outline';
export type { RenderOutlineOptions } from './outline';
export { entryCopyText, formatLabelTime } from './copy-text';
