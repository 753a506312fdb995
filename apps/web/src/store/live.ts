// The open session as the browser holds it, and the one function that moves it on: every snapshot
// part and every server event goes through `applyServerEvent` (docs/architecture.md#path-of-an-event).
// The tree itself is session-core's `TreeSelectorState` (the tree, its rows, leaf, filter, search
// and selection), so nothing about it is kept twice; the tree's entries are the protocol's
// `TreeNode`s as received, so a node's usage numbers travel with it. What the store must do beyond the new state
// (tell the user, fetch a new snapshot) comes back as data; this module never reaches a store.
//
// One exception to purity, on purpose: the `ViewTree` inside the tree view is advanced in place
// (append, replace), because copying a tree of 200,000 entries for every appended line would cost
// O(n) per event. Its `version` changes with every change and the tree view state is always a new
// object, so subscribers see the change; the state passed in must not be used after the call.
// One file (past 300 lines) because every event kind moves the same state, in one switch.

import type {
  NodeColumns,
  ServerEvent,
  SessionChangedEvent,
  SessionListItem,
  SessionSnapshotEnd,
  SessionSnapshotHead,
  TreeNode,
} from '@canopy/protocol';
import { decodeNodes } from '@canopy/protocol/values';
import {
  ViewTree,
  addSearchMasks,
  createTreeSelectorState,
  onlyArchiveTargetChanged,
  treeSelectorReducer,
  type FilterMode,
  type SearchMaskColumns,
  type TreeSelectorState,
} from '@canopy/session-core';

/**
 * Everything about the open session but its tree. While its snapshot streams in, only the list
 * row is known: the rest (header, issues, …) comes with the snapshot's closing line.
 */
export interface SessionHead {
  id: string;
  item: SessionListItem;
  header: Record<string, unknown>;
  dialect: SessionSnapshotEnd['dialect'];
  issues: SessionSnapshotEnd['issues'];
  needsMigration: boolean;
  name?: string;
}

/** A snapshot still streaming in. */
export interface SnapshotProgress {
  /** Nodes received so far. */
  received: number;
  /** How many nodes the snapshot holds, when its head said (a session the server had open). */
  total: number | null;
  /** The file's size and how much of it the server has read (for a session it is still reading). */
  bytes: number;
  read: number;
  /** The tree's size when its rows were last computed. */
  rowsAtSize: number;
  /** Rows are due (the tree grew fourfold, the wanted entry came) and wait for `snapshot_rows`. */
  rowsDue: boolean;
  /** The entry to select once it has arrived (a deep link into a large tree). */
  wantedId: string | null;
  /** Select the leaf when it is known, at the end (nothing else was asked for, or it never came). */
  toLeaf: boolean;
  /** Changes that arrived meanwhile: applied in order after the closing line, so file order holds. */
  queued: readonly ServerEvent[];
}

/**
 * Steps of the file read that the status bar shows while a snapshot streams from a file the server
 * is still reading (every 5%). The server says how far it has read after every piece (4 MB), and
 * each progress stored is a render, layout and paint of the page: about 250 per gigabyte, ~5 ms
 * each in a traced 200k open. A read within the step already shown waits for the next update.
 */
export const READ_PROGRESS_STEPS = 20;

/** The step of the file read that `read` bytes of this snapshot reach (see READ_PROGRESS_STEPS). */
export function readProgressStep(snapshot: SnapshotProgress, read: number): number {
  return snapshot.bytes > 0
    ? Math.floor((READ_PROGRESS_STEPS * Math.min(read, snapshot.bytes)) / snapshot.bytes)
    : 0;
}

export interface LiveState {
  session: SessionHead | null;
  treeView: TreeSelectorState | null;
  /** Another process moving the leaf moves the selection with it. */
  followLeaf: boolean;
  snapshot: SnapshotProgress | null;
}

