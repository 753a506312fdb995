// The open session: its head and its tree (session-core's tree selector state), loaded from the
// streamed snapshot and kept current by server events, both through `applyServerEvent`
// (store/live.ts). This slice only feeds that function and carries out what it returns; what
// opening or closing a session means to the other slices (dialogs, selections, the sidebar, the
// session list) it asks of them through their actions.

import type { ServerEvent, SessionListItem } from '@canopy/protocol';
import {
  prepareRows,
  treeSelectorReducer,
  type ComputeRowsOptions,
  type TreeSelectorAction,
  type TreeSelectorState,
} from '@canopy/session-core';
import { messageOf } from '../../net/errors';
import { nextTask } from '../../net/snapshot';
import type { AppStore } from '../appStore';
import {
  applyServerEvent,
  readProgressStep,
  type LiveInput,
  type LiveState,
  type SessionHead,
  type SnapshotProgress,
  withListedItem,
} from '../live';
import { filterModeOf, selectedIdOf } from '../selectors';
import type { SliceKit } from './kit';

export interface TreeSlice {
  session: SessionHead | null;
  /** The tree, its rows, leaf, filter, search and selection. */
  treeView: TreeSelectorState | null;
  followLeaf: boolean;
  /** The snapshot still streaming in, if any. */
  snapshot: SnapshotProgress | null;
  /** Waiting for the first line of a session being opened. */
  loading: boolean;
  loadError: string | null;
  openSession(id: string, entryId?: string | null): Promise<void>;
  /** Fetches the open session's snapshot again, keeping the selection. */
  reloadSession(): Promise<void>;
  closeSession(): void;
  handleEvent(event: ServerEvent): void;
  /** Runs one of session-core's tree selector actions on the tree view; the new one, or null if none is open. */
  runTreeAction(action: TreeSelectorAction): TreeSelectorState | null;
  /** The session list's rows changed: the open session's head takes its row (its name, its writer). */
  takeListedRows(rows: readonly SessionListItem[]): void;
  setFollowLeaf(on: boolean): void;
  /**
   * Resolves true once `ready` holds for the state (at once if it does already) — how an action
   * waits for its own write to come back through `session_changed` — or false if the session
   * closes or another one opens first.
   */
  whenState(ready: (state: AppStore) => boolean): Promise<boolean>;
}

const DEFAULT_PAGE_SIZE = 20;

/**
 * Nodes of a streamed snapshot appended between two store updates that only move its progress.
 * Every store update re-renders what reads the tree or the progress (the status bar, the graph,
 * the detail panel) and repaints: at 200,000 entries, one per part (4096 nodes) cost about 1 s of
 * React work and as much again in style, layout and paint (CPU profile of the open). Parts that
 * bring rows (the first screen, each fourfold growth) and everything else are stored at once,
 * except the server's read progress within the step the status bar shows (live.ts's
 * READ_PROGRESS_STEPS), held the same way.
 */
const NODES_PER_PROGRESS = 16_384;

/** Work per task while rows are prepared: a frame's worth, well under a 100 ms long task. */
const ROWS_SLICE_MS = 8;

/**
 * Computes the rows of the open tree for `options` a slice per task (session-core's
 * `prepareRows`), so that the apply that needs them next answers at once instead of holding one
 * O(n) task: at 500,000 entries the closing line's full pass alone took over 300 ms. False if
 * the load was aborted meanwhile.
 */
async function prepareInSlices(
  treeView: TreeSelectorState,
  options: Omit<ComputeRowsOptions, 'selectedId'>,
  signal: AbortSignal,
): Promise<boolean> {
  const preparation = prepareRows(treeView.tree, options);
  for (;;) {
    // Each slice in a task of its own, after the render of what was applied before it.
    await nextTask();
    if (signal.aborted) return false;
    const deadline = performance.now() + ROWS_SLICE_MS;
    if (preparation.step(() => performance.now() >= deadline)) return true;
  }
}

function liveOf(state: AppStore): LiveState {
  const { session, treeView, followLeaf, snapshot } = state;
  return { session, treeView, followLeaf, snapshot };
}

