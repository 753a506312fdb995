// The tree's keyboard map (oh-my-pi's keys, docs/tree-and-context.md#keys) as a pure function from a key
// event to a command, so it can be tested without a browser. `code` is used for the Alt shortcuts
// because Alt changes `key` on macOS (Alt+D types "∂").

import type { FilterMode, TreeSelectorAction } from '@canopy/session-core';

export interface KeyInput {
  key: string;
  code: string;
  ctrlKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  metaKey: boolean;
}

export type KeyCommand =
  | { kind: 'selector'; action: TreeSelectorAction }
  | { kind: 'jump' }
  | { kind: 'label' }
  /** Shift+A: archive the selected branch, or restore the archived one (oh-my-pi's key, PR #8301). */
  | { kind: 'archive' }
  /** Alt+R: show or fold archived branches (oh-my-pi's reveal key). */
  | { kind: 'revealArchived' }
  | { kind: 'focusSearch' }
  | { kind: 'stepMatch'; direction: 1 | -1 }
  /** Shift+T: show or hide the labels' times. */
  | { kind: 'labelTimes' }
  /** Ctrl+X: copy the selected entry's text (pi's copy). */
  | { kind: 'copy' }
  /** Shift+C: compare the two selected entries, or the selected entry with the leaf (Canopy's). */
  | { kind: 'compare' };

const ALT_FILTERS: Record<string, FilterMode> = {
  KeyD: 'default',
  KeyT: 'no-tools',
  KeyU: 'user-only',
  KeyL: 'labeled-only',
  KeyA: 'all',
};

export function keyCommand(e: KeyInput): KeyCommand | null {
  const ctrl = e.ctrlKey || e.metaKey;
  if (ctrl && !e.altKey && (e.key === 'o' || e.key === 'O' || e.code === 'KeyO')) {
    return { kind: 'selector', action: { type: 'cycleFilter', direction: e.shiftKey ? -1 : 1 } };
  }
  // pi's Ctrl+←/→, and Alt+←/→ as in its terminal (docs/tree-and-context.md#folding).
  if ((ctrl || e.altKey) && !(ctrl && e.altKey) && !e.shiftKey) {
    if (e.key === 'ArrowLeft') return { kind: 'selector', action: { type: 'foldOrUp' } };
    if (e.key === 'ArrowRight') return { kind: 'selector', action: { type: 'unfoldOrDown' } };
  }
  if (ctrl && !e.altKey && !e.shiftKey && (e.key === 'x' || e.key === 'X' || e.code === 'KeyX'))
    return { kind: 'copy' };
  if (e.altKey && !ctrl && !e.shiftKey) {
    if (e.code === 'KeyR') return { kind: 'revealArchived' };
    const mode = ALT_FILTERS[e.code];
    if (mode) return { kind: 'selector', action: { type: 'setFilter', mode } };
    return null;
  }
  if (ctrl && !e.altKey && !e.shiftKey && (e.key === 'f' || e.key === 'F')) return { kind: 'focusSearch' };
  if (e.key === 'F3') return { kind: 'stepMatch', direction: e.shiftKey ? -1 : 1 };
  if (ctrl || e.altKey) return null;
  switch (e.key) {
    case 'ArrowUp':
      return { kind: 'selector', action: { type: 'move', delta: -1 } };
    case 'ArrowDown':
      return { kind: 'selector', action: { type: 'move', delta: 1 } };
    case 'ArrowLeft':
    case 'PageUp':
      return { kind: 'selector', action: { type: 'page', delta: -1 } };
    case 'ArrowRight':
    case 'PageDown':
      return { kind: 'selector', action: { type: 'page', delta: 1 } };
    case 'Home':
      return { kind: 'selector', action: { type: 'home' } };
    case 'End':
      return { kind: 'selector', action: { type: 'end' } };
    case 'Enter':
      return { kind: 'jump' };
    case 'Escape':
      return { kind: 'selector', action: { type: 'escape' } };
    case 'Backspace':
      return { kind: 'selector', action: { type: 'backspace' } };
    default:
      break;
  }
  if (e.key === 'L' && e.shiftKey) return { kind: 'label' };
  if (e.key === 'T' && e.shiftKey) return { kind: 'labelTimes' };
  if (e.key === 'A' && e.shiftKey) return { kind: 'archive' };
  if (e.key === 'C' && e.shiftKey) return { kind: 'compare' };
  // Any other printable character goes into the search.
  if ([...e.key].length === 1) return { kind: 'selector', action: { type: 'typeQuery', text: e.key } };
  return null;
}
