// The small editors over the tree: the label editor, the branch picker and its confirmation, the
// composer's text, and whether the settings dialog is open. Writing what they hold is in writes.ts.

import { selectedIdOf, treeOf } from '../selectors';
import type { SliceKit } from './kit';

export interface DialogsSlice {
  labelEditingId: string | null;
  branchPickerOpen: boolean;
  /** The user message a /branch waits to be confirmed for (a new file is written only on "Create"). */
  branchConfirmId: string | null;
  composerText: string;
  /** Bumped to bring the composer into view with focus (a jump put a message's text in it). */
  composerFocusTick: number;
  settingsOpen: boolean;
  startLabelEdit(id?: string): void;
  cancelLabelEdit(): void;
  openBranchPicker(open: boolean): void;
  /** Asks before /branch writes a new session file from this user message. */
  requestBranch(entryId: string): void;
  cancelBranch(): void;
  setComposerText(text: string): void;
  /** Puts a message's text in the composer and brings it into view with focus. */
  putInComposer(text: string): void;
  openSettings(open: boolean): void;
  /** Closes the label editor, the branch picker and its confirmation (another session opens). */
  closeEditors(): void;
  /** Closes the innermost editor open, if any (Esc): true if one was. */
  closeInnermostEditor(): boolean;
}

export function createDialogsSlice({ set, get }: SliceKit<DialogsSlice>): DialogsSlice {
  return {
    labelEditingId: null,
    branchPickerOpen: false,
    branchConfirmId: null,
    composerText: '',
    composerFocusTick: 0,
    settingsOpen: false,

    startLabelEdit(id) {
      const target = id ?? selectedIdOf(get());
      if (!target || !treeOf(get())?.has(target)) return;
      if (target !== selectedIdOf(get())) get().select(target);
      set({ labelEditingId: target });
    },

    cancelLabelEdit() {
      set({ labelEditingId: null });
    },

    openBranchPicker(open) {
      set({ branchPickerOpen: open });
    },

    requestBranch(entryId) {
      if (!treeOf(get())?.has(entryId)) return;
      set({ branchPickerOpen: false, branchConfirmId: entryId });
    },

    cancelBranch() {
      set({ branchConfirmId: null });
    },

    setComposerText(text) {
      set({ composerText: text });
    },

    putInComposer(text) {
      set({ composerText: text, composerFocusTick: get().composerFocusTick + 1 });
    },

    openSettings(open) {
      set({ settingsOpen: open });
    },

    closeEditors() {
      set({ labelEditingId: null, branchPickerOpen: false, branchConfirmId: null });
    },

    closeInnermostEditor() {
      const state = get();
      if (state.labelEditingId) set({ labelEditingId: null });
      else if (state.branchPickerOpen) set({ branchPickerOpen: false });
      else if (state.branchConfirmId) set({ branchConfirmId: null });
      else return false;
      return true;
    },
  };
}
