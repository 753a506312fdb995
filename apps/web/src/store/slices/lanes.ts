// Subagent lanes in the graph (docs/archive-and-family.md#in-the-page): which lanes the user has
// unfolded under their tool call, and each lane's run as the server sent it: fetched once per
// family member, again only after a failure or when the file changed since (an agent still
// running: the family or the session list says so, whichever hears of it first).

import type { LaneResponse } from '@canopy/protocol';
import type { SliceKit } from './kit';

/** One lane's run: asked for, arrived, or refused (with the reason shown in its place). */
export type LaneLoad =
  | { status: 'loading' }
  /** `asOf`: the member file's last change (the family's or the list's) when the run was asked for. */
  | { status: 'ready'; lane: LaneResponse; asOf: number }
  | { status: 'error'; message: string };

export interface LanesSlice {
  /**
   * The lanes unfolded in the open session's graph: member ids, kept with the session they were
   * unfolded in, so that opening another file shows its lanes folded.
   */
  unfoldedLanes: { sessionId: string; memberIds: ReadonlySet<string> } | null;
  /** Each family member's run, by member id, once asked for. */
  laneLoads: Readonly<Record<string, LaneLoad>>;
  /** Unfolds the lane of a family member under its graft entry (fetching its run the first time), or folds it. */
  toggleLane(memberId: string): void;
  /** Fetches a member's run unless it is here or on its way. */
  loadLane(memberId: string): Promise<void>;
}

const NONE: ReadonlySet<string> = new Set();

/** The lanes unfolded in the open session (none when the set belongs to another one). */
export function unfoldedLanesOf(state: {
  session: { id: string } | null;
  unfoldedLanes: LanesSlice['unfoldedLanes'];
}): ReadonlySet<string> {
  const unfolded = state.unfoldedLanes;
  return unfolded && unfolded.sessionId === state.session?.id ? unfolded.memberIds : NONE;
}

/** The member file's last change as the page last heard of it: from the family, or its list row. */
function lastChangeOf(
  state: { family: { members: readonly { id: string; lastActivity: number }[] } | null },
  listed: readonly { id: string; mtime: number }[],
  memberId: string,
): number {
  const fromFamily = state.family?.members.find((m) => m.id === memberId)?.lastActivity ?? 0;
  return Math.max(fromFamily, listed.find((item) => item.id === memberId)?.mtime ?? 0);
}

export function createLanesSlice({ set, get, api, subscribe }: SliceKit<LanesSlice>): LanesSlice {
  // An agent still running writes its own file: the list hears of it (the row's mtime), the family
  // only when the open file changes. A lane on screen asks again when its file's row changed.
  subscribe((state, previous) => {
    if (state.sessions === previous.sessions) return;
    for (const memberId of unfoldedLanesOf(state)) {
      const load = state.laneLoads[memberId];
      if (load?.status === 'ready' && lastChangeOf(state, state.sessions, memberId) > load.asOf)
        void get().loadLane(memberId);
    }
  });
  return {
    unfoldedLanes: null,
    laneLoads: {},

    toggleLane(memberId) {
      const sessionId = get().session?.id;
      if (!sessionId) return;
      const memberIds = new Set(unfoldedLanesOf(get()));
      if (memberIds.has(memberId)) memberIds.delete(memberId);
      else {
        memberIds.add(memberId);
        void get().loadLane(memberId);
      }
      set({ unfoldedLanes: { sessionId, memberIds } });
    },

    async loadLane(memberId) {
      const known = get().laneLoads[memberId];
      const asOf = lastChangeOf(get(), get().sessions, memberId);
      if (known?.status === 'loading' || (known?.status === 'ready' && known.asOf >= asOf)) return;
      // A run already drawn stays (marked as asked for) while its newer state is on its way.
      const asked: LaneLoad = known?.status === 'ready' ? { ...known, asOf } : { status: 'loading' };
      set({ laneLoads: { ...get().laneLoads, [memberId]: asked } });
      let load: LaneLoad;
      try {
        load = { status: 'ready', lane: await api.lane(memberId), asOf };
      } catch (error) {
        load = { status: 'error', message: (error as Error).message || 'The lane could not be read' };
      }
      set({ laneLoads: { ...get().laneLoads, [memberId]: load } });
    },
  };
}
