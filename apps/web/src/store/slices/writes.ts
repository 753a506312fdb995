// Actions that write to the session: navigate (jump), label, append a message, /branch, /fork.
// Their REST replies carry ids only; the nodes they wrote reach the tree once, through the
// `session_changed` event, and an action that must select what it wrote waits for it to arrive
// (whenState) rather than applying the reply itself.

import type { NavigateRequest } from '@canopy/protocol';
import { messageOf } from '../../net/errors';
import { leafIdOf, treeOf } from '../selectors';
import type { SliceKit } from './kit';

export const JUMPED_TO_USER_MESSAGE =
  'Leaf is now the parent; the message is in the composer to edit and resend';

export interface WritesSlice {
  /** What the server is doing for us (the top bar shows it); one write at a time. */
  busy: string | null;
  /**
   * navigateTree to an entry. `options` carries the summary choice (`summarize`, custom instructions,
   * label) for the summary dialog; without it the navigation writes no summary.
   */
  jump(id: string, options?: Omit<NavigateRequest, 'targetId'>): Promise<void>;
  saveLabel(id: string, label: string): Promise<void>;
  sendComposer(): Promise<void>;
  branchFrom(entryId: string): Promise<void>;
  fork(): Promise<void>;
}

function idOf(entry: Record<string, unknown> | undefined): string | null {
  return typeof entry?.id === 'string' ? entry.id : null;
}

export function createWritesSlice({ set, get, api }: SliceKit<WritesSlice>): WritesSlice {
  /** Runs a write with `busy` set, turning a failure into an error toast. */
  const writing = async (label: string, write: () => Promise<void>) => {
    set({ busy: label });
    try {
      await write();
    } catch (error) {
      get().toast(messageOf(error), 'error');
    } finally {
      set({ busy: null });
    }
  };
  const has = (id: string) => () => treeOf(get())?.has(id) ?? false;

  return {
    busy: null,

    async jump(id, options) {
      const open = get().session;
      if (!open || get().busy) return;
      if (id === leafIdOf(get())) {
        get().toast('Already at this point');
        return;
      }
      // A jump the user asked for (no options yet) offers the summary choice first when enabled.
      if (options === undefined && get().settings.branchSummary.enabled) {
        get().openSummaryDialog({ kind: 'navigate', targetId: id });
        return;
      }
      await writing('Navigating…', async () => {
        const result = await api.navigate(open.id, { ...options, targetId: id });
        if (result.alreadyAtTarget) return get().toast('Already at this point');
        if (result.cancelled)
          return get().toast(result.aborted ? 'Branch summarization cancelled' : 'Navigation cancelled');
        const summaryEntry = result.summaryEntry as Record<string, unknown> | undefined;
        const summaryId = idOf(summaryEntry);
        const arrived = await get().whenState(
          (state) => leafIdOf(state) === result.newLeafId && (summaryId === null || has(summaryId)()),
        );
        if (!arrived) return;
        // A new summary is where the branch continues: select it, in both views.
        get().select(summaryId ?? id);
        if (result.editorText !== undefined) {
          // The leaf went to the message's parent and the message waits in the composer: say so,
          // and take the user there.
          get().putInComposer(result.editorText);
          get().toast(JUMPED_TO_USER_MESSAGE);
        } else
          get().toast(
            summaryId === null
              ? 'Navigated to selected point'
              : summaryEntry?.fromHook === true || summaryEntry?.fromExtension === true
                ? 'Navigated; an extension supplied the summary'
                : 'Navigated with a branch summary',
          );
      });
    },

    async saveLabel(id, label) {
      const open = get().session;
      get().cancelLabelEdit();
      if (!open) return;
      const trimmed = label.trim();
      if (trimmed === (treeOf(get())?.get(id)?.label ?? '')) return;
      try {
        const result = trimmed ? await api.setLabel(open.id, id, trimmed) : await api.clearLabel(open.id, id);
        if (await get().whenState(has(result.labelEntryId)))
          get().toast(trimmed ? `Label set: ${trimmed}` : 'Label cleared');
      } catch (error) {
        get().toast(messageOf(error), 'error');
      }
    },

    async sendComposer() {
      const open = get().session;
      const text = get().composerText;
      if (!open || !text.trim() || get().busy) return;
      // Ctrl+Enter reaches here even while the send button is disabled: until the snapshot is in,
      // the leaf the message would go under is not on screen yet, so the text stays in the composer.
      if (get().snapshot !== null) {
        get().toast('The session is still loading: the message is kept, send it once the leaf shows');
        return;
      }
      await writing('Appending…', async () => {
        const result = await api.appendMessage(open.id, text);
        get().setComposerText('');
        if (!(await get().whenState(has(result.entryId)))) return;
        get().select(result.entryId);
        get().toast('Message appended under the leaf');
      });
    },

    async branchFrom(entryId) {
      const open = get().session;
      if (!open || get().busy) return;
      get().openBranchPicker(false);
      get().cancelBranch();
      await writing('Branching…', async () => {
        const result = await api.branch(open.id, entryId);
        if (result.cancelled || !result.sessionId) return get().toast('Branch cancelled');
        await get().openSession(result.sessionId);
        get().setComposerText(result.editorText);
        get().toast('Branched to new session');
      });
    },

    async fork() {
      const open = get().session;
      if (!open || get().busy) return;
      await writing('Forking…', async () => {
        const result = await api.fork(open.id);
        await get().openSession(result.sessionId);
        get().toast('Forked into a new session');
      });
    },
  };
}
