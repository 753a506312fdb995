// The live connection's state as the top bar shows it, and whether the page may use the API at all.

import { ApiError } from '../../net/errors';
import type { ConnectionState } from '../../net/socket';
import type { SliceKit } from './kit';

export interface ConnectionSlice {
  connection: ConnectionState;
  retryInMs: number | null;
  unauthorized: boolean;
  setConnection(state: ConnectionState, retryInMs: number | null): void;
  /** The server answered 401 (true) or let the page in (false). */
  setUnauthorized(unauthorized: boolean): void;
  /** Probes the API; marks the page unauthorized on a 401. */
  checkAccess(): Promise<void>;
}

export function createConnectionSlice({ set, get, api }: SliceKit<ConnectionSlice>): ConnectionSlice {
  return {
    connection: 'connecting',
    retryInMs: null,
    unauthorized: false,

    setConnection(state, retryInMs) {
      set({ connection: state, retryInMs });
    },

    setUnauthorized(unauthorized) {
      if (get().unauthorized !== unauthorized) set({ unauthorized });
    },

    async checkAccess() {
      try {
        await api.info();
        if (get().unauthorized) set({ unauthorized: false });
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) set({ unauthorized: true });
      }
    },
  };
}
