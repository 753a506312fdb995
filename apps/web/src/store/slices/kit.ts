// What every slice is built with: the store's set/get/subscribe, its dependencies, and the few
// helpers more than one slice needs. One kit per store, so no state lives at module level.

import type { StoreApi } from 'zustand/vanilla';
import type { Api } from '../../net/api';
import type { AppStore } from '../appStore';
import type { ListFetches } from '../listFetches';

export interface StoreDeps {
  api?: Api;
  /** Persisted UI preferences (theme, view); defaults to localStorage when available. */
  storage?: Pick<Storage, 'getItem' | 'setItem'> | null;
  /** Called when the open session or selected entry changes, to update the URL. */
  onLocationChange?: (sessionId: string | null, entryId: string | null) => void;
}

export interface StoreKit {
  set: StoreApi<AppStore>['setState'];
  get: () => AppStore;
  subscribe: StoreApi<AppStore>['subscribe'];
  api: Api;
  storage: Pick<Storage, 'getItem' | 'setItem'> | null;
  /** After anything that may have moved the selection: ends a label edit elsewhere, updates the URL. */
  selectionMoved(before: string | null): void;
  /** The open session or the selection changed: update the URL. */
  notifyLocation(): void;
  /** The list fetches in flight and the list events heard meanwhile (see listFetches.ts). */
  listFetches: ListFetches;
}
