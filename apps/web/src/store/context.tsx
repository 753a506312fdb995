import { createContext, useContext, type ReactNode } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { AppStore } from './appStore';

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
