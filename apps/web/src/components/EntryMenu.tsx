// The entry menu: a right click on an outline row or a graph node. Archive or restore the branch
// under the entry (docs/archive-and-family.md#archive), show or fold archived branches, open the
// Tidy list. Closes on a choice, Esc or a click elsewhere.

import { useEffect, useRef } from 'react';
import { useApp, useAppStore } from '../store/context';
import { archiveRootOf } from '../store/slices/archive';

export function EntryMenu() {
  const store = useAppStore();
  const menu = useApp((s) => s.entryMenu);
  const tree = useApp((s) => s.treeView?.tree ?? null);
  const revealed = useApp((s) => s.treeView?.tree.archivedRevealed ?? false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!menu) return;
    ref.current?.querySelector('button')?.focus();
    const close = (e: Event) => {
      if (!(e.target instanceof Node) || !ref.current?.contains(e.target)) store.getState().closeEntryMenu();
    };
    window.addEventListener('mousedown', close, true);
    return () => window.removeEventListener('mousedown', close, true);
  }, [menu, store]);
  if (!menu || !tree) return null;
  const root = archiveRootOf(tree, menu.id);
  const run = (action: () => void) => () => {
    store.getState().closeEntryMenu();
    action();
  };
  const state = () => store.getState();
  return (
    <div
      ref={ref}
      className="entry-menu"
      role="menu"
      data-testid="entry-menu"
      style={{
        left: Math.min(menu.x, window.innerWidth - 240),
        top: Math.min(menu.y, window.innerHeight - 120),
      }}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === 'Escape') state().closeEntryMenu();
      }}
    >
      {root === null ? (
        <button
          type="button"
          role="menuitem"
          data-testid="entry-menu.archive"
          onClick={run(() => void state().setArchived(menu.id, true))}
        >
          Archive branch <kbd>Shift+A</kbd>
        </button>
      ) : (
        <button
          type="button"
          role="menuitem"
          data-testid="entry-menu.restore"
          onClick={run(() => void state().setArchived(root, false))}
        >
          Restore archived branch <kbd>Shift+A</kbd>
        </button>
      )}
      <button
        type="button"
        role="menuitem"
        data-testid="entry-menu.reveal"
        onClick={run(() => state().toggleArchivedRevealed())}
      >
        {revealed ? 'Fold archived branches' : 'Show archived branches'} <kbd>Alt+R</kbd>
      </button>
      <button
        type="button"
        role="menuitem"
        data-testid="entry-menu.tidy"
        onClick={run(() => void state().openTidy())}
      >
        Tidy…
      </button>
    </div>
  );
}
