// The detail panel of the selected entry: full content (loaded on demand), actions (jump, label,
// branch, link), "What the model sees here" and the per-branch totals.

import type { ContextResponse, EntryDetail, TreeNode } from '@canopy/protocol';
import { entryCopyText, isArchiveRootState, type SessionEntry, type ViewEntry } from '@canopy/session-core';
import { BringBackProvenance } from './BringBackProvenance';
import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import { branchTotals, subtreeTotals } from '../lib/branchTotals';
import { countSessionUsage } from '../lib/sessionUsage';
import { entryKind, KIND_COLOR_VAR, kindTitle } from '../lib/entryKind';
import { formatCost, formatTimestamp, formatTokens } from '../lib/format';
import { selectedIdOf } from '../store/appStore';
import { useApp, useAppStore } from '../store/context';
import { leafIdOf, treeOf, treeVersionOf } from '../store/selectors';
import { EntryContent, EntrySessionContext, RawJson } from './EntryContent';
import { browserSliceClock, SliceRunner } from './graph/useGraphLayout';
import { Pre } from './Markdown';

function useEntryDetail(entryId: string | null, treeVersion: number) {
  const store = useAppStore();
  const [state, setState] = useState<{ id: string | null; detail: EntryDetail | null; error: string | null }>(
    {
      id: null,
      detail: null,
      error: null,
    },
  );
  useEffect(() => {
    if (!entryId) return;
    let cancelled = false;
    store
      .getState()
      .loadDetail(entryId)
      .then((detail) => {
        // Every tree version asks again (a label or a late tool result changes the detail), but the
        // cache mostly answers with the same object: keep the state then, so a live append does not
        // render the whole entry content again.
        if (!cancelled)
          setState((previous) =>
            previous.id === entryId && previous.detail === detail && previous.error === null
              ? previous
              : { id: entryId, detail, error: null },
          );
      })
      .catch((error: unknown) => {
        if (!cancelled) setState({ id: entryId, detail: null, error: (error as Error).message });
      });
    return () => {
      cancelled = true;
    };
  }, [entryId, store, treeVersion]);
  return state.id === entryId ? state : { id: entryId, detail: null, error: null };
}

export function ContextView({ sessionId, at }: { sessionId: string; at: string }) {
  const [context, setContext] = useState<{
    at: string;
    data: ContextResponse | null;
    error: string | null;
  } | null>(null);
  const store = useAppStore();
  useEffect(() => {
    let cancelled = false;
    store
      .getState()
      .loadContext(sessionId, at)
      .then((data) => !cancelled && setContext({ at, data, error: null }))
      .catch(
        (error: unknown) => !cancelled && setContext({ at, data: null, error: (error as Error).message }),
      );
    return () => {
      cancelled = true;
    };
  }, [store, sessionId, at]);
  if (!context || context.at !== at) return <div className="help">Building the context…</div>;
  if (context.error || !context.data) return <div className="notice error">{context.error}</div>;
  const data = context.data;
  const model = data.model ? `${data.model.provider}/${data.model.modelId}` : (data.models.default ?? 'none');
  return (
    <div data-testid="detail.context">
      <div className="detail-meta">
        <span data-testid="detail.context-tokens">≈ {formatTokens(data.tokens)} tokens</span>
        <span>{data.llm.length} messages</span>
        <span>thinking: {data.thinkingLevel}</span>
        <span className="mono">{model}</span>
      </div>
      {data.llm.map((message, i) => (
        <details className="block" key={i}>
          <summary>
            <strong>{message.role}</strong> · {message.text.slice(0, 90).replace(/\s+/g, ' ')}
          </summary>
          <div className="block-body">
            <Pre text={message.text} />
          </div>
        </details>
      ))}
      {data.llm.length === 0 && <div className="help">The model sees nothing at this point.</div>}
    </div>
  );
}

/** The tree holds the nodes as the server sent them, usage included. */
const usageOf = (entry: ViewEntry) => (entry as TreeNode).usage;

