// The session list is fetched whole (at start, on Refresh, when the server's first reading ends)
// and patched by `session_list_changed` events in between. The fetch and the events travel on
// different connections, so an event can arrive while a fetch is in flight, for a change the
// fetched list was read before: replacing the list with the answer would lose that change for good
// (no later event repeats it). So the events heard during a fetch are applied again, in order, on
// top of its answer; one the answer already holds changes nothing. The sessions slice is the
// list's one writer and applies both through this module.

import type { ListingProgress, SessionListChangedEvent, SessionListItem } from '@canopy/protocol';

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

/** The list after one `session_list_changed` event, and whether the whole list must be fetched. */
export function listAfterEvent(
  list: FetchedList,
  event: SessionListChangedEvent,
): FetchedList & { reloadList: boolean } {
  return {
    sessions: patchSessionList(list.sessions, event.upserted, event.removed),
    listing: event.listing !== undefined ? event.listing : list.listing,
    // The server's first reading of the folders ended: rows may have been missed.
    reloadList: event.listing === null,
  };
}

export interface FetchedList {
  sessions: readonly SessionListItem[];
  listing: ListingProgress | null;
}

export class ListFetches {
  private inFlight = 0;
  /** The list events heard since the oldest fetch in flight began (empty when none is). */
  private heard: SessionListChangedEvent[] = [];

  /** A fetch starts: the mark to give `settle` with its answer. */
  begin(): number {
    this.inFlight += 1;
    return this.heard.length;
  }

  /** A list event was applied to the store: kept while a fetch is in flight. */
  note(event: SessionListChangedEvent): void {
    if (this.inFlight > 0) this.heard.push(event);
  }

  /** The fetch begun at `mark` ended; with its answer, the list to show (undefined: it failed). */
  settle(mark: number, answer?: FetchedList): FetchedList | undefined {
    const since = this.heard.slice(mark);
    this.inFlight -= 1;
    if (this.inFlight === 0) this.heard = [];
    if (!answer) return undefined;
    let { sessions, listing } = answer;
    for (const event of since) {
      sessions = patchSessionList(sessions, event.upserted, event.removed);
      if (event.listing !== undefined) listing = event.listing;
    }
    return { sessions, listing };
  }
}
