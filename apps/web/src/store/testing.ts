// Test data for the store's tests: a small forked session as the server sends it (head and nodes),
// a fake API whose snapshot streams those parts, and the server's side of Canopy's own writes.
// Only tests import this module.

import type {
  CompareResponse,
  ServerEvent,
  SessionChangedEvent,
  SessionListItem,
  SessionSnapshotEnd,
  SessionSnapshotHead,
  TreeNode,
} from '@canopy/protocol';
import { rollUpLane } from '@canopy/session-core';
import type { StoreApi } from 'zustand/vanilla';
import type { Api } from '../net/api';
import type { SnapshotPart } from '../net/snapshot';
import type { AppStore } from './appStore';
import { leafIdOf, selectedIdOf } from './selectors';

export function node(
  id: string,
  parentId: string | null,
  type: string,
  role: string | undefined,
  text: string,
  extra: Partial<TreeNode> = {},
): TreeNode {
  const second = Number.parseInt(id.replace(/\D/g, '') || '0', 10) % 60;
  return {
    id,
    parentId,
    type,
    ...(role ? { role } : {}),
    timestamp: `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`,
    text,
    search: `${role ?? type} ${text}`.toLowerCase(),
    flags: 0,
    ...extra,
  };
}

export const PLAN_USAGE = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: 0.01 };

/** u1 → a2 → { u3 → a4 (leaf) , u5 → a6 → m7 (model_change) } */
export function sampleNodes(): TreeNode[] {
  return [
    node('u1', null, 'message', 'user', 'user: start'),
    node('a2', 'u1', 'message', 'assistant', 'assistant: plan', { usage: PLAN_USAGE }),
    node('u3', 'a2', 'message', 'user', 'user: approach a'),
    node('a4', 'u3', 'message', 'assistant', 'assistant: result a'),
    node('u5', 'a2', 'message', 'user', 'user: approach b'),
    node('a6', 'u5', 'message', 'assistant', 'assistant: result b'),
    node('m7', 'a6', 'model_change', undefined, '[model: x]'),
  ];
}

export function listItem(id: string, extra: Partial<SessionListItem> = {}): SessionListItem {
  return {
    id,
    headerId: `h-${id}`,
    root: 'demo',
    path: `${id}.jsonl`,
    firstMessage: 'start',
    cwd: '/tmp',
    entryCount: 7,
    messageCount: 6,
    size: 1,
    mtime: 0,
    created: '2026-01-01T00:00:00.000Z',
    version: 3,
    parentId: null,
    issueCount: 0,
    writerActive: false,
    ...extra,
  };
}

/** A snapshot's head line: the list row and the file's size. */
export function head(extra: Partial<SessionSnapshotHead> = {}): SessionSnapshotHead {
  return { session: listItem('s1'), bytes: 1000, ...extra };
}

/** A snapshot's closing line (without its changed nodes). */
export function snapshotEnd(
  leafId: string | null,
  nodeCount: number,
  extra: Partial<SessionSnapshotEnd> = {},
): Omit<SessionSnapshotEnd, 'changed'> {
  const { changed: _changed, ...rest } = extra;
  return {
    session: listItem('s1'),
    header: { type: 'session', id: 'h-s1' },
    version: 3,
    dialect: 'pi',
    leafId,
    nodeCount,
    issues: [],
    writerActive: false,
    needsMigration: false,
    pendingBytes: 0,
    ...rest,
  };
}

/**
 * The parts of a snapshot of `nodes`, in chunks of `chunkSize`, then its end (`extra` are the
 * closing line's fields; its `session` is the head's too).
 */
export function snapshotParts(
  nodes: readonly TreeNode[],
  leafId: string | null,
  chunkSize = 3,
  extra: Partial<SessionSnapshotEnd> = {},
): SnapshotPart[] {
  const parts: SnapshotPart[] = [
    { kind: 'head', head: head(extra.session ? { session: extra.session } : {}) },
  ];
  for (let at = 0; at < nodes.length; at += chunkSize)
    parts.push({ kind: 'nodes', nodes: nodes.slice(at, at + chunkSize) });
  parts.push({ kind: 'end', end: snapshotEnd(leafId, nodes.length, extra), changed: [] });
  return parts;
}

export async function* streamOf(parts: readonly SnapshotPart[]): AsyncGenerator<SnapshotPart> {
  for (const part of parts) yield await Promise.resolve(part);
}

export function fakeApi(overrides: Partial<Api> = {}): Api {
  const reject = () => Promise.reject(new Error('not used'));
  return {
    info: reject,
    listSessions: () => Promise.resolve({ sessions: [] }),
    getSession: () => streamOf(snapshotParts(sampleNodes(), 'a4')),
    getEntry: reject,
    getContext: reject,
    navigate: reject,
    setLabel: reject,
    clearLabel: reject,
    branch: reject,
    fork: reject,
    appendMessage: reject,
    getSettings: reject,
    putSettings: reject,
    ...overrides,
  } as Api;
}

/** What the server broadcasts after one of Canopy's own writes. */
export function ownWrite(fields: Partial<SessionChangedEvent>): SessionChangedEvent {
  return { type: 'session_changed', sessionId: 's1', source: 'canopy', ...fields };
}

/** Delivers `event` to the store the way the socket does, after the REST reply is in. */
export function deliverLater(store: () => StoreApi<AppStore>, event: ServerEvent): void {
  queueMicrotask(() => store().getState().handleEvent(event));
}

export const leafOf = (store: StoreApi<AppStore>) => leafIdOf(store.getState());
export const selected = (store: StoreApi<AppStore>) => selectedIdOf(store.getState());
export const rowsOf = (store: StoreApi<AppStore>) => (store.getState().treeView?.rows ?? []).map((r) => r.id);

/** A lane's roll-up as the compare route answers it (docs/branches.md): one entry and turn, nothing else unless told. */
export function laneRollup(
  overrides: Partial<CompareResponse['a']['rollup']> = {},
): CompareResponse['a']['rollup'] {
  // session-core's own roll-up of an empty lane, given the one entry and turn.
  const empty = rollUpLane([]);
  return { ...empty, entries: 1, turns: 1, usage: { ...empty.usage, entries: 1 }, ...overrides };
}
