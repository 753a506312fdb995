// The entry menu: a right click on an outline row or a graph node. Archive or restore the branch
// under the entry (docs/archive-and-family.md#archive), compare it with the leaf or the one selected
// entry, or see the files its path changed (docs/branches.md#the-compare-view), show or fold archived branches, open the
// Tidy list, open a file of the family grafted at the entry (docs/archive-and-family.md#in-the-page). Closes on a choice, Esc or a click elsewhere.

import { useEffect, useRef } from 'react';
import { useApp, useAppStore } from '../store/context';
import { archiveRootOf } from '../store/slices/archive';
import { leafIdOf } from '../store/selectors';
import { childOpensAt, graftedHere } from './graph/familyGrafts';
import { useGraftsByEntry } from './RowGrafts';

export function EntryMenu() {
  const store = useAppStore();
  const menu = useApp((s) => s.entryMenu);
  const tree = useApp((s) => s.treeView?.tree ?? null);
  const revealed = useApp((s) => s.treeView?.tree.archivedRevealed ?? false);
  const leafId = useApp(leafIdOf);
  const multiSelection = useApp((s) => s.multiSelection);
  const picked = [...multiSelection];
  const graftsByEntry = useGraftsByEntry();
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
        top: Math.min(menu.y, window.innerHeight - 230),
      }}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === 'Escape') state().closeEntryMenu();
      }}
    >
      {leafId && leafId !== menu.id && (
        <button
          type="button"
          role="menuitem"
          data-testid="entry-menu.compare-leaf"
          onClick={run(() => void state().openCompare(menu.id, leafId))}
        >
          Compare with leaf
        </button>
      )}
      {picked.length === 1 && picked[0] !== menu.id && (
        <button
          type="button"
          role="menuitem"
          data-testid="entry-menu.compare-selected"
          onClick={run(() => void state().openCompare(picked[0]!, menu.id))}
        >
          Compare with the selected entry
        </button>
      )}
      {graftsByEntry.get(menu.id)?.map(({ member }) => (
        <button
          key={member.id}
          type="button"
          role="menuitem"
          data-testid="entry-menu.open-graft"
          title={member.path}
          onClick={run(() => void state().openFamilyMember(member.id, childOpensAt(member)))}
        >
          Open {member.name} ({graftedHere(member)})
        </button>
      ))}
      <button
        type="button"
        role="menuitem"
        data-testid="entry-menu.files"
        onClick={run(() => void state().openBranchFiles(menu.id))}
      >
        Files changed on the path here
      </button>
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
