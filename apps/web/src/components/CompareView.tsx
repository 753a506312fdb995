// The compare view (docs/branches.md#the-compare-view): the shared path up to the common ancestor,
// the two lanes aligned on user turns, each lane's stats (which cost more is marked), the final
// answers as a diff, what the model saw at each lane's end, the actions, and the Files tab. Drawn in
// the main area in place of the tree; the detail panel beside it shows the entry a click selects.

import type { CompareResponse } from '@canopy/protocol';
import { useState } from 'react';
import { costVerdict, wallTime } from '../lib/compareStats';
import { countOf, formatCost, formatTokens } from '../lib/format';
import { useApp, useAppStore } from '../store/context';
import { leafIdOf, selectedIdOf } from '../store/selectors';
import { ContextView } from './DetailPanel';
import { BASE_NOTE, changedPaths, CloseButton, DiffLines, FilesList } from './FilesReport';

type Lane = CompareResponse['a'];
type Side = 'a' | 'b';

/** Aligned rows drawn before "show more": a 10,000-entry lane must not freeze the page. */
const ROWS_SHOWN = 60;
/** Entries of one turn drawn before "show more". */
const TURN_ENTRIES_SHOWN = 12;

function EntryButton({ id }: { id: string }) {
  const store = useAppStore();
  const entry = useApp((s) => s.treeView?.tree.get(id));
  const selected = useApp((s) => selectedIdOf(s) === id);
  const kind = entry?.type === 'message' ? (entry.role ?? 'message') : (entry?.type ?? 'entry');
  return (
    <button
      type="button"
      className={`lane-entry kind-${kind}${selected ? ' selected' : ''}`}
      data-testid="compare.entry"
      data-entry-id={id}
      title="Select this entry and show its detail"
      onClick={() => store.getState().selectLinkedEntry(id)}
    >
      <span className="lane-entry-kind">{kind}</span> {entry?.text.slice(0, 140) ?? id}
    </button>
  );
}

function TurnCell({ lane, index }: { lane: Lane; index: number | null }) {
  const [all, setAll] = useState(false);
  if (index === null) return <div className="lane-cell empty" />;
  const turn = lane.turns[index]!;
  const shown = all ? turn.entryIds : turn.entryIds.slice(0, TURN_ENTRIES_SHOWN);
  return (
    <div className="lane-cell">
      {shown.map((id) => (
        <EntryButton key={id} id={id} />
      ))}
      {!all && turn.entryIds.length > shown.length && (
        <button type="button" className="link" onClick={() => setAll(true)}>
          show {turn.entryIds.length - shown.length} more entries
        </button>
      )}
    </div>
  );
}

function SharedPath({ result }: { result: CompareResponse }) {
  const [shown, setShown] = useState(ROWS_SHOWN);
  const ancestor = useApp((s) => (result.ancestorId ? s.treeView?.tree.get(result.ancestorId) : undefined));
  return (
    <details className="shared-path" data-testid="compare.shared">
      <summary>
        Shared path: {countOf(result.sharedIds.length, 'entry', 'entries')}
        {ancestor && (
          <span className="help"> up to “{ancestor.text.slice(0, 80)}”, where the lanes split</span>
        )}
      </summary>
      <div className="lane-cell">
        {result.sharedIds.slice(Math.max(0, result.sharedIds.length - shown)).map((id) => (
          <EntryButton key={id} id={id} />
        ))}
        {result.sharedIds.length > shown && (
          <button type="button" className="link" onClick={() => setShown(shown + ROWS_SHOWN)}>
            show {Math.min(ROWS_SHOWN, result.sharedIds.length - shown)} earlier entries
          </button>
        )}
      </div>
    </details>
  );
}

