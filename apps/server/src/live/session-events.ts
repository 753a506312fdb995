// The one place that builds the events an open session sends. Every change to an open session (a
// tailed append, Canopy's own write, a navigation, the other writer going quiet) becomes exactly one
// `session_changed`; the session list's rows travel as `session_list_changed`.

import {
  encodeNodes,
  type LeafChange,
  type SessionChangedEvent,
  type SessionListChangedEvent,
  type SessionListItem,
} from '@canopy/protocol';
import type { TreeDelta } from './tree-model';

export type ChangeSource = SessionChangedEvent['source'];
export type LeafNoticeReason = NonNullable<LeafChange['notice']>['reason'];

/** What one change did; absent parts did not change. */
export interface SessionChange {
  delta?: TreeDelta;
  leaf?: LeafChange;
  writerActive?: boolean;
}

/** The event for one change, or undefined when it changed nothing a browser shows. */
export function sessionChanged(
  sessionId: string,
  source: ChangeSource,
  change: SessionChange,
): SessionChangedEvent | undefined {
  const event: SessionChangedEvent = { type: 'session_changed', sessionId, source };
  let any = false;
  if (change.delta && change.delta.added.length > 0) {
    event.added = encodeNodes(change.delta.added);
    any = true;
  }
  if (change.delta && change.delta.changed.length > 0) {
    event.changed = encodeNodes(change.delta.changed);
    any = true;
  }
  if (change.leaf) {
    event.leaf = change.leaf;
    any = true;
  }
  if (change.writerActive !== undefined) {
    event.writerActive = change.writerActive;
    any = true;
  }
  return any ? event : undefined;
}

/** The leaf could not stay where it was: where it is now, and the message shown to the user. */
export function leafNotice(
  id: string | null,
  previousId: string | null,
  reason: LeafNoticeReason,
  message: string,
): LeafChange {
  return { id, previousId, notice: { reason, message } };
}

export function sessionListChanged(
  upserted: SessionListItem[],
  removed: string[] = [],
): SessionListChangedEvent {
  return { type: 'session_list_changed', upserted, removed };
}
