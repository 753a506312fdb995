import { describe, expect, it } from 'vitest';
import { keyCommand, type KeyInput } from './keymap';

const key = (k: string, extra: Partial<KeyInput> = {}): KeyInput => ({
  key: k,
  code: extra.code ?? (k.length === 1 ? `Key${k.toUpperCase()}` : k),
  ctrlKey: false,
  shiftKey: false,
  altKey: false,
  metaKey: false,
  ...extra,
});

describe('keyCommand', () => {
  it('folds or moves up with Ctrl+← and Alt+←, unfolds or moves down with Ctrl+→ and Alt+→ (pi’s keys)', () => {
    for (const modifier of [{ ctrlKey: true }, { altKey: true }, { metaKey: true }]) {
      expect(keyCommand(key('ArrowLeft', modifier))).toEqual({
        kind: 'selector',
        action: { type: 'foldOrUp' },
      });
      expect(keyCommand(key('ArrowRight', modifier))).toEqual({
        kind: 'selector',
        action: { type: 'unfoldOrDown' },
      });
    }
    // Plain ←/→ still page.
    expect(keyCommand(key('ArrowLeft'))).toEqual({ kind: 'selector', action: { type: 'page', delta: -1 } });
  });

  it('toggles label times with Shift+T and copies with Ctrl+X instead of searching for them', () => {
    expect(keyCommand(key('T', { shiftKey: true }))).toEqual({ kind: 'labelTimes' });
    expect(keyCommand(key('x', { ctrlKey: true }))).toEqual({ kind: 'copy' });
    expect(keyCommand(key('t'))).toEqual({ kind: 'selector', action: { type: 'typeQuery', text: 't' } });
  });

  it('cycles the filter with Ctrl+O and backwards with Shift+Ctrl+O', () => {
    expect(keyCommand(key('o', { ctrlKey: true }))).toEqual({
      kind: 'selector',
      action: { type: 'cycleFilter', direction: 1 },
    });
    expect(keyCommand(key('O', { ctrlKey: true, shiftKey: true }))).toEqual({
      kind: 'selector',
      action: { type: 'cycleFilter', direction: -1 },
    });
  });

  it('sets the filter with Alt+D/T/U/L/A by physical key, whatever character Alt produces', () => {
    const modes = {
      KeyD: 'default',
      KeyT: 'no-tools',
      KeyU: 'user-only',
      KeyL: 'labeled-only',
      KeyA: 'all',
    } as const;
    for (const [code, mode] of Object.entries(modes)) {
      expect(keyCommand(key('∂', { altKey: true, code }))).toEqual({
        kind: 'selector',
        action: { type: 'setFilter', mode },
      });
    }
  });

  it('maps arrows to wrapping moves and left/right to pages', () => {
    expect(keyCommand(key('ArrowUp'))).toEqual({ kind: 'selector', action: { type: 'move', delta: -1 } });
    expect(keyCommand(key('ArrowRight'))).toEqual({ kind: 'selector', action: { type: 'page', delta: 1 } });
  });

  it('opens the label editor on Shift+L but types a lower-case l into the search', () => {
    expect(keyCommand(key('L', { shiftKey: true }))).toEqual({ kind: 'label' });
    expect(keyCommand(key('l'))).toEqual({ kind: 'selector', action: { type: 'typeQuery', text: 'l' } });
  });

  it('maps Enter to jump, Escape and Backspace to the selector', () => {
    expect(keyCommand(key('Enter'))).toEqual({ kind: 'jump' });
    expect(keyCommand(key('Escape'))).toEqual({ kind: 'selector', action: { type: 'escape' } });
    expect(keyCommand(key('Backspace'))).toEqual({ kind: 'selector', action: { type: 'backspace' } });
  });

  it('leaves other browser shortcuts and named keys alone', () => {
    expect(keyCommand(key('r', { ctrlKey: true }))).toBeNull();
    expect(keyCommand(key('Tab'))).toBeNull();
    expect(keyCommand(key('x', { altKey: true, code: 'KeyX' }))).toBeNull();
  });
});

describe('archive keys (oh-my-pi PR #8301: Shift+A archives, Alt+R reveals)', () => {
  it('Shift+A archives or restores the selected branch; a plain a still types', () => {
    expect(keyCommand(key('A', { shiftKey: true }))).toEqual({ kind: 'archive' });
    expect(keyCommand(key('a'))).toEqual({ kind: 'selector', action: { type: 'typeQuery', text: 'a' } });
  });

  it('Alt+R shows or folds archived branches by physical key', () => {
    expect(keyCommand(key('®', { altKey: true, code: 'KeyR' }))).toEqual({ kind: 'revealArchived' });
    expect(keyCommand(key('r', { altKey: true, ctrlKey: true, code: 'KeyR' }))).toBeNull();
  });
});

describe('compare key (Canopy’s)', () => {
  it('Shift+C compares; a plain c still types, and Ctrl or Alt with it is no command', () => {
    expect(keyCommand(key('C', { shiftKey: true }))).toEqual({ kind: 'compare' });
    expect(keyCommand(key('c'))).toEqual({ kind: 'selector', action: { type: 'typeQuery', text: 'c' } });
    expect(keyCommand(key('C', { shiftKey: true, ctrlKey: true }))).toBeNull();
    expect(keyCommand(key('C', { shiftKey: true, altKey: true, code: 'KeyC' }))).toBeNull();
  });
});