function Stats({ result }: { result: CompareResponse }) {
  const { a, b } = result;
  const verdict = costVerdict(a.rollup, b.rollup);
  const rows: [string, (lane: Lane) => string][] = [
    ['entries', (lane) => lane.rollup.entries.toLocaleString()],
    ['turns', (lane) => lane.rollup.turns.toLocaleString()],
    ['tool calls', (lane) => lane.rollup.toolCalls.toLocaleString()],
    ['tool errors', (lane) => lane.rollup.toolErrors.toLocaleString()],
    ['errors · aborts', (lane) => `${lane.rollup.errors} · ${lane.rollup.aborts}`],
    ['models', (lane) => lane.rollup.models.join(', ') || '—'],
    ['model changes', (lane) => lane.rollup.modelChanges.toLocaleString()],
    ['thinking changes', (lane) => lane.rollup.thinkingChanges.join(' → ') || '—'],
    ['tokens', (lane) => formatTokens(lane.rollup.usage.totalTokens)],
    [
      'by source',
      (lane) =>
        Object.entries(lane.rollup.usageBySource)
          .map(([source, usage]) => `${source} ${formatTokens(usage.totalTokens)} ${formatCost(usage.cost)}`)
          .join(' · ') || '—',
    ],
    ['wall time', (lane) => wallTime(lane.rollup.wallMs)],
  ];
  return (
    <div className="compare-stats">
      <p className="verdict" data-testid="compare.verdict">
        {verdict.text}
      </p>
      <table data-testid="compare.stats">
        <thead>
          <tr>
            <th />
            <th>Lane A</th>
            <th>Lane B</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th>cost</th>
            {(['a', 'b'] as const).map((side) => (
              <td
                key={side}
                data-testid={`compare.cost-${side}`}
                className={verdict.more === side ? 'costlier' : verdict.more ? 'cheaper' : ''}
              >
                {formatCost(result[side].rollup.usage.cost)}
                {verdict.more === side && <span className="badge warn">costlier</span>}
                {verdict.more && verdict.more !== side && <span className="badge ok">cheaper</span>}
              </td>
            ))}
          </tr>
          {rows.map(([name, valueOf]) => (
            <tr key={name}>
              <th>{name}</th>
              <td data-testid={`compare.stat-a-${name}`}>{valueOf(a)}</td>
              <td data-testid={`compare.stat-b-${name}`}>{valueOf(b)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function LaneActions({ result, side }: { result: CompareResponse; side: Side }) {
  const store = useAppStore();
  const lane = result[side];
  const other = result[side === 'a' ? 'b' : 'a'];
  const atLeaf = useApp((s) => leafIdOf(s) === lane.leafId);
  const busy = useApp((s) => s.busy !== null);
  const state = () => store.getState();
  const label = side.toUpperCase();
  return (
    <div className="lane-actions" data-testid={`compare.actions-${side}`}>
      <button
        type="button"
        data-testid={`compare.jump-${side}`}
        disabled={atLeaf || busy}
        title="Move the leaf to this lane's end"
        onClick={() => void state().jump(lane.leafId)}
      >
        Jump here
      </button>
      <button
        type="button"
        data-testid={`compare.summarize-${side}`}
        disabled={busy || lane.entryIds.length === 0}
        title={`Summarise lane ${label} into lane ${side === 'a' ? 'B' : 'A'}'s end (the leaf moves there first)`}
        onClick={async () => {
          if (leafIdOf(state()) !== other.leafId) await state().jump(other.leafId, {});
          state().setMultiSelection(lane.entryIds, 'replace');
          state().openSummaryDialog({ kind: 'selection' });
        }}
      >
        Summarise into {side === 'a' ? 'B' : 'A'}
      </button>
      <button
        type="button"
        data-testid={`compare.branch-${side}`}
        disabled={busy}
        title="Write the path to this lane's end into a new session file"
        onClick={() => state().requestBranch(lane.leafId)}
      >
        Branch into new file
      </button>
      <button
        type="button"
        data-testid={`compare.bring-back-${side}`}
        disabled={lane.entryIds.length === 0}
        title="Bring this lane's entries into the branch you continue on, as one message"
        onClick={() => state().openBringBack(lane.entryIds)}
      >
        Bring into current branch
      </button>
    </div>
  );
}

function Lanes({ result }: { result: CompareResponse }) {
  const [shown, setShown] = useState(ROWS_SHOWN);
  const rows = result.rows.slice(0, shown);
  return (
    <div className="lanes" data-testid="compare.lanes">
      <div className="lane-row lane-head">
        {(['a', 'b'] as const).map((side) => (
          <div key={side} className="lane-cell">
            <strong>Lane {side.toUpperCase()}</strong>{' '}
            <span className="help">
              {countOf(result[side].rollup.entries, 'entry', 'entries')},{' '}
              {countOf(result[side].rollup.turns, 'turn')}
            </span>
            <LaneActions result={result} side={side} />
          </div>
        ))}
      </div>
      {rows.map((row, i) => (
        <div
          key={i}
          className={`lane-row${row.same ? ' same' : ''}`}
          data-testid="compare.row"
          data-same={row.same}
        >
          {row.same && (
            <div className="same-mark" title="The same user message in both lanes">
              same
            </div>
          )}
          <TurnCell lane={result.a} index={row.a} />
          <TurnCell lane={result.b} index={row.b} />
        </div>
      ))}
      {result.rows.length > shown && (
        <button type="button" className="link" onClick={() => setShown(shown + ROWS_SHOWN * 4)}>
          show more turns ({result.rows.length - shown} left)
        </button>
      )}
    </div>
  );
}

function AnswerDiff({ result }: { result: CompareResponse }) {
  if (!result.a.answer && !result.b.answer) return null;
  return (
    <section data-testid="compare.answers">
      <h3>
        Final answers{' '}
        <span className="help">
          (lane A − / lane B +: <span className="removed">−{result.answerChanges.removed}</span>{' '}
          <span className="added">+{result.answerChanges.added}</span> lines)
        </span>
      </h3>
      <DiffLines lines={result.answerDiff} testId="compare.answer-diff" />
    </section>
  );
}

function ModelSaw({ result }: { result: CompareResponse }) {
  const sessionId = useApp((s) => s.session?.id ?? null);
  const [open, setOpen] = useState<Side | null>(null);
  if (!sessionId) return null;
  return (
    <section data-testid="compare.context">
      <h3>What the model saw at each lane’s end</h3>
      <div className="lane-row">
        {(['a', 'b'] as const).map((side) => (
          <div className="lane-cell" key={side}>
            <button
              type="button"
              data-testid={`compare.context-${side}`}
              onClick={() => setOpen(open === side ? null : side)}
            >
              {open === side ? 'Hide' : 'Show'} lane {side.toUpperCase()}’s context
            </button>
            {open === side && <ContextView sessionId={sessionId} at={result[side].leafId} />}
          </div>
        ))}
      </div>
    </section>
  );
}

export function CompareView() {
  const store = useAppStore();
  const compare = useApp((s) => s.compare);
  if (!compare) return null;
  const result = compare.result.data;
  const files = compare.files.data;
  return (
    <section className="compare-view" data-testid="compare" aria-label="Compare two branches">
      <header className="compare-head">
        <h2>Compare two branches</h2>
        <div className="tabs" role="tablist">
          {(['lanes', 'files'] as const).map((tab) => (
            <button
              key={tab}
              type="button"
              role="tab"
              aria-selected={compare.tab === tab}
              data-testid={`compare.tab-${tab}`}
              className={compare.tab === tab ? 'active' : ''}
              onClick={() => void store.getState().setCompareTab(tab)}
            >
              {tab === 'lanes' ? 'Lanes' : 'Files'}
            </button>
          ))}
        </div>
        <CloseButton testId="compare.close" onClose={() => store.getState().closeCompare()} />
      </header>
      {compare.result.loading && <div className="help">Comparing…</div>}
      {compare.result.error && <div className="notice error">{compare.result.error}</div>}
      {result && compare.tab === 'lanes' && (
        <div className="compare-body">
          <SharedPath result={result} />
          <Stats result={result} />
          <AnswerDiff result={result} />
          <Lanes result={result} />
          <ModelSaw result={result} />
        </div>
      )}
      {result && compare.tab === 'files' && (
        <div className="compare-body" data-testid="compare.files">
          <p className="help">
            {BASE_NOTE} Files both lanes changed are marked “both”; click a file name for its lens.
          </p>
          {compare.files.loading && <div className="help">Reading the lanes’ tool calls…</div>}
          {compare.files.error && <div className="notice error">{compare.files.error}</div>}
          {files && (
            <div className="lane-row">
              {(['a', 'b'] as const).map((side) => (
                <div className="lane-cell" key={side}>
                  <h3>Lane {side.toUpperCase()}</h3>
                  <FilesList
                    report={files[side]}
                    otherPaths={changedPaths(files[side === 'a' ? 'b' : 'a'])}
                    testId={`compare.files-${side}`}
                  />
                </div>
              ))}
            </div>
          )}
        </div>
      )}
    </section>
  );
}
