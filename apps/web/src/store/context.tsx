import { createContext, useContext, type ReactNode } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { AppStore } from './appStore';
import { createDerived, type Derived } from './derived';

const StoreContext = createContext<StoreApi<AppStore> | null>(null);

export function StoreProvider({ store, children }: { store: StoreApi<AppStore>; children: ReactNode }) {
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

export function useAppStore(): StoreApi<AppStore> {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useApp outside StoreProvider');
  return store;
}

/** Reads one piece of state; components pass the narrowest selector they can. */
export function useApp<T>(selector: (state: AppStore) => T): T {
  return useStore(useAppStore(), selector);
}

const derivedByStore = new WeakMap<StoreApi<AppStore>, Derived>();

/** The memoised derivations (graph rows, layout) of this store; made on first use. */
export function useDerived(): Derived {
  const store = useAppStore();
  let derived = derivedByStore.get(store);
  if (!derived) {
    derived = createDerived();
    derivedByStore.set(store, derived);
  }
  return derived;
}