export function createTreeSlice(kit: SliceKit<TreeSlice>): TreeSlice {
  const { set, get, api } = kit;
  // The load in flight; a newer open or a close aborts it.
  let loading: AbortController | null = null;
  // The snapshot's progress after parts that changed nothing else (see NODES_PER_PROGRESS), not
  // yet in the store, and the store's progress it follows from: every apply starts from it, so
  // nothing is lost, and it is dropped if anything else has replaced the store's progress since.
  let held: { progress: SnapshotProgress; after: SnapshotProgress } | null = null;

  /** `hold`: a snapshot part whose progress may wait in `held` if that is all it changes. */
  const apply = (input: LiveInput, hold = false) => {
    const before = get();
    const selectedBefore = selectedIdOf(before);
    const live = liveOf(before);
    const base = held && live.snapshot === held.after ? { ...live, snapshot: held.progress } : live;
    held = null;
    const applied = applyServerEvent(base, input);
    const { session, treeView, snapshot } = applied.state;
    if (
      hold &&
      snapshot !== null &&
      before.snapshot !== null &&
      !snapshot.rowsDue &&
      session === base.session &&
      treeView === base.treeView &&
      !applied.reveal &&
      !applied.reload &&
      applied.notices.length === 0 &&
      applied.changedIds.length === 0
    ) {
      held = { progress: snapshot, after: before.snapshot };
      return;
    }
    set({ session, treeView, snapshot });
    if (applied.reveal) get().revealSelection();
    // The open session's row as its snapshot or events state it: the list shows the same row.
    if (session && session.item !== before.session?.item) get().takeOpenSessionRow(session.item);
    if (applied.changedIds.length > 0) get().forgetDetails(applied.changedIds);
    for (const notice of applied.notices) get().toast(notice);
    kit.selectionMoved(selectedBefore);
    if (applied.reload) void get().reloadSession();
  };

  /** Streams a snapshot into the state; `onHead` runs when its first line is in. */
  const load = async (id: string, selectedId: string | null, onHead: () => void) => {
    loading?.abort();
    const controller = new AbortController();
    loading = controller;
    let started = false;
    let restart = false;
    let nodesSinceStored = 0;
    try {
      for await (const part of api.getSession(id, controller.signal)) {
        if (controller.signal.aborted) return;
        if (part.kind === 'head') {
          onHead();
          started = true;
          const state = get();
          apply({
            type: 'snapshot_head',
            head: part.head,
            selectedId,
            mode: filterModeOf(state),
            pageSize: state.treeView?.pageSize ?? DEFAULT_PAGE_SIZE,
          });
          kit.notifyLocation();
        } else if (part.kind === 'nodes') {
          nodesSinceStored += part.nodes.length;
          const hold = nodesSinceStored < NODES_PER_PROGRESS;
          apply(
            { type: 'snapshot_nodes', sessionId: id, nodes: part.nodes, masks: part.masks, deferRows: true },
            hold,
          );
          if (held === null) nodesSinceStored = 0;
          const { treeView, snapshot } = get();
          if (treeView && snapshot?.rowsDue) {
            const { leafId, mode, query } = treeView;
            if (!(await prepareInSlices(treeView, { leafId, mode, query }, controller.signal))) return;
            apply({ type: 'snapshot_rows', sessionId: id });
          }
        } else if (part.kind === 'read') {
          // Stored when the status bar's step of the read moves; else held like plain nodes.
          const shown = get().snapshot;
          const hold =
            shown !== null && readProgressStep(shown, part.read) === readProgressStep(shown, shown.read);
          apply({ type: 'snapshot_read', sessionId: id, read: part.read }, hold);
        } else if (part.kind === 'end') {
          apply({ type: 'snapshot_changed', sessionId: id, changed: part.changed });
          const { treeView } = get();
          if (treeView) {
            const options = { leafId: part.end.leafId, mode: treeView.mode, query: treeView.query };
            if (!(await prepareInSlices(treeView, options, controller.signal))) return;
          }
          apply({ type: 'snapshot_end', sessionId: id, end: part.end, changed: [] });
        } else {
          // The file was replaced while the server read it: what came is not the session.
          restart = true;
          break;
        }
      }
      if (restart) {
        if (loading === controller) loading = null;
        return load(id, selectedId, onHead);
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      // Cut off after the head: half a tree is not the session; say so instead of showing it.
      if (started) get().closeSession();
      throw error;
    } finally {
      if (loading === controller) loading = null;
    }
  };

  return {
    session: null,
    treeView: null,
    followLeaf: true,
    snapshot: null,
    loading: false,
    loadError: null,

    async openSession(id, entryId) {
      set({ loading: true, loadError: null });
      get().closeEditors();
      if (get().session?.id !== id) get().setComposerText('');
      try {
        await load(id, entryId ?? null, () => {
          // Another session: the old one's multi-selection and summary dialog mean nothing here.
          if (get().session?.id !== id) {
            get().clearMultiSelection();
            get().closeSummaryDialog();
          }
          get().clearDetails();
          // Fold the list away first, so that the views measure their final size when they mount.
          get().collapseAllRuns();
          get().foldSidebarUnlessPinned();
          set({ loading: false });
        });
      } catch (error) {
        set({ loading: false, loadError: messageOf(error) });
      }
    },

    async reloadSession() {
      const open = get().session;
      if (!open) return;
      try {
        await load(open.id, selectedIdOf(get()), () => get().clearDetails());
      } catch (error) {
        get().toast(`Reloading the session failed: ${messageOf(error)}`, 'error');
      }
    },

    closeSession() {
      loading?.abort();
      loading = null;
      held = null;
      const state = get();
      state.closeSummaryDialog();
      state.clearMultiSelection();
      state.openSettings(false);
      state.setIdleFilterMode(filterModeOf(state));
      state.cancelLabelEdit();
      state.showSidebar();
      set({ session: null, treeView: null, snapshot: null, loadError: null, loading: false });
      kit.notifyLocation();
    },

    handleEvent(event) {
      switch (event.type) {
        case 'error':
          if (!event.sessionId || event.sessionId === get().session?.id) get().toast(event.message, 'error');
          return;
        case 'hello':
        case 'summary_progress':
          get().handleSummaryEvent(event);
          return;
        case 'pong':
          return;
        case 'session_list_changed':
          get().applyListChange(event);
          return;
        default:
          apply(event);
      }
    },

    runTreeAction(action) {
      const current = get().treeView;
      if (!current) return null;
      const next = treeSelectorReducer(current, action);
      if (next !== current) set({ treeView: next });
      return next;
    },

    takeListedRows(rows) {
      const session = get().session;
      const next = withListedItem(session, rows);
      if (next !== session) set({ session: next });
    },

    setFollowLeaf(on) {
      set({ followLeaf: on });
    },

    whenState(ready) {
      const sessionId = get().session?.id;
      return new Promise<boolean>((resolve) => {
        let unsubscribe: (() => void) | null = null;
        const settled = (state: AppStore) => {
          const answer = state.session?.id !== sessionId ? false : ready(state) ? true : null;
          if (answer === null) return false;
          unsubscribe?.();
          resolve(answer);
          return true;
        };
        if (!settled(get())) unsubscribe = kit.subscribe((state) => void settled(state));
      });
    },
  };
}
