import { describe, expect, it } from 'vitest';
import { emptyOutlineNote } from './OutlineView';

describe('emptyOutlineNote', () => {
  it('says the session is loading, not that the view is empty, while the snapshot still streams in', () => {
    expect(emptyOutlineNote('', true)).toBe('Loading the session…');
    expect(emptyOutlineNote('plan', true)).toBe('Loading the session…');
  });

  it('once loaded, names the search that matched nothing, or the filter that hides everything', () => {
    expect(emptyOutlineNote('plan', false)).toBe(
      'No entries match “plan”. Backspace or Esc to clear the search.',
    );
    expect(emptyOutlineNote('', false)).toBe(
      'No entries in this view. Alt+A shows all, Alt+D the default view.',
    );
  });
});
