// What a path did to files (docs/branches.md#files), as the server reconstructed it: the files with
// their ± line counts and net diff (each hunk linked to the tool calls that made it), the files changed
// back, the unknown effects and the failed calls. Also the file lens (one file through every branch)
// and the current branch's files. The page only draws: the reconstruction ran on the server.

import type { FilesResponse } from '@canopy/protocol';
import { useState } from 'react';
import { countOf } from '../lib/format';
import { useApp, useAppStore } from '../store/context';

type FileReport = FilesResponse['files'][number];
type Hunk = FileReport['net']['hunks'][number];

/** Files shown before "show more"; a long path may touch thousands. */
const FILES_SHOWN = 100;
/** Diff lines of one hunk shown before "show more". */
const HUNK_LINES_SHOWN = 80;

export const BASE_NOTE =
  'Diffs are relative to the first content the session saw of each file: content from before the session is unknown.';

const UNKNOWN_REASONS = {
  'may-change-files': 'may change files',
  'arguments-not-kept': 'arguments not kept',
  'no-result': 'no result on this path',
} as const;

export function DiffLines({ lines, testId }: { lines: { kind: string; text: string }[]; testId?: string }) {
  const [all, setAll] = useState(false);
  const shown = all ? lines : lines.slice(0, HUNK_LINES_SHOWN);
  return (
    <div className="diff" data-testid={testId}>
      {shown.map((line, i) => (
        <div
          key={i}
          className={`diff-line diff-${line.kind === '+' ? 'add' : line.kind === '-' ? 'del' : 'ctx'}`}
        >
          <span className="diff-sign">{line.kind}</span>
          {line.text || ' '}
        </div>
      ))}
      {!all && lines.length > shown.length && (
        <button type="button" className="link" onClick={() => setAll(true)}>
          show {lines.length - shown.length} more lines
        </button>
      )}
    </div>
  );
}

/** A link to the tool call entry: selects it in the tree, and the detail panel shows it. */
export function EntryLink({ id, children }: { id: string; children: React.ReactNode }) {
  const store = useAppStore();
  return (
    <button
      type="button"
      className="link"
      data-testid="files.entry-link"
      data-entry-id={id}
      title="Select this entry and show its detail"
      onClick={() => store.getState().selectLinkedEntry(id)}
    >
      {children}
    </button>
  );
}

function HunkView({ hunk }: { hunk: Hunk }) {
  return (
    <div className="hunk" data-testid="files.hunk">
      <div className="hunk-head">
        @@ −{hunk.oldStart} +{hunk.newStart} @@
        {hunk.entryIds.length > 0 && <span className="help"> made by </span>}
        {hunk.entryIds.map((id, i) => (
          <EntryLink key={id} id={id}>
            {i === 0 ? 'tool call' : `call ${i + 1}`}
          </EntryLink>
        ))}
      </div>
      <DiffLines lines={hunk.lines} />
    </div>
  );
}

function Counts({ added, removed }: { added: number; removed: number }) {
  return (
    <span className="counts">
      <span className="added">+{added}</span> <span className="removed">−{removed}</span>
    </span>
  );
}

function FileRow({ file, both }: { file: FileReport; both: boolean }) {
  const store = useAppStore();
  return (
    <details className="file-row" data-testid="files.file" data-path={file.path}>
      <summary>
        <button
          type="button"
          className="link mono"
          data-testid="files.open-lens"
          title="Every branch that touched this file, side by side"
          onClick={(e) => {
            e.preventDefault();
            void store.getState().openFileLens(file.path);
          }}
        >
          {file.path}
        </button>{' '}
        <Counts added={file.net.added} removed={file.net.removed} />
        {both && (
          <span className="badge both" data-testid="files.both" title="Both lanes changed this file">
            both
          </span>
        )}
        {file.startsFromWrite && <span className="badge">new</span>}
        {file.deleted && <span className="badge">deleted</span>}
        {file.partlyUnknown && (
          <span className="badge warn" title="An edit could not be placed: something else changed the file">
            partly unknown
          </span>
        )}
        <span className="help"> {countOf(file.ops.length, 'operation')}</span>
      </summary>
      {file.net.hunks.map((hunk, i) => (
        <HunkView key={i} hunk={hunk} />
      ))}
      <div className="help">
        operations:{' '}
        {file.ops.map((op, i) => (
          <span key={i}>
            <EntryLink id={op.entryId}>{op.tool === op.kind ? op.tool : `${op.tool} ${op.kind}`}</EntryLink>{' '}
            <Counts added={op.added} removed={op.removed} />
            {op.unplaced && ' (not placed)'}
            {i < file.ops.length - 1 ? ' · ' : ''}
          </span>
        ))}
      </div>
    </details>
  );
}

