// `canopy --outline`: the tree of each session as text, with the rows, connectors, active-path
// bullets and label chips of the outline view (session-core's tree-view renders both), so the
// sessions can be inspected from a terminal without opening a browser.
import {
  computeRows,
  renderFooter,
  renderOutline,
  SessionManager,
  toViewEntries,
  ViewTree,
} from '@canopy/session-core';
import { readChunksConfined } from './files/confined';
import { listJsonlFiles } from './files/files';
import { archivePieces } from './files/archive';
import { isArchive } from './files/omp-files';

export interface OutlineOptions {
  home?: string;
  /** Terminal width; rows are cut to it. */
  width?: number;
}

/** The outline of one session file's text: a title line, the rows, the footer and any load issues. */
export function outlineOfSession(name: string, bytes: Uint8Array, options: OutlineOptions = {}): string[] {
  return outlineOfManager(name, SessionManager.fromJsonl(bytes), options);
}

/** The outline of a loaded session. */
export function outlineOfManager(name: string, sm: SessionManager, options: OutlineOptions = {}): string[] {
  const entries = sm.getEntries();
  const tree = new ViewTree(toViewEntries(entries, (id) => sm.getLabel(id), { home: options.home }));
  const leafId = sm.getLeafId();
  const result = computeRows(tree, { leafId, mode: 'default' });
  const title = sm.getSessionName() ?? sm.getHeader()?.cwd ?? '';
  const lines = [`── ${name}${title ? ` · ${title}` : ''} (${entries.length} entries)`];
  // The cursor marks where the next message goes: the leaf, or its nearest visible ancestor.
  const leafRow = result.rows[result.leafIndex];
  lines.push(...renderOutline(result.rows, { width: options.width, selectedId: leafRow?.id ?? null }));
  lines.push(renderFooter(result.leafIndex, result.rows.length, 'default'));
  for (const issue of sm.issues) lines.push(`  ! ${issue.message}`);
  return lines;
}

/** Prints the outline of every session file under the roots, sorted by path. */
export async function printOutlines(
  roots: readonly string[],
  write: (text: string) => void,
  options: OutlineOptions = {},
): Promise<void> {
  const files: string[] = [];
  for (const root of roots) files.push(...(await listJsonlFiles(root)));
  files.sort();
  for (const file of files) {
    let manager: SessionManager;
    try {
      // Read in pieces (an archived oh-my-pi session, .jsonl.gz, decompressed piece by piece), since a
      // session can be larger than the longest string the runtime holds.
      manager = await SessionManager.fromJsonlChunks(
        isArchive(file) ? archivePieces(file) : readChunksConfined(file),
      );
    } catch (error) {
      write(`${file}: ${(error as Error).message}\n\n`);
      continue;
    }
    const lines = outlineOfManager(file, manager, options);
    write(`${lines.join('\n')}\n\n`);
  }
  if (files.length === 0) write(`No session files under ${roots.join(', ')}\n`);
}