/** A part of `GET /api/sessions/:id`, with what the browser wants from the new tree. */
export type SnapshotInput =
  | {
      type: 'snapshot_head';
      head: SessionSnapshotHead;
      /** The entry to select (a deep link, or the selection before a reload); the leaf otherwise. */
      selectedId: string | null;
      mode: FilterMode;
      pageSize: number;
    }
  | {
      type: 'snapshot_nodes';
      sessionId: string;
      nodes: readonly TreeNode[];
      /** The nodes' search masks, when the snapshot worker made them (session-core's addSearchMasks). */
      masks?: SearchMaskColumns | undefined;
      /**
       * Rows that fall due after this part (not the first part's) wait for `snapshot_rows`, so the
       * caller can prepare them in steps first (session-core's `prepareRows`).
       */
      deferRows?: boolean;
    }
  /** The rows that fell due: computed now (at once, when prepared with the tree view's leaf, filter and query). */
  | { type: 'snapshot_rows'; sessionId: string }
  /** The closing line's changed nodes, replaced in the tree before its rows are prepared; the tree view follows at `snapshot_end`. */
  | { type: 'snapshot_changed'; sessionId: string; changed: readonly TreeNode[] }
  /** How many bytes of the file the server has read (it is still reading it). */
  | { type: 'snapshot_read'; sessionId: string; read: number }
  /** The closing line: the session as the nodes received describe it, `changed` nodes replaced. */
  | {
      type: 'snapshot_end';
      sessionId: string;
      end: Omit<SessionSnapshotEnd, 'changed'>;
      changed: readonly TreeNode[];
    };

export type LiveInput = ServerEvent | SnapshotInput;

export interface Applied {
  state: LiveState;
  /** Messages for the user (a leaf notice, a reload). */
  notices: string[];
  /** The tree can no longer be followed by events: fetch a new snapshot. */
  reload: boolean;
  /** Entries whose facts changed: cached details of them are stale (not an archive record's target). */
  changedIds: string[];
  /** The selection moved to follow the leaf: the views should bring it into view. */
  reveal: boolean;
}

export function emptyLiveState(): LiveState {
  return {
    session: null,
    treeView: null,
    followLeaf: true,
    snapshot: null,
  };
}

function result(state: LiveState, more: Partial<Omit<Applied, 'state'>> = {}): Applied {
  return { state, notices: [], reload: false, changedIds: [], reveal: false, ...more };
}

function withWriter(item: SessionListItem, writerActive: boolean): SessionListItem {
  return item.writerActive === writerActive ? item : { ...item, writerActive };
}

/** The session as its snapshot's closing line describes it. */
function headOf(end: Omit<SessionSnapshotEnd, 'changed'>): SessionHead {
  return {
    id: end.session.id,
    // The closing line's own flag is the writer's state when the snapshot was read.
    item: withWriter(end.session, end.writerActive),
    header: end.header,
    dialect: end.dialect,
    issues: end.issues,
    needsMigration: end.needsMigration,
    ...(end.name !== undefined ? { name: end.name } : {}),
  };
}

/** The session while its snapshot streams in: its list row only (see SessionHead). */
function streamingHeadOf(head: SessionSnapshotHead): SessionHead {
  const item = head.session;
  return {
    id: item.id,
    item,
    header: {},
    dialect: 'pi',
    issues: [],
    needsMigration: false,
    ...(item.name !== undefined ? { name: item.name } : {}),
  };
}

/** The open session with its row from `rows`, when they hold it. */
export function withListedItem(
  session: SessionHead | null,
  rows: readonly SessionListItem[],
): SessionHead | null {
  const item = session ? rows.find((row) => row.id === session.id) : undefined;
  if (!session || !item) return session;
  // The list carries the current name (an oh-my-pi rename rewrites the title line).
  return { ...session, item, ...(item.name !== undefined ? { name: item.name } : {}) };
}

/** The most nodes a snapshot's head makes room for up front (about 30 bytes each); past it the tree grows. */
const MAX_RESERVED_NODES = 2_000_000;

function startSnapshot(state: LiveState, input: Extract<SnapshotInput, { type: 'snapshot_head' }>): Applied {
  const { head } = input;
  const tree = new ViewTree();
  // A session the server has open says how many nodes come; one it is still reading, how many
  // entries its listing counted. Either way the tree makes room for them once: growing by doubling
  // while 500,000 nodes stream in rehashed the id index and copied the columns in one part's task
  // (174 ms traced at 1 GB). Room only: a count that turns out wrong costs memory, never a row.
  const expected = head.nodeCount ?? head.session.entryCount;
  if (expected > 0) tree.reserve(Math.min(expected, MAX_RESERVED_NODES));
  // The leaf comes with the closing line; until then nothing is the leaf.
  const treeView = createTreeSelectorState(tree, {
    leafId: null,
    mode: input.mode,
    query: '',
    selectedId: input.selectedId,
    pageSize: input.pageSize,
  });
  const next: LiveState = {
    ...state,
    session: streamingHeadOf(head),
    treeView,
    snapshot: {
      received: 0,
      total: head.nodeCount ?? null,
      bytes: head.bytes,
      read: 0,
      rowsAtSize: 0,
      rowsDue: false,
      wantedId: input.selectedId,
      toLeaf: input.selectedId === null,
      queued: [],
    },
  };
  return result(next, { reveal: true });
}

