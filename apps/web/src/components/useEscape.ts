// What every dialog does with the keyboard and focus: Esc closes it wherever focus is, and the dialog
// takes focus when it opens unless a field inside it already has it.
import { useEffect, useLayoutEffect, useRef } from 'react';

/** Esc for a dialog, page-wide while it is open: focus may be on the page after a step change. */
export function useEscape(active: boolean, onEscape: () => void): void {
  const handler = useRef(onEscape);
  useLayoutEffect(() => {
    handler.current = onEscape;
  });
  useEffect(() => {
    if (!active) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.isComposing) return;
      event.preventDefault();
      event.stopPropagation();
      handler.current();
    };
    // Capture phase: before the tree's keys and before any field inside the dialog.
    window.addEventListener('keydown', onKeyDown, true);
    return () => window.removeEventListener('keydown', onKeyDown, true);
  }, [active]);
}

/** A dialog's ref: focuses it when it mounts, unless focus is already inside it. */
export function focusDialog(element: HTMLElement | null): void {
  if (element && !element.contains(document.activeElement)) element.focus();
}
