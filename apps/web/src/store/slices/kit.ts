// What every slice is built with: the store's get/subscribe, its dependencies, the few helpers
// more than one slice needs, and a `set` typed to the slice's own fields. One kit per store, so no
// state lives at module level.
//
// One owner per field: a slice writes only the fields it declares (its `SliceKit<…>` makes any
// other key a type error, and ownership.test.ts checks the slice files, spreads included); to
// change another slice's field it calls that slice's action.

import type { StoreApi } from 'zustand/vanilla';
import type { Api } from '../../net/api';
import type { AppStore } from '../appStore';
import type { ListFetches } from '../listFetches';

export interface StoreDeps {
  api?: Api;
  /** Persisted UI preferences (theme, view); defaults to localStorage when available. */
  storage?: Pick<Storage, 'getItem' | 'setItem'> | null;
  /** Called when the open session, the selected entry or the open compare / file lens changes, to update the URL. */
  onLocationChange?: (sessionId: string | null, entryId: string | null, view?: LinkedView) => void;
}

/** The views a link reopens (docs/branches.md#urls). */
export interface LinkedView {
  compare: readonly [string, string] | null;
  file: string | null;
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

/** A slice's fields: what it stores, without its actions. */
export type FieldsOf<Slice> = {
  [K in keyof Slice as Slice[K] extends (...args: never[]) => unknown ? never : K]: Slice[K];
};

/** The kit as one slice sees it: its `set` takes only the slice's own fields. */
export type SliceKit<Slice> = Omit<StoreKit, 'set'> & {
  set(fields: Partial<FieldsOf<Slice>>): void;
};