function Totals({ entryId }: { entryId: string }) {
  const tree = useApp(treeOf);
  // The session's totals walk every entry: deferred, so that a tree change draws the rows first
  // and adds the totals in a later task, and not made at all until the whole snapshot is in.
  const treeVersion = useDeferredValue(useApp(treeVersionOf));
  const streaming = useDeferredValue(useApp((s) => s.snapshot !== null));
  const leafId = useApp(leafIdOf);
  // Three memos, not one: the whole session's sum visits every entry, and it must not be redone
  // when only the selection moves (a click); the two branch sums walk one path each.
  // Counted a slice per task (lib/sessionUsage.ts); the last count of the same tree shows meanwhile.
  const count = useMemo(() => {
    void treeVersion;
    return tree && !streaming ? countSessionUsage(tree) : null;
  }, [tree, treeVersion, streaming]);
  const [runner] = useState(() => new SliceRunner(browserSliceClock));
  const [, setCounted] = useState(0);
  useEffect(() => {
    if (count === null || count.result() !== null) runner.cancel();
    else runner.run(count.step, () => setCounted((n) => n + 1));
  }, [count, runner]);
  useEffect(() => () => runner.cancel(), [runner]);
  const session = count ? (count.result() ?? count.latest()) : null;
  const here = useMemo(() => {
    void treeVersion;
    return tree ? branchTotals(tree, entryId, usageOf) : null;
  }, [tree, treeVersion, entryId]);
  const leaf = useMemo(() => {
    void treeVersion;
    return tree ? branchTotals(tree, leafId, usageOf) : null;
  }, [tree, treeVersion, leafId]);
  // What an archived branch hides, when the entry is the root of one.
  const archived = useMemo(() => {
    void treeVersion;
    return tree && isArchiveRootState(tree.archiveStateOf(entryId))
      ? subtreeTotals(tree, entryId, usageOf)
      : null;
  }, [tree, treeVersion, entryId]);
  if (streaming) return <div className="help">Counted once the whole session has loaded…</div>;
  const totals = session && here && leaf ? { here, leaf, session } : null;
  if (!totals) return null;
  const row = (
    name: string,
    t: { totalTokens: number; cost: number; withUsage: number; entries: number },
  ) => (
    <tr>
      <td>{name}</td>
      <td className="num">{t.entries.toLocaleString()}</td>
      <td className="num">{t.withUsage.toLocaleString()}</td>
      <td className="num">{formatTokens(t.totalTokens)}</td>
      <td className="num">{formatCost(t.cost)}</td>
    </tr>
  );
  return (
    <table className="kv" data-testid="detail.totals">
      <thead>
        <tr>
          <th>branch (root → …)</th>
          <th className="num">entries</th>
          <th
            className="num"
            title="Entries that used a model: replies, usage entries, tools' own calls, summaries"
          >
            model calls
          </th>
          <th className="num">tokens</th>
          <th className="num">cost</th>
        </tr>
      </thead>
      <tbody>
        {row('this entry', totals.here)}
        {row('current leaf', totals.leaf)}
        {archived && row('archived branch (hidden)', archived)}
        <tr>
          <td>whole session</td>
          <td className="num">{tree?.size.toLocaleString()}</td>
          <td className="num">{totals.session.withUsage.toLocaleString()}</td>
          <td className="num">{formatTokens(totals.session.tokens)}</td>
          <td className="num">{formatCost(totals.session.cost)}</td>
        </tr>
      </tbody>
    </table>
  );
}

