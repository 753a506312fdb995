// The terminal outline of the tree selector (docs/tree-and-context.md#outline): what the start command
// prints and what the web outline mirrors. With fold marks (docs/tree-and-context.md#folding) the
// connector's middle character is pi's `⊞` (folded) or `⊟` (foldable), and a folded row without a
// connector starts its text with `⊞ `; without them it is always `─`.

import { filterTag, type FilterMode } from './filter';
import type { FlatRow, Gutter } from './flatten';
import { foldMark, NO_FOLDS, type FoldMark, type FoldSet } from './fold';

export interface RenderOutlineOptions {
  /** The row drawn with the `› ` cursor. */
  selectedId?: string | null;
  /** Cut every line to this many terminal columns (with "..."); no limit by default. */
  width?: number;
  /** Draw the two-column cursor gutter (default true). */
  showCursor?: boolean;
  /**
   * Draw pi's fold marks: `indexById` of the rows and the folded entries (none folded when
   * `folded` is left out). Without it the connectors are drawn unmarked.
   */
  foldMarks?: { indexById: ReadonlyMap<string, number>; folded?: FoldSet };
}

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/** The dim tree prefix of a row: `displayIndent × 3` characters of gutters and the connector. */
export function rowPrefix(row: FlatRow, mark: FoldMark = null): string {
  const displayIndent = row.displayIndent;
  if (displayIndent <= 0) return '';
  const hasConnector = row.showConnector && !row.isVirtualRootChild;
  const connectorLevel = hasConnector ? displayIndent - 1 : -1;
  // The first gutter at a level wins, as in the reference's `find`.
  const gutterAt = new Map<number, Gutter>();
  for (const gutter of row.gutters) if (!gutterAt.has(gutter.position)) gutterAt.set(gutter.position, gutter);
  let prefix = '';
  for (let level = 0; level < displayIndent; level++) {
    const gutter = gutterAt.get(level);
    if (gutter !== undefined) prefix += gutter.show ? '│  ' : '   ';
    else if (level === connectorLevel)
      prefix += (row.isLast ? '└' : '├') + (mark === 'folded' ? '⊞' : mark === 'foldable' ? '⊟' : '─') + ' ';
    else prefix += '   ';
  }
  return prefix;
}

/** Draws its fold mark in its connector (pi's rows with a connector shown). */
export function hasConnector(row: FlatRow): boolean {
  return row.showConnector && !row.isVirtualRootChild;
}

/**
 * One outline line without the cursor: prefix, `⊞ ` for a folded row without a connector, `• ` on
 * the active path, `[label] `, text.
 */
export function rowLine(row: FlatRow, mark: FoldMark = null): string {
  const fold = mark === 'folded' && !hasConnector(row) ? '⊞ ' : '';
  const marker = row.onActivePath ? '• ' : '';
  const label = row.entry.label ? `[${row.entry.label.replace(CONTROL_CHARACTERS, ' ')}] ` : '';
  return rowPrefix(row, mark) + fold + marker + label + row.entry.text;
}

/** The outline lines of the rows; `No entries found` for none. */
export function renderOutline(rows: readonly FlatRow[], options?: RenderOutlineOptions): string[] {
  const showCursor = options?.showCursor ?? true;
  const width = options?.width;
  const selectedId = options?.selectedId ?? null;
  const finish = (line: string) => (width === undefined ? line : truncateToWidth(line, width));
  if (rows.length === 0) return [finish(`${showCursor ? '  ' : ''}No entries found`)];
  const lines: string[] = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const cursor = showCursor ? (row.id === selectedId ? '› ' : '  ') : '';
    const marks = options?.foldMarks;
    const mark = marks ? foldMark(rows, marks.indexById, i, marks.folded ?? NO_FOLDS) : null;
    lines[i] = finish(cursor + rowLine(row, mark));
  }
  return lines;
}

/** The footer line: `  (<selected>/<total>)<filter tag>`, `  (0/0)<tag>` for an empty list. */
export function renderFooter(selectedIndex: number, total: number, mode: FilterMode): string {
  const position = total === 0 ? 0 : selectedIndex + 1;
  return `  (${position}/${total})${filterTag(mode)}`;
}

/** The rows shown in a terminal window of `maxVisible` lines, the selection kept centred (docs/tree-and-context.md#outline). */
export function outlineWindow(
  selectedIndex: number,
  total: number,
  maxVisible: number,
): { start: number; end: number } {
  const start = Math.max(0, Math.min(selectedIndex - Math.floor(maxVisible / 2), total - maxVisible));
  return { start, end: Math.min(start + maxVisible, total) };
}

// ---------------------------------------------------------------- terminal width

const segmenter =
  typeof Intl !== 'undefined' && 'Segmenter' in Intl
    ? new Intl.Segmenter(undefined, { granularity: 'grapheme' })
    : undefined;

const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1f64f) ||
    (code >= 0x1f900 && code <= 0x1f9ff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}

function graphemeWidth(grapheme: string): number {
  const code = grapheme.codePointAt(0) ?? 0;
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return 0;
  if (isWide(code)) return 2;
  // An emoji presentation selector makes a narrow pictograph (❤ + U+FE0F) take two columns.
  if (grapheme.length > 1 && grapheme.includes('\ufe0f') && PICTOGRAPHIC.test(grapheme)) return 2;
  if (code >= 0x1f000 && PICTOGRAPHIC.test(grapheme)) return 2;
  if (ZERO_WIDTH.test(String.fromCodePoint(code))) return 0;
  return 1;
}

function graphemes(text: string): Iterable<string> {
  if (segmenter !== undefined) {
    const segments = segmenter.segment(text);
    return {
      *[Symbol.iterator]() {
        for (const { segment } of segments) yield segment;
      },
    };
  }
  return Array.from(text);
}

function isPrintableAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return false;
  }
  return true;
}

/** Terminal columns a string takes (wide CJK and emoji count 2, combining marks 0). */
export function displayWidth(text: string): number {
  if (isPrintableAscii(text)) return text.length;
  let width = 0;
  for (const grapheme of graphemes(text)) width += graphemeWidth(grapheme);
  return width;
}

/** Cuts a line to `width` columns, ending it with "..." when something was cut (as pi-tui does). */
export function truncateToWidth(text: string, width: number, ellipsis = '...'): string {
  if (width <= 0) return '';
  if (isPrintableAscii(text) && text.length <= width) return text;
  if (displayWidth(text) <= width) return text;
  const ellipsisWidth = displayWidth(ellipsis);
  // Too narrow for the ellipsis: show as much of the ellipsis as fits.
  if (ellipsisWidth >= width) return takeColumns(ellipsis, width);
  return takeColumns(text, width - ellipsisWidth) + ellipsis;
}

function takeColumns(text: string, columns: number): string {
  let kept = '';
  let used = 0;
  for (const grapheme of graphemes(text)) {
    const w = graphemeWidth(grapheme);
    if (used + w > columns) break;
    kept += grapheme;
    used += w;
  }
  return kept;
}
