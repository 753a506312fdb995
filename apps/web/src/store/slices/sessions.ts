// The session list and the server's settings: loaded once, then patched by `session_list_changed`
// events (store/live.ts), never refetched for a change (only on Refresh and when the server's first
// reading ends; the events heard during a fetch are applied to its answer, see listFetches.ts).
// This slice is the list's one writer: fetched answers, list events and the open session's row
// (which its snapshot and events may state more freshly) all land here.

import type {
  InfoResponse,
  ListingProgress,
  SessionListChangedEvent,
  SessionListItem,
  Settings,
  SettingsPatch,
} from '@canopy/protocol';
import { applySettingsPatch, DEFAULT_SETTINGS } from '@canopy/protocol/values';
import { ApiError, messageOf } from '../../net/errors';
import { listAfterEvent } from '../listFetches';
import type { SliceKit } from './kit';

export interface SessionsSlice {
  info: InfoResponse | null;
  settings: Settings;
  sessions: readonly SessionListItem[];
  /**
   * The server is still reading the folders for the first time (it listens before it has read
   * them): the rows fill in through `session_list_changed`; null once the list is whole.
   */
  listing: ListingProgress | null;
  sessionsLoaded: boolean;
  sessionQuery: string;
  /**
   * Loads the server's info and settings (what opening a session needs: the default filter) and
   * resolves with them; starts loading the session list, which it does not wait for.
   */
  init(): Promise<void>;
  loadSessions(): Promise<void>;
  /** Fetches the server's info again (the summarisers offered changed: a provider was saved). */
  reloadInfo(): Promise<void>;
  setSessionQuery(query: string): void;
  /** A `session_list_changed` event: patches the list (and asks for it whole when the first reading ends). */
  applyListChange(event: SessionListChangedEvent): void;
  /** The open session's row as its snapshot or events state it; replaces the listed one, if listed. */
  takeOpenSessionRow(item: SessionListItem): void;
  updateSettings(patch: SettingsPatch): Promise<void>;
}

export function createSessionsSlice({ set, get, api, listFetches }: SliceKit<SessionsSlice>): SessionsSlice {
  return {
    info: null,
    settings: DEFAULT_SETTINGS,
    sessions: [],
    listing: null,
    sessionsLoaded: false,
    sessionQuery: '',

    async init() {
      // The list is not waited for: a deep-linked session opens alongside it, not after it.
      void get().loadSessions();
      const [info, settings] = await Promise.allSettled([api.info(), api.getSettings()]);
      if (info.status === 'fulfilled') set({ info: info.value });
      else if (info.reason instanceof ApiError && info.reason.status === 401) get().setUnauthorized(true);
      if (settings.status === 'fulfilled') {
        set({ settings: settings.value });
        get().setIdleFilterMode(settings.value.defaultFilter);
      }
    },

    async reloadInfo() {
      try {
        set({ info: await api.info() });
      } catch {
        // The next page load or reconnect fetches it again.
      }
    },

    async loadSessions() {
      const mark = listFetches.begin();
      try {
        const answer = await api.listSessions();
        const { sessions, listing } = listFetches.settle(mark, {
          sessions: answer.sessions,
          listing: answer.listing ?? null,
        })!;
        set({ sessions, listing, sessionsLoaded: true });
        get().setUnauthorized(false);
        get().takeListedRows(sessions);
      } catch (error) {
        listFetches.settle(mark);
        if (error instanceof ApiError && error.status === 401) get().setUnauthorized(true);
        set({ sessionsLoaded: true });
        if (!(error instanceof ApiError && error.status === 0)) get().toast(messageOf(error), 'error');
      }
    },

    setSessionQuery(query) {
      set({ sessionQuery: query });
    },

    applyListChange(event) {
      const { sessions, listing, reloadList } = listAfterEvent(get(), event);
      set({ sessions, listing });
      listFetches.note(event);
      get().takeListedRows(event.upserted);
      if (reloadList) void get().loadSessions();
    },

    takeOpenSessionRow(item) {
      const sessions = get().sessions;
      const at = sessions.findIndex((row) => row.id === item.id);
      if (at < 0 || sessions[at] === item) return;
      set({ sessions: sessions.with(at, item) });
    },

    async updateSettings(patch) {
      // Shown at once (a checkbox must not flick back while the server saves), undone on failure.
      const before = get().settings;
      set({ settings: applySettingsPatch(before, patch) });
      try {
        set({ settings: await api.putSettings(patch) });
      } catch (error) {
        set({ settings: before });
        get().toast(messageOf(error), 'error');
      }
    },
  };
}
