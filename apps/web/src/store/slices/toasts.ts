// Short messages over the views: one at a time, a newer one replacing the older.

import type { SliceKit } from './kit';

export interface Toast {
  id: number;
  text: string;
  kind: 'info' | 'error';
}

export interface ToastSlice {
  toasts: Toast[];
  toast(text: string, kind?: Toast['kind']): void;
  dismissToast(id: number): void;
}

const SHOWN_MS = { info: 3500, error: 7000 } as const;

export function createToastSlice({ set, get }: SliceKit<ToastSlice>): ToastSlice {
  let counter = 0;
  return {
    toasts: [],

    toast(text, kind = 'info') {
      const id = ++counter;
      set({ toasts: [{ id, text, kind }] });
      setTimeout(() => get().dismissToast(id), SHOWN_MS[kind]);
    },

    dismissToast(id) {
      set({ toasts: get().toasts.filter((t) => t.id !== id) });
    },
  };
}
