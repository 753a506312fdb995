// The outline: the terminal tree's rows in the browser, virtualised (fixed row height, only the
// rows in view are in the DOM) with ARIA tree semantics. The row prefix and text come from
// session-core, exactly as the terminal draws them.

import {
  ARCHIVE_NONE,
  isArchivedState,
  isArchiveRootState,
  ViewFlags,
  foldMark,
  formatLabelTime,
  hasConnector,
  rowPrefix,
  subtreeSize,
  tokenizeQuery,
  type FlatRow,
  type FoldMark,
} from '@canopy/session-core';
import { memo, useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { entryKind } from '../lib/entryKind';
import { alignedContentHeight, rowsPerPage, scrollToReveal, visibleRows } from '../layout/virtualRange';
import { useApp, useAppStore } from '../store/context';
import { capPrefix, MAX_PREFIX_COLUMNS } from '../lib/compactPrefix';
import { Highlighted } from './Highlighted';
import { RowGrafts, useGraftsByEntry, type RowGraft } from './RowGrafts';
import { LabelEditor } from './LabelEditor';
import { OutlineViewport, useRowAnchor } from './useRowAnchor';
import { isMultiSelectClick, rowSelectPointerDown, rowSelectPointerEnter } from './outlineSelect';

export const ROW_HEIGHT = 22;

/**
 * Narrower than any character of the rows' monospace font (12.5px, about 7.5px a column): a row
 * `width` pixels wide shows fewer than `width / MIN_COLUMN_WIDTH` characters of its text, so search
 * marks past that many are never seen (Highlighted's `limit`).
 */
const MIN_COLUMN_WIDTH = 4;

/**
 * What an outline without rows says. While the snapshot still streams in, the rows of the view may
 * simply not have arrived yet: saying "no entries" then would be wrong.
 */
export function emptyOutlineNote(query: string, streaming: boolean): string {
  if (streaming) return 'Loading the session…';
  return query
    ? `No entries match “${query}”. Backspace or Esc to clear the search.`
    : 'No entries in this view. Alt+A shows all, Alt+D the default view.';
}

interface RowProps {
  row: FlatRow;
  /**
   * The row's tree prefix (session-core's rowPrefix), read here and not in the row: a jump turns
   * gutter lines over in place, so a row object kept from the last render may draw another prefix.
   */
  prefix: string;
  index: number;
  selected: boolean;
  editing: boolean;
  tokens: readonly string[];
  /** Columns the tree prefix may use before its outer levels are counted instead of drawn. */
  prefixBudget: number;
  /** More characters than the row can show: search marks stop there. */
  highlightLimit: number;
  /** The leaf is hidden by the filter (a label, a model change…) somewhere below this row. */
  leafBelow: boolean;
  /** In the multi-entry selection (for summarising); `partial` for a fold only partly in it. */
  multi: boolean | 'partial';
  /** pi's fold mark (docs/tree-and-context.md#folding). */
  mark: FoldMark;
  /** Rows the row's fold hides (0 when not folded). */
  folded: number;
  /** The label's time as Shift+T shows it, or null. */
  labelTime: string | null;
  /**
   * The folded stub of an archived branch: the entries it stands for
   * (docs/archive-and-family.md#archive); undefined for any other row.
   */
  stubCount: number | undefined;
  /** Inside an archived branch (drawn dimmed while revealed). */
  archived: boolean;
  /** Files of the family grafted at this entry (docs/archive-and-family.md#in-the-page). */
  grafts: readonly RowGraft[] | undefined;
}

const OutlineRow = memo(function OutlineRow({
  row,
  prefix: fullPrefix,
  index,
  selected,
  editing,
  tokens,
  prefixBudget,
  highlightLimit,
  leafBelow,
  multi,
  mark,
  folded,
  labelTime,
  stubCount,
  archived,
  grafts,
}: RowProps) {
  const store = useAppStore();
  const entry = row.entry;
  const kind = entryKind(entry.type, entry.role);
  const error = (entry.flags & (ViewFlags.Error | ViewFlags.Aborted | ViewFlags.ToolError)) !== 0;
  const prefix = capPrefix(fullPrefix, prefixBudget);
  return (
    <div
      id={`row-${row.id}`}
      className="row"
      role="treeitem"
      aria-level={row.displayIndent + 1}
      aria-selected={selected}
      aria-current={row.isLeaf ? 'location' : undefined}
      data-testid="tree.node"
      data-entry-id={row.id}
      data-active={row.onActivePath || undefined}
      data-leaf={row.isLeaf || undefined}
      data-kind={kind}
      data-error={error || undefined}
      data-multi={multi || undefined}
      data-fold={mark ?? undefined}
      data-archived={archived || undefined}
      data-archive-stub={stubCount !== undefined || undefined}
      style={{ top: index * ROW_HEIGHT, height: ROW_HEIGHT }}
      onContextMenu={(e) => {
        e.preventDefault();
        store.getState().select(row.id, false);
        store.getState().openEntryMenu(row.id, e.clientX, e.clientY);
      }}
      onMouseDown={(e) => {
        // Keep keyboard focus on the tree while clicking rows.
        if (!editing) e.preventDefault();
        if (e.button === 0) rowSelectPointerDown(store, row.id, e);
      }}
      onMouseEnter={(e) => rowSelectPointerEnter(store, row.id, e)}
      onClick={(e) => {
        if (isMultiSelectClick(e)) return;
        store.getState().select(row.id, false);
        document.getElementById('tree-outline')?.focus({ preventScroll: true });
      }}
      onDoubleClick={() => void store.getState().jump(row.id)}
    >
      <span className="row-cursor">{selected ? '›' : ''}</span>
      <span className="row-prefix">
        {prefix.hiddenLevels > 0 && (
          <span
            className="row-depth"
            data-testid="tree.depth"
            title={`${prefix.hiddenLevels} more levels of nesting to the left (depth ${row.displayIndent})`}
          >
            +{prefix.hiddenLevels}
          </span>
        )}
        {prefix.text}
      </span>
      {mark === 'folded' && !hasConnector(row) && <span className="row-fold">⊞ </span>}
      {row.onActivePath && <span className="row-bullet">• </span>}
      {entry.label && (
        <span className="row-label" data-testid="tree.label">
          [<Highlighted text={entry.label} tokens={tokens} limit={highlightLimit} />]
        </span>
      )}
      {entry.label && labelTime && (
        <span className="row-label-time" data-testid="tree.label-time" title={entry.labelTime}>
          {labelTime}
        </span>
      )}
      {editing ? (
        <LabelEditor
          initial={entry.label ?? ''}
          onSave={(label) => void store.getState().saveLabel(row.id, label)}
          onCancel={() => store.getState().cancelLabelEdit()}
        />
      ) : stubCount !== undefined ? (
        <span className="row-text row-archive-stub" data-testid="tree.archive-stub">
          ▸ {stubCount} archived {stubCount === 1 ? 'entry' : 'entries'}
          <span className="row-archive-first">
            {' '}
            <Highlighted text={entry.text} tokens={tokens} limit={highlightLimit} />
          </span>
        </span>
      ) : (
        <span className="row-text">
          <Highlighted text={entry.text} tokens={tokens} limit={highlightLimit} />
        </span>
      )}
      {selected && !editing && (
        <button
          type="button"
          className="row-archive-button"
          data-testid={archived ? 'tree.restore' : 'tree.archive'}
          title={
            archived
              ? 'Restore this archived branch (Shift+A)'
              : 'Archive the branch under this entry: hidden, never deleted (Shift+A)'
          }
          onMouseDown={(e) => e.stopPropagation()}
          onClick={(e) => {
            e.stopPropagation();
            store.getState().toggleArchiveSelected();
          }}
        >
          {archived ? 'Restore' : 'Archive'}
        </button>
      )}
      {grafts && <RowGrafts grafts={grafts} />}
      {row.isLeaf && (
        <span
          className="row-leaf"
          data-testid="tree.leaf"
          title="The current leaf: the next message continues here"
        >
          leaf
        </span>
      )}
      {folded > 0 && (
        <span
          className="row-folded"
          data-testid="tree.folded"
          title={`Folded: ${folded} entries hidden below (Ctrl+→ unfolds)`}
        >
          ⊞{folded}
        </span>
      )}
      {leafBelow && (
        <span
          className="row-leaf hidden-leaf"
          data-testid="tree.leaf-hidden"
          title="The current leaf is hidden below this row, by the filter (Alt+A shows all) or a fold (Ctrl+→ unfolds)"
        >
          leaf ↓
        </span>
      )}
    </div>
  );
});

export function OutlineView() {
  const store = useAppStore();
  const rows = useApp((s) => s.treeView?.rows);
  const selectedIndex = useApp((s) => s.treeView?.selectedIndex ?? -1);
  const query = useApp((s) => s.treeView?.query ?? '');
  const streaming = useApp((s) => s.snapshot !== null);
  const editingId = useApp((s) => s.labelEditingId);
  const revealTick = useApp((s) => s.revealTick);
  const multiSelection = useApp((s) => s.multiSelection);
  const indexById = useApp((s) => s.treeView?.indexById);
  const folded = useApp((s) => s.treeView?.folded);
  const hiddenByFold = useApp((s) => s.treeView?.hiddenByFold);
  const foldedIds = useApp((s) => s.treeView?.foldedIds);
  const leafFoldId = useApp((s) => s.treeView?.leafFoldId ?? null);
  const showLabelTimes = useApp((s) => s.showLabelTimes);
  // pi formats a label's time against the current day: the day the times were turned on.
  const [now] = useState(() => new Date());
  const tree = useApp((s) => s.treeView?.tree);
  const archivedRevealed = useApp((s) => s.treeView?.tree.archivedRevealed ?? false);
  const graftsByEntry = useGraftsByEntry();
  const containerRef = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const [width, setWidth] = useState(600);
  const tokens = useMemo(() => tokenizeQuery(query), [query]);
  const total = rows?.length ?? 0;
  const contentHeight = total === 0 ? 0 : alignedContentHeight(total, ROW_HEIGHT, height);
  const viewport = useRef(new OutlineViewport());
  // Before the anchor's layout effect below, which reads it.
  useLayoutEffect(() => {
    viewport.current.contentHeight = contentHeight;
  }, [contentHeight]);
  // A scroll the outline makes itself: the rows of the new position are rendered first, then the
  // element is scrolled (the last layout effect below), so the page is laid out once.
  const scrollTo = useCallback((top: number) => {
    const wanted = viewport.current.request(top);
    if (wanted !== null) setScrollTop(wanted);
  }, []);
  const rememberAnchor = useRowAnchor(viewport, scrollTo, rows, selectedIndex, ROW_HEIGHT);

  useLayoutEffect(() => {
    const element = containerRef.current;
    if (!element) return;
    viewport.current.clientHeight = element.clientHeight;
    const observer = new ResizeObserver(() => {
      viewport.current.clientHeight = element.clientHeight;
      setHeight(element.clientHeight);
      setWidth(element.clientWidth);
      store
        .getState()
        .dispatch({ type: 'setPageSize', pageSize: rowsPerPage(element.clientHeight, ROW_HEIGHT) }, false);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [store]);

  // Bring the selection into view after keyboard moves, jumps and filter changes.
  useLayoutEffect(() => {
    if (selectedIndex < 0) return;
    const { current } = viewport;
    scrollTo(scrollToReveal(selectedIndex, current.position, current.clientHeight, ROW_HEIGHT));
  }, [scrollTo, revealTick, selectedIndex]);

  // The scroll asked for above, once this render holds the rows of its position. It is given to the
  // element in the next animation frame, before that frame's layout: setting scrollTop here would
  // make the browser lay the page out at once, inside the task that rendered (at open, tens of ms
  // of the first snapshot's task), and the frame lays it out anyway. No frame is painted between
  // this render and that callback, so the rows and the scroll reach the screen together.
  useLayoutEffect(() => {
    const element = containerRef.current;
    if (!element || viewport.current.wanted !== scrollTop) return;
    const frame = requestAnimationFrame(() => {
      if (viewport.current.wanted === scrollTop) viewport.current.apply(element);
    });
    return () => cancelAnimationFrame(frame);
  });

  // About 7.5 px per monospace column; the prefix takes at most 6 levels and 40% of the row.
  const prefixBudget = Math.max(6, Math.min(MAX_PREFIX_COLUMNS, Math.floor((width * 0.4) / 7.5)));
  const highlightLimit = Math.ceil(width / MIN_COLUMN_WIDTH);
  // The browser clamps scrollTop when the content shrinks, before it says so with a scroll event.
  const slice = visibleRows(
    Math.min(scrollTop, Math.max(0, contentHeight - height)),
    height,
    ROW_HEIGHT,
    total,
  );
  const items = [];
  if (rows && indexById && folded) {
    for (let i = slice.start; i < slice.end; i++) {
      const row = rows[i]!;
      const mark = foldMark(rows, indexById, i, folded);
      const hidden = foldedIds?.get(row.id);
      const selectedHidden = hidden ? hidden.filter((id) => multiSelection.has(id)).length : 0;
      const self = multiSelection.has(row.id);
      // A fold partly in the multi-entry selection is drawn as partial, not as wholly selected.
      const multi =
        hidden && (self || selectedHidden > 0)
          ? self && selectedHidden === hidden.length
            ? true
            : 'partial'
          : self;
      const labelTime =
        showLabelTimes && row.entry.labelTime ? formatLabelTime(row.entry.labelTime, now) || null : null;
      const archiveState = tree ? tree.archiveStateOf(row.id) : ARCHIVE_NONE;
      const stub = tree && !archivedRevealed && isArchiveRootState(archiveState);
      items.push(
        <OutlineRow
          key={row.id}
          row={row}
          prefix={rowPrefix(row, mark)}
          mark={mark}
          folded={hiddenByFold?.get(row.id) ?? 0}
          labelTime={labelTime}
          index={i}
          selected={i === selectedIndex}
          editing={editingId === row.id}
          tokens={tokens}
          prefixBudget={prefixBudget}
          highlightLimit={highlightLimit}
          leafBelow={(row.isLeafPosition && !row.isLeaf) || row.id === leafFoldId}
          multi={multi}
          stubCount={stub ? subtreeSize(tree, row.id) : undefined}
          archived={isArchivedState(archiveState)}
          grafts={graftsByEntry.get(row.id)}
        />,
      );
    }
  }
  const selectedRowId = rows && selectedIndex >= 0 ? rows[selectedIndex]?.id : undefined;

  return (
    <div
      id="tree-outline"
      ref={containerRef}
      className="outline"
      role="tree"
      aria-label="Session tree (outline)"
      aria-activedescendant={
        selectedRowId && selectedIndex >= slice.start && selectedIndex < slice.end
          ? `row-${selectedRowId}`
          : undefined
      }
      tabIndex={0}
      data-testid="tree.outline"
      onScroll={(e) => {
        viewport.current.scrollTop = e.currentTarget.scrollTop;
        setScrollTop(e.currentTarget.scrollTop);
        rememberAnchor();
      }}
    >
      {total === 0 ? (
        <div className="empty-note" data-testid="tree.empty">
          {emptyOutlineNote(query, streaming)}
        </div>
      ) : (
        <div className="outline-inner" style={{ height: contentHeight }}>
          {items}
        </div>
      )}
    </div>
  );
}
