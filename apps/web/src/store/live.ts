// The open session as the browser holds it, and the one function that moves it on: every snapshot
// part and every server event goes through `applyServerEvent` (docs/architecture.md#path-of-an-event).
// The tree itself is session-core's `TreeSelectorState` (the tree, its rows, leaf, filter, search
// and selection), so nothing about it is kept twice; the tree's entries are the protocol's
// `TreeNode`s as received, so a node's usage numbers travel with it. What the store must do beyond the new state
// (tell the user, fetch a new snapshot) comes back as data; this module never reaches a store.
//
// One exception to purity, on purpose: the `ViewTree` inside the selector is advanced in place
// (append, replace), because copying a tree of 200,000 entries for every appended line would cost
// O(n) per event. Its `version` changes with every change and the selector state is always a new
// object, so subscribers see the change; the state passed in must not be used after the call.
// One file (just over 300 lines) because every event kind moves the same state, in one switch.

import type {
  ListingProgress,
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
  sessions: readonly SessionListItem[];
  /** The server is still reading the folders for the first time: the list is not whole yet. */
  listing: ListingProgress | null;
  session: SessionHead | null;
  selector: TreeSelectorState | null;
  writerActive: boolean;
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
  /** The rows that fell due: computed now (at once, when prepared with the selector's leaf, filter and query). */
  | { type: 'snapshot_rows'; sessionId: string }
  /** The closing line's changed nodes, replaced in the tree before its rows are prepared; the selector follows at `snapshot_end`. */
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
  /** Entries whose facts changed: cached details of them are stale. */
  changedIds: string[];
  /** The selection moved to follow the leaf: the views should bring it into view. */
  reveal: boolean;
  /** The server's first reading of the folders ended: fetch the whole list (rows may have been missed). */
  reloadList: boolean;
}

export function emptyLiveState(): LiveState {
  return {
    sessions: [],
    listing: null,
    session: null,
    selector: null,
    writerActive: false,
    followLeaf: true,
    snapshot: null,
  };
}

function result(state: LiveState, more: Partial<Omit<Applied, 'state'>> = {}): Applied {
  return { state, notices: [], reload: false, changedIds: [], reveal: false, reloadList: false, ...more };
}

