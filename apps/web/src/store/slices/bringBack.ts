// Bringing entries of other branches into the current one (docs/bring-back.md): the dialog's state
// (the selection it was opened with, the form, each form's preview and the text as edited), the
// write, and the provenance of the bring-back entries in the tree (for the graph's dashed edges and
// the detail panel's "brought from" links and undo).

import type { BringBackForm, BringBackInfo, BringBackPreview } from '@canopy/protocol';
import { messageOf } from '../../net/errors';
import type { SliceKit } from './kit';

/** The row text of a bring-back entry starts so (session-core's custom_message row: `[customType]: …`). */
export const BRING_BACK_ROW_PREFIX = '[canopy.bring-back]';

export interface BringBackFormState {
  preview: BringBackPreview | null;
  /** The text as the user edits it; what is written. */
  text: string;
  loading: boolean;
  error: string | null;
}

export interface BringBackDialogState {
  entryIds: string[];
  form: BringBackForm;
  /** excerpt: the cut; condensed: the length asked of the model. */
  tokenBudget: number;
  forms: Record<BringBackForm, BringBackFormState>;
  writing: boolean;
  error: string | null;
}

export interface BringBackSlice {
  bringBackDialog: BringBackDialogState | null;
  /** Provenance of bring-back entries by id, as the server answered it. */
  bringBackInfo: Record<string, BringBackInfo>;
  /** Opens the dialog on a selection of entry ids (the selection bar, or the compare view's lanes). */
  openBringBack(entryIds: readonly string[]): void;
  closeBringBack(): void;
  setBringBackForm(form: BringBackForm): void;
  setBringBackBudget(tokens: number): void;
  editBringBackText(text: string): void;
  /** Previews the current form (again). */
  previewBringBack(): Promise<void>;
  abortBringBackPreview(): Promise<void>;
  /** Writes the current form's text; the new entry becomes the leaf and is selected. */
  writeBringBack(): Promise<void>;
  loadBringBackInfo(entryId: string): Promise<void>;
  undoBringBack(entryId: string): Promise<void>;
}

export const DEFAULT_BRING_BACK_BUDGET = 2_000;

const emptyForm = (): BringBackFormState => ({ preview: null, text: '', loading: false, error: null });

export function createBringBackSlice({ set, get, api }: SliceKit<BringBackSlice>): BringBackSlice {
  const patchDialog = (patch: Partial<BringBackDialogState>) => {
    const dialog = get().bringBackDialog;
    if (dialog) set({ bringBackDialog: { ...dialog, ...patch } });
  };
  const patchForm = (form: BringBackForm, patch: Partial<BringBackFormState>) => {
    const dialog = get().bringBackDialog;
    if (!dialog) return;
    set({
      bringBackDialog: { ...dialog, forms: { ...dialog.forms, [form]: { ...dialog.forms[form], ...patch } } },
    });
  };

  return {
    bringBackDialog: null,
    bringBackInfo: {},

    openBringBack(entryIds) {
      if (entryIds.length === 0) return;
      set({
        bringBackDialog: {
          entryIds: [...entryIds],
          form: 'excerpt',
          tokenBudget: DEFAULT_BRING_BACK_BUDGET,
          forms: { excerpt: emptyForm(), condensed: emptyForm(), summary: emptyForm() },
          writing: false,
          error: null,
        },
      });
      void get().previewBringBack();
    },

    closeBringBack() {
      const dialog = get().bringBackDialog;
      if (dialog && Object.values(dialog.forms).some((form) => form.loading))
        void get().abortBringBackPreview();
      set({ bringBackDialog: null });
    },

    setBringBackForm(form) {
      const dialog = get().bringBackDialog;
      if (!dialog) return;
      patchDialog({ form, error: null });
      // The excerpt is previewed at once; the model's forms when the user asks (they cost a request).
      if (form === 'excerpt' && !dialog.forms.excerpt.preview) void get().previewBringBack();
    },

    setBringBackBudget(tokens) {
      patchDialog({ tokenBudget: Math.max(50, Math.round(tokens) || DEFAULT_BRING_BACK_BUDGET) });
    },

    editBringBackText(text) {
      const dialog = get().bringBackDialog;
      if (dialog) patchForm(dialog.form, { text });
    },

    async previewBringBack() {
      const dialog = get().bringBackDialog;
      const sessionId = get().session?.id;
      if (!dialog || !sessionId) return;
      const { form, entryIds, tokenBudget } = dialog;
      patchForm(form, { loading: true, error: null });
      try {
        const summarizerId = get().settings.branchSummary.summarizerId;
        const preview = await api.previewBringBack(sessionId, {
          entryIds,
          form,
          ...(form !== 'summary' ? { tokenBudget } : {}),
          ...(form !== 'excerpt' && summarizerId ? { summarizerId } : {}),
          ...(get().clientId ? { clientId: get().clientId as string } : {}),
        });
        if (get().bringBackDialog?.entryIds !== entryIds) return;
        patchForm(form, {
          loading: false,
          preview,
          text: preview.text,
          error: preview.aborted ? 'Aborted: nothing was generated.' : null,
        });
      } catch (error) {
        patchForm(form, { loading: false, error: messageOf(error) });
      }
    },

    async abortBringBackPreview() {
      const sessionId = get().session?.id;
      if (!sessionId) return;
      try {
        await api.abortSummary(sessionId);
      } catch {
        // Nothing was running any more: the preview's own answer says how it ended.
      }
    },

    async writeBringBack() {
      const dialog = get().bringBackDialog;
      const sessionId = get().session?.id;
      if (!dialog || !sessionId) return;
      const current = dialog.forms[dialog.form];
      if (!current.preview || current.text.trim() === '') return;
      patchDialog({ writing: true, error: null });
      try {
        const result = await api.bringBack(sessionId, {
          sourceEntryIds: current.preview.sourceEntryIds,
          form: dialog.form,
          text: current.text,
        });
        set({ bringBackDialog: null });
        get().clearMultiSelection();
        if (await get().whenState((state) => state.treeView?.tree.has(result.entryId) ?? false))
          get().select(result.entryId);
        get().toast(
          `Brought ${current.preview.sourceEntryIds.length} entries into this branch (≈ ${result.tokens.toLocaleString()} tokens).`,
          'info',
        );
      } catch (error) {
        patchDialog({ writing: false, error: messageOf(error) });
      }
    },

    async loadBringBackInfo(entryId) {
      const sessionId = get().session?.id;
      if (!sessionId) return;
      try {
        const info = await api.getBringBack(sessionId, entryId);
        set({ bringBackInfo: { ...get().bringBackInfo, [entryId]: info } });
      } catch {
        // Not a bring-back after all (a look-alike row), or the session went away: no provenance.
      }
    },

    async undoBringBack(entryId) {
      const sessionId = get().session?.id;
      if (!sessionId) return;
      try {
        await api.undoBringBack(sessionId, entryId);
        get().toast('Undone: the model is no longer sent the brought entries on this branch.', 'info');
      } catch (error) {
        get().toast(messageOf(error), 'error');
      }
      await get().loadBringBackInfo(entryId);
    },
  };
}
