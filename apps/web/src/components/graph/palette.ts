// The graph's colours, read from the CSS variables of the current theme (styles.css), because a
// canvas cannot use `var(--x)` itself.

import { useMemo } from 'react';
import type { EntryKind } from '../../lib/entryKind';

export type Palette = Record<
  EntryKind | 'link' | 'linkActive' | 'select' | 'panel' | 'border' | 'accent' | 'match' | 'text' | 'error',
  string
>;

/** Reads the palette from computed style; a variable that is not set reads as grey. */
export function readPalette(style: Pick<CSSStyleDeclaration, 'getPropertyValue'>): Palette {
  const v = (name: string) => style.getPropertyValue(name).trim() || '#888';
  return {
    user: v('--user'),
    assistant: v('--assistant'),
    tool: v('--tool'),
    summary: v('--summary'),
    settings: v('--settings'),
    custom: v('--custom'),
    other: v('--settings'),
    link: v('--link'),
    linkActive: v('--link-active'),
    select: v('--accent'),
    panel: v('--panel'),
    border: v('--border'),
    accent: v('--accent'),
    match: v('--match'),
    text: v('--text'),
    error: v('--error'),
  };
}

/** The palette of the page's current theme, read again whenever the theme changes. */
export function usePalette(theme: string): Palette | null {
  return useMemo(() => {
    // The theme is the reason to read again: the variables' values change with it.
    void theme;
    return typeof document === 'undefined' ? null : readPalette(getComputedStyle(document.documentElement));
  }, [theme]);
}