/** The session as its snapshot's closing line describes it. */
function headOf(end: Omit<SessionSnapshotEnd, 'changed'>): SessionHead {
  return {
    id: end.session.id,
    item: end.session,
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

/** The session list with `upserted` rows replaced or added and `removed` ones gone. */
export function patchSessionList(
  sessions: readonly SessionListItem[],
  upserted: readonly SessionListItem[],
  removed: readonly string[],
): SessionListItem[] {
  const gone = new Set(removed);
  const incoming = new Map(upserted.map((item) => [item.id, item]));
  const next: SessionListItem[] = [];
  for (const item of sessions) {
    if (gone.has(item.id)) continue;
    const replacement = incoming.get(item.id);
    next.push(replacement ?? item);
    incoming.delete(item.id);
  }
  for (const item of incoming.values()) if (!gone.has(item.id)) next.push(item);
  return next;
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
  const selector = createTreeSelectorState(tree, {
    leafId: null,
    mode: input.mode,
    query: '',
    selectedId: input.selectedId,
    pageSize: input.pageSize,
  });
  const next: LiveState = {
    ...state,
    session: streamingHeadOf(head),
    selector,
    writerActive: head.session.writerActive,
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
  const { selector, snapshot } = state;
  if (!selector || !snapshot) return result(state);
  const tree = selector.tree;
  const from = tree.size;
  tree.append(nodes);
  // Refused unless every node was taken (addSearchMasks), so that they line up with the new nodes.
  if (masks !== undefined) addSearchMasks(tree, from, masks);
  const wanted = snapshot.wantedId;
  // Rows are recomputed for the first chunk (the first screen), whenever the tree has grown
  // fourfold since and at the end: O(n) in all however small the chunks (1.33n; doubling cost 2n,
  // and each recompute also lays out the graph), where every chunk would be O(n²). Until then the
  // selector's rows stay those of its (older) `treeVersion`, consistent in themselves.
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
  const { selector, snapshot } = state;
  if (!selector || !snapshot) return result(state);
  const tree = selector.tree;
  const wanted = snapshot.wantedId;
  const wantedArrived = wanted !== null && tree.has(wanted);
  let nextSelector = treeSelectorReducer(selector, { type: 'refresh' });
  // Until the wanted entry arrives the selection rests on the last row; it moves there once it does.
  if (wantedArrived) nextSelector = treeSelectorReducer(nextSelector, { type: 'selectId', id: wanted });
  const next: LiveState = {
    ...state,
    selector: nextSelector,
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
  const { selector: streamed, snapshot } = state;
  if (!streamed || !snapshot) return result(state);
  const { end } = input;
  const tree = streamed.tree;
  for (const node of input.changed) tree.replace(node);
  // No entry asked for, or one that never came (a stale deep link): the selection goes to the leaf.
  const toLeaf = (snapshot.toLeaf || snapshot.wantedId !== null) && end.leafId !== null;
  const selector = treeSelectorReducer(streamed, { type: 'setLeaf', leafId: end.leafId, select: toLeaf });
  const queued = snapshot.queued;
  let applied = result(
    { ...state, session: headOf(end), selector, writerActive: end.writerActive, snapshot: null },
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
      reloadList: applied.reloadList || step.reloadList,
    };
  }
  return applied;
}

function decoded(columns: NodeColumns | undefined): TreeNode[] {
  return columns ? decodeNodes(columns) : [];
}

function applySessionChanged(state: LiveState, event: SessionChangedEvent): Applied {
  const selector = state.selector!;
  const tree = selector.tree;
  const added = decoded(event.added);
  const changed = decoded(event.changed);
  tree.append(added);
  for (const node of changed) tree.replace(node);
  const notices: string[] = [];
  let reload = false;
  let reveal = false;
  let nextSelector = selector;
  const leaf = event.leaf;
  if (leaf && leaf.id !== null && !tree.has(leaf.id)) {
    // A leaf we never received: the tree here missed something; start again from a snapshot.
    reload = true;
  } else if (leaf) {
    if (leaf.notice) notices.push(leaf.notice.message);
    // Canopy's own writes leave the selection to the action that made them (it selects what it
    // wrote); another process's writes and a leaf that had to move take the selection along.
    const follow = state.followLeaf && leaf.id !== null && (event.source === 'external' || !!leaf.notice);
    nextSelector = treeSelectorReducer(selector, { type: 'setLeaf', leafId: leaf.id, select: follow });
    reveal = follow;
  }
  if (nextSelector === selector && (added.length > 0 || changed.length > 0))
    nextSelector = treeSelectorReducer(selector, { type: 'refresh' });
  // New lines in the file mean it was written, and a legacy file is migrated by its first write
  // (docs/safety.md#migration-rewrite): the status stops saying it will be, without a reopen.
  const session =
    added.length > 0 && state.session?.needsMigration
      ? { ...state.session, needsMigration: false }
      : state.session;
  return result(
    {
      ...state,
      session,
      selector: nextSelector,
      writerActive: event.writerActive ?? state.writerActive,
    },
    { notices, reload, reveal, changedIds: changed.map((node) => node.id) },
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
      if (state.session?.id !== input.sessionId || !state.selector || !state.snapshot) return result(state);
      const tree = state.selector.tree;
      for (const node of input.changed) tree.replace(node);
      return result(state, { changedIds: input.changed.map((node) => node.id) });
    }
    case 'snapshot_read':
      if (state.session?.id !== input.sessionId || !state.snapshot) return result(state);
      return result({ ...state, snapshot: { ...state.snapshot, read: input.read } });
    case 'snapshot_end':
      if (state.session?.id !== input.sessionId) return result(state);
      return finishSnapshot(state, input);
    case 'session_list_changed':
      return result(
        {
          ...state,
          sessions: patchSessionList(state.sessions, input.upserted, input.removed),
          session: withListedItem(state.session, input.upserted),
          ...(input.listing !== undefined ? { listing: input.listing } : {}),
        },
        { reloadList: input.listing === null },
      );
    case 'session_changed':
    case 'subscribed':
    case 'session_reloaded':
      break;
    default:
      return result(state);
  }
  if (!state.session || !state.selector || input.sessionId !== state.session.id) return result(state);
  if (state.snapshot && input.type !== 'session_reloaded')
    return result({ ...state, snapshot: { ...state.snapshot, queued: [...state.snapshot.queued, input] } });
  switch (input.type) {
    case 'session_reloaded':
      return result(state, { notices: [`The session file was ${input.reason}; reloaded`], reload: true });
    case 'subscribed': {
      // The snapshot may predate the subscription; the leaf in the acknowledgement is authoritative.
      const leafId = input.leafId;
      if (leafId === state.selector.leafId) return result(state);
      if (leafId !== null && !state.selector.tree.has(leafId)) return result(state, { reload: true });
      const select = state.followLeaf && leafId !== null;
      const selector = treeSelectorReducer(state.selector, { type: 'setLeaf', leafId, select });
      return result({ ...state, selector }, { reveal: select });
    }
    case 'session_changed':
      return applySessionChanged(state, input);
  }
}