/** One path's files; `otherPaths` (the other lane's changed files) marks the files both touched. */
export function FilesList({
  report,
  otherPaths,
  testId,
}: {
  report: FilesResponse;
  otherPaths?: ReadonlySet<string>;
  testId: string;
}) {
  const [shown, setShown] = useState(FILES_SHOWN);
  const changed = report.files.filter((file) => !file.changedBack);
  const changedBack = report.files.filter((file) => file.changedBack);
  const tree = useApp((s) => s.treeView?.tree ?? null);
  return (
    <div className="files-list" data-testid={testId}>
      {changed.length === 0 && <div className="help">No file changed.</div>}
      {changed.slice(0, shown).map((file) => (
        <FileRow key={file.path} file={file} both={otherPaths?.has(file.path) ?? false} />
      ))}
      {changed.length > shown && (
        <button type="button" className="link" onClick={() => setShown(shown + FILES_SHOWN)}>
          show more files ({changed.length - shown} left)
        </button>
      )}
      {changedBack.length > 0 && (
        <section data-testid="files.changed-back">
          <h4>Changed back to where they were</h4>
          {changedBack.map((file) => (
            <FileRow key={file.path} file={file} both={otherPaths?.has(file.path) ?? false} />
          ))}
        </section>
      )}
      {report.unknownEffects.length > 0 && (
        <section data-testid="files.unknown">
          <h4>Unknown effect ({report.unknownEffects.length})</h4>
          <ul className="plain">
            {report.unknownEffects.slice(0, shown).map((effect, i) => (
              <li key={i}>
                <EntryLink id={effect.entryId}>{effect.tool}</EntryLink>{' '}
                <span className="help">
                  unknown effect: {UNKNOWN_REASONS[effect.reason]}
                  {effect.path ? ` (${effect.path})` : ''}
                  {!effect.path && tree?.get(effect.entryId)
                    ? ` · ${tree.get(effect.entryId)!.text.slice(0, 80)}`
                    : ''}
                </span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {report.failed.length > 0 && (
        <section data-testid="files.failed">
          <h4>Failed calls, skipped ({report.failed.length})</h4>
          <ul className="plain">
            {report.failed.slice(0, shown).map((call, i) => (
              <li key={i}>
                <EntryLink id={call.resultId}>{call.tool}</EntryLink>
                {call.path && <span className="mono"> {call.path}</span>}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

/** The changed files' paths, to mark the files both lanes touched. */
export const changedPaths = (report: FilesResponse | undefined): ReadonlySet<string> =>
  new Set((report?.files ?? []).filter((file) => !file.changedBack).map((file) => file.path));

export function CloseButton({ onClose, testId }: { onClose: () => void; testId: string }) {
  return (
    <button type="button" className="close-button" data-testid={testId} title="Close (Esc)" onClick={onClose}>
      Close <kbd>Esc</kbd>
    </button>
  );
}

/** One file, every branch that touched it, side by side. */
export function FileLensView() {
  const store = useAppStore();
  const lens = useApp((s) => s.fileLens);
  const tree = useApp((s) => s.treeView?.tree ?? null);
  if (!lens) return null;
  return (
    <section
      className="compare-view file-lens"
      data-testid="file-lens"
      aria-label={`File lens of ${lens.path}`}
    >
      <header className="compare-head">
        <h2>
          File lens <span className="mono">{lens.path}</span>
        </h2>
        <CloseButton testId="file-lens.close" onClose={() => store.getState().closeFileLens()} />
      </header>
      <p className="help">{BASE_NOTE}</p>
      {lens.loading && <div className="help">Following the file through the branches…</div>}
      {lens.error && <div className="notice error">{lens.error}</div>}
      {lens.data && (
        <>
          {lens.data.branches.length === 0 && <div className="help">No branch touched this file.</div>}
          {lens.data.omittedBranches > 0 && (
            <div className="help">
              {countOf(lens.data.omittedBranches, 'older branch', 'older branches')} left out.
            </div>
          )}
          <div className="lens-columns">
            {lens.data.branches.map((branch) => (
              <div className="lens-column" key={branch.leafId} data-testid="file-lens.branch">
                <h3>
                  <EntryLink id={branch.leafId}>
                    {tree?.get(branch.leafId)?.text.slice(0, 60) ?? branch.leafId}
                  </EntryLink>
                </h3>
                {branch.sameAs.length > 0 && (
                  <div className="help">
                    and {countOf(branch.sameAs.length, 'branch', 'branches')} with the same calls
                  </div>
                )}
                <div>
                  <Counts added={branch.report.net.added} removed={branch.report.net.removed} />
                  {branch.report.changedBack && <span className="badge">changed back</span>}
                  <span className="help"> {countOf(branch.report.ops.length, 'operation')}</span>
                </div>
                {branch.report.net.hunks.map((hunk, i) => (
                  <HunkView key={i} hunk={hunk} />
                ))}
                {branch.unknownEffects.length > 0 && (
                  <div className="help">
                    {countOf(branch.unknownEffects.length, 'call')} with unknown effect
                  </div>
                )}
              </div>
            ))}
          </div>
        </>
      )}
    </section>
  );
}

/** The files the current branch (or the path to an entry) changed. */
export function BranchFilesView() {
  const store = useAppStore();
  const files = useApp((s) => s.branchFiles);
  if (!files) return null;
  return (
    <section className="compare-view" data-testid="branch-files" aria-label="Files of the branch">
      <header className="compare-head">
        <h2>Files changed on {files.at ? 'the path to the entry' : 'the current branch'}</h2>
        <CloseButton testId="branch-files.close" onClose={() => store.getState().closeBranchFiles()} />
      </header>
      <p className="help">{BASE_NOTE}</p>
      {files.loading && <div className="help">Reading the tool calls…</div>}
      {files.error && <div className="notice error">{files.error}</div>}
      {files.data && <FilesList report={files.data} testId="branch-files.list" />}
    </section>
  );
}