export function DetailPanel() {
  const store = useAppStore();
  const session = useApp((s) => s.session);
  const selectedId = useApp((s) => selectedIdOf(s));
  const entry = useApp((s) => (selectedId ? s.treeView?.tree.get(selectedId) : undefined));
  const treeVersion = useApp(treeVersionOf);
  const leafId = useApp(leafIdOf);
  const busy = useApp((s) => s.busy);
  // A server still reading the session answers an entry once it has read the whole file (an
  // entry's children and label may come later in it): meanwhile the row's own text stands in.
  const streaming = useApp((s) => s.snapshot !== null);
  const { detail, error } = useEntryDetail(session && entry ? entry.id : null, treeVersion);
  const [showContext, setShowContext] = useState(false);

  if (!session) {
    return (
      <aside className="detail" data-testid="detail.panel">
        <div className="detail-scroll help">Open a session to see its entries here.</div>
      </aside>
    );
  }
  if (!entry) {
    return (
      <aside className="detail" data-testid="detail.panel">
        <div className="detail-scroll help">Select an entry in the tree.</div>
      </aside>
    );
  }
  const kind = entryKind(entry.type, entry.role);
  const isLeaf = entry.id === leafId;
  const isUser = entry.type === 'message' && entry.role === 'user';
  const readOnly = session.item.readOnly;
  const copyLink = () => {
    const url = new URL(window.location.href);
    url.search = `?session=${encodeURIComponent(session.id)}&entry=${encodeURIComponent(entry.id)}`;
    void navigator.clipboard?.writeText(url.toString()).then(
      () => store.getState().toast('Link copied'),
      () => store.getState().toast(url.toString()),
    );
  };

  return (
    <aside className="detail" data-testid="detail.panel" aria-label="Entry details">
      <div className="detail-scroll">
        <div className="detail-head">
          <span
            className="kind-badge"
            style={{ '--kind': KIND_COLOR_VAR[kind] } as React.CSSProperties}
            data-testid="detail.kind"
          >
            {kindTitle(entry.type, entry.role)}
          </span>
          {entry.label && (
            <span className="row-label" data-testid="detail.label">
              [{entry.label}]
            </span>
          )}
          {isLeaf && <span className="row-leaf">current leaf</span>}
        </div>
        <div className="detail-meta">
          <span className="mono" data-testid="detail.id">
            {entry.id}
          </span>
          <span>{formatTimestamp(entry.timestamp)}</span>
        </div>
        {readOnly && (
          <div className="notice warn" data-testid="detail.read-only">
            Read-only: {readOnly}
          </div>
        )}
        <div className="detail-actions">
          <button
            type="button"
            className="primary"
            data-testid="detail.jump"
            disabled={busy !== null}
            title={
              isUser
                ? 'Move the leaf to the parent of this message and put its text in the composer (Enter)'
                : 'Move the leaf here (Enter)'
            }
            onClick={() => void store.getState().jump(entry.id)}
          >
            Jump here
          </button>
          <button
            type="button"
            data-testid="detail.label-edit"
            disabled={readOnly !== undefined}
            onClick={() => store.getState().startLabelEdit(entry.id)}
            title={readOnly ?? 'Shift+L'}
          >
            {entry.label ? 'Edit label' : 'Add label'}
          </button>
          {isUser && (
            <button
              type="button"
              data-testid="detail.branch"
              disabled={busy !== null || readOnly !== undefined}
              title={readOnly ?? 'Start a new session file with the path up to this message (/branch)'}
              onClick={() => store.getState().requestBranch(entry.id)}
            >
              Branch from here
            </button>
          )}
          <button
            type="button"
            data-testid="detail.copy-text"
            disabled={
              detail !== null &&
              detail !== undefined &&
              entryCopyText(detail.entry as unknown as SessionEntry) === undefined
            }
            onClick={() => void store.getState().copySelected()}
            title="Copy this message's text, as pi's tree copies it (Ctrl+X)"
          >
            Copy text
          </button>
          <button
            type="button"
            data-testid="detail.copy-link"
            onClick={copyLink}
            title="Copy a link to this entry"
          >
            Copy link
          </button>
        </div>
        {error && <div className="notice error">{error}</div>}
        {!detail && !error && !streaming && <div className="help">Loading…</div>}
        {!detail && !error && streaming && (
          <div data-testid="detail.waiting">
            {entry.text && <p className="detail-preview">{entry.text}</p>}
            <div className="help">The whole entry is shown once the session has loaded…</div>
          </div>
        )}
        {detail && (
          <div data-testid="detail.content">
            <EntrySessionContext.Provider value={session.id}>
              <EntryContent detail={detail} />
            </EntrySessionContext.Provider>
          </div>
        )}

        <BringBackProvenance entryId={entry.id} type={entry.type} text={entry.text} />

        <div className="section-title">Branch totals</div>
        <Totals entryId={entry.id} />

        <div className="section-title">What the model sees here</div>
        {showContext ? (
          <ContextView sessionId={session.id} at={entry.id} />
        ) : (
          <button type="button" data-testid="detail.context-show" onClick={() => setShowContext(true)}>
            Show the context at this entry
          </button>
        )}
        {detail && <RawJson value={detail.entry} />}
      </div>
    </aside>
  );
}