/** How much the tree grows while a snapshot streams in before its rows are computed again. */
const ROWS_GROWTH = 4;

function addSnapshotNodes(
  state: LiveState,
  nodes: readonly TreeNode[],
  masks: SearchMaskColumns | undefined,
  deferRows: boolean,
): Applied {
  const { treeView, snapshot } = state;
  if (!treeView || !snapshot) return result(state);
  const tree = treeView.tree;
  const from = tree.size;
  tree.append(nodes);
  // Refused unless every node was taken (addSearchMasks), so that they line up with the new nodes.
  if (masks !== undefined) addSearchMasks(tree, from, masks);
  const wanted = snapshot.wantedId;
  // Rows are recomputed for the first chunk (the first screen), whenever the tree has grown
  // fourfold since and at the end: O(n) in all however small the chunks (1.33n; doubling cost 2n,
  // and each recompute also lays out the graph), where every chunk would be O(n²). Until then the
  // the tree view's rows stay those of its (older) `treeVersion`, consistent in themselves.
  const due =
    snapshot.rowsDue ||
    snapshot.rowsAtSize === 0 ||
    tree.size >= ROWS_GROWTH * snapshot.rowsAtSize ||
    (wanted !== null && tree.has(wanted));
  const received = { ...snapshot, received: snapshot.received + nodes.length };
  if (due && deferRows && snapshot.rowsAtSize > 0)
    return result({ ...state, snapshot: { ...received, rowsDue: true } });
  if (!due) return result({ ...state, snapshot: received });
  return withRows({ ...state, snapshot: received });
}

/** The rows of the tree as it is now, and the wanted entry selected if it has come. */
function withRows(state: LiveState): Applied {
  const { treeView, snapshot } = state;
  if (!treeView || !snapshot) return result(state);
  const tree = treeView.tree;
  const wanted = snapshot.wantedId;
  const wantedArrived = wanted !== null && tree.has(wanted);
  let nextTreeView = treeSelectorReducer(treeView, { type: 'refresh' });
  // Until the wanted entry arrives the selection rests on the last row; it moves there once it does.
  if (wantedArrived) nextTreeView = treeSelectorReducer(nextTreeView, { type: 'selectId', id: wanted });
  const next: LiveState = {
    ...state,
    treeView: nextTreeView,
    snapshot: {
      ...snapshot,
      rowsAtSize: tree.size,
      rowsDue: false,
      wantedId: wantedArrived ? null : wanted,
    },
  };
  return result(next, { reveal: true });
}

/**
 * The closing line is in: the nodes re-rendered since they were sent are replaced, the session's
 * head and leaf are known, the rows are computed, the selection goes to the leaf unless another
 * entry was asked for and came; then the changes that waited for it follow, in the order they came.
 */
function finishSnapshot(state: LiveState, input: Extract<SnapshotInput, { type: 'snapshot_end' }>): Applied {
  const { treeView: streamed, snapshot } = state;
  if (!streamed || !snapshot) return result(state);
  const { end } = input;
  const tree = streamed.tree;
  for (const node of input.changed) tree.replace(node);
  // No entry asked for, or one that never came (a stale deep link): the selection goes to the leaf.
  const toLeaf = (snapshot.toLeaf || snapshot.wantedId !== null) && end.leafId !== null;
  const treeView = treeSelectorReducer(streamed, { type: 'setLeaf', leafId: end.leafId, select: toLeaf });
  const queued = snapshot.queued;
  let applied = result(
    { ...state, session: headOf(end), treeView, snapshot: null },
    { reveal: true, changedIds: input.changed.map((node) => node.id) },
  );
  for (const event of queued) {
    const step = applyServerEvent(applied.state, event);
    applied = {
      state: step.state,
      notices: [...applied.notices, ...step.notices],
      reload: applied.reload || step.reload,
      changedIds: [...applied.changedIds, ...step.changedIds],
      reveal: applied.reveal || step.reveal,
    };
  }
  return applied;
}

/**
 * The head with another process's writing as `session_changed` reports it: kept on the open
 * session's list row (`item.writerActive`), the one place the browser stores it.
 */
function withWriterActive(session: SessionHead, writerActive: boolean | undefined): SessionHead {
  if (writerActive === undefined || writerActive === session.item.writerActive) return session;
  return { ...session, item: withWriter(session.item, writerActive) };
}

