import { useEffect } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import { keyCommand } from '../lib/keymap';
import { selectedIdOf, type AppStore } from '../store/appStore';

function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    target.tagName === 'INPUT' ||
    target.tagName === 'TEXTAREA' ||
    target.tagName === 'SELECT'
  );
}

function isButtonLike(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.tagName === 'BUTTON' || target.tagName === 'A' || target.tagName === 'SUMMARY')
  );
}

/** The tree's keys, page-wide while no text field has focus; the browser's defaults are prevented. */
export function useTreeKeys(store: StoreApi<AppStore>): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      const state = store.getState();
      if (!state.treeView || state.branchPickerOpen || state.branchConfirmId || state.labelEditingId) return;
      // The Tidy list and the entry menu handle their own keys.
      if (state.tidy || state.entryMenu) return;
      // The summary and settings dialogs handle their own keys.
      if (state.summaryDialog || state.settingsOpen) return;
      if (event.isComposing || isEditable(event.target)) return;
      // The compare view, file lens and branch files stand in the tree's place: Esc closes the
      // innermost, and the tree's keys wait until they are closed.
      if (state.compare || state.fileLens || state.branchFiles) {
        if (event.key === 'Escape' && !state.bringBackDialog) {
          event.preventDefault();
          state.closeInnermostCompareView();
        }
        return;
      }
      const command = keyCommand(event);
      if (!command) return;
      if (isButtonLike(event.target) && (event.key === 'Enter' || event.key === ' ')) return;
      event.preventDefault();
      // Esc first empties the multi-entry selection (drag-select, shift/ctrl-clicks).
      if (event.key === 'Escape' && state.multiSelection.size > 0) {
        state.clearMultiSelection();
        return;
      }
      switch (command.kind) {
        case 'selector':
          state.dispatch(command.action);
          return;
        case 'jump': {
          const id = selectedIdOf(state);
          if (id && state.treeView.rows.length > 0) void state.jump(id);
          return;
        }
        case 'label':
          state.startLabelEdit();
          return;
        case 'archive':
          // While a search is being typed, a capital A is part of it: archiving writes to the file.
          if (state.treeView.query !== '') state.dispatch({ type: 'typeQuery', text: event.key });
          else state.toggleArchiveSelected();
          return;
        case 'compare':
          // Like Shift+A: a capital C typed into a search is part of it.
          if (state.treeView.query !== '') state.dispatch({ type: 'typeQuery', text: event.key });
          else void state.compareSelected();
          return;
        case 'revealArchived':
          state.toggleArchivedRevealed();
          return;
        case 'focusSearch':
          document.getElementById('tree-search')?.focus();
          return;
        case 'stepMatch':
          state.stepMatch(command.direction);
          return;
        case 'labelTimes':
          state.toggleLabelTimes();
          return;
        case 'copy':
          void state.copySelected();
          return;
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [store]);
}
