// The one toast on screen, in the top bar's flow: it takes room from the session title instead of
// covering the graph or the outline, and a newer message replaces the older one (see the store's
// `toast`). The full text is in its tooltip when the bar has to cut it short.

import { useApp, useAppStore } from '../store/context';

export function Toasts() {
  const toasts = useApp((s) => s.toasts);
  const store = useAppStore();
  return (
    <div className="toasts" role="status" aria-live="polite" data-testid="toast.list">
      {toasts.map((t) => (
        <button
          type="button"
          key={t.id}
          className={`toast${t.kind === 'error' ? ' error' : ''}`}
          data-testid="toast"
          title={`${t.text} (click to dismiss)`}
          onClick={() => store.getState().dismissToast(t.id)}
        >
          {t.text}
        </button>
      ))}
    </div>
  );
}