function decoded(columns: NodeColumns | undefined): TreeNode[] {
  return columns ? decodeNodes(columns) : [];
}

function applySessionChanged(state: LiveState, event: SessionChangedEvent): Applied {
  const treeView = state.treeView!;
  const tree = treeView.tree;
  const added = decoded(event.added);
  const changed = decoded(event.changed);
  tree.append(added);
  // An archive record's target changes only its flag: its detail, read before, still holds.
  const detailChanged: string[] = [];
  for (const node of changed) {
    const before = tree.get(node.id);
    if (!before || !onlyArchiveTargetChanged(before, node)) detailChanged.push(node.id);
    tree.replace(node);
  }
  const notices: string[] = [];
  let reload = false;
  let reveal = false;
  let nextTreeView = treeView;
  const leaf = event.leaf;
  if (leaf && leaf.id !== null && !tree.has(leaf.id)) {
    // A leaf we never received: the tree here missed something; start again from a snapshot.
    reload = true;
  } else if (leaf) {
    if (leaf.notice) notices.push(leaf.notice.message);
    // Canopy's own writes leave the selection to the action that made them (it selects what it
    // wrote); another process's writes and a leaf that had to move take the selection along.
    const follow = state.followLeaf && leaf.id !== null && (event.source === 'external' || !!leaf.notice);
    nextTreeView = treeSelectorReducer(treeView, { type: 'setLeaf', leafId: leaf.id, select: follow });
    reveal = follow;
  }
  if (nextTreeView === treeView && (added.length > 0 || changed.length > 0))
    nextTreeView = treeSelectorReducer(treeView, { type: 'refresh' });
  // New lines in the file mean it was written, and a legacy file is migrated by its first write
  // (docs/safety.md#migration-rewrite): the status stops saying it will be, without a reopen.
  const written =
    added.length > 0 && state.session!.needsMigration
      ? { ...state.session!, needsMigration: false }
      : state.session!;
  return result(
    {
      ...state,
      session: withWriterActive(written, event.writerActive),
      treeView: nextTreeView,
    },
    { notices, reload, reveal, changedIds: detailChanged },
  );
}

/**
 * The state after one snapshot part or server event. Events for another session than the open
 * one change nothing; events that arrive while the open session's snapshot streams wait for it.
 */
export function applyServerEvent(state: LiveState, input: LiveInput): Applied {
  switch (input.type) {
    case 'snapshot_head':
      return startSnapshot(state, input);
    case 'snapshot_nodes':
      if (state.session?.id !== input.sessionId) return result(state);
      return addSnapshotNodes(state, input.nodes, input.masks, input.deferRows === true);
    case 'snapshot_rows':
      if (state.session?.id !== input.sessionId || !state.snapshot?.rowsDue) return result(state);
      return withRows(state);
    case 'snapshot_changed': {
      if (state.session?.id !== input.sessionId || !state.treeView || !state.snapshot) return result(state);
      const tree = state.treeView.tree;
      for (const node of input.changed) tree.replace(node);
      return result(state, { changedIds: input.changed.map((node) => node.id) });
    }
    case 'snapshot_read':
      if (state.session?.id !== input.sessionId || !state.snapshot) return result(state);
      return result({ ...state, snapshot: { ...state.snapshot, read: input.read } });
    case 'snapshot_end':
      if (state.session?.id !== input.sessionId) return result(state);
      return finishSnapshot(state, input);
    case 'session_changed':
    case 'subscribed':
    case 'session_reloaded':
      break;
    default:
      return result(state);
  }
  if (!state.session || !state.treeView || input.sessionId !== state.session.id) return result(state);
  if (state.snapshot && input.type !== 'session_reloaded')
    return result({ ...state, snapshot: { ...state.snapshot, queued: [...state.snapshot.queued, input] } });
  switch (input.type) {
    case 'session_reloaded':
      return result(state, { notices: [`The session file was ${input.reason}; reloaded`], reload: true });
    case 'subscribed': {
      // The snapshot may predate the subscription; the leaf in the acknowledgement is authoritative.
      const leafId = input.leafId;
      if (leafId === state.treeView.leafId) return result(state);
      if (leafId !== null && !state.treeView.tree.has(leafId)) return result(state, { reload: true });
      const select = state.followLeaf && leafId !== null;
      const treeView = treeSelectorReducer(state.treeView, { type: 'setLeaf', leafId, select });
      return result({ ...state, treeView }, { reveal: select });
    }
    case 'session_changed':
      return applySessionChanged(state, input);
  }
}
