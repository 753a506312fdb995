import { describe, expect, it, vi } from 'vitest';
import { IdIndex } from './id-index';

/** An index over its own list of ids, added through `add`, as ViewTree keeps its entries. */
function indexWithList(): { index: IdIndex; add(id: string): number } {
  const ids: string[] = [];
  const index = new IdIndex((position) => ids[position]!);
  return {
    index,
    add(id) {
      const position = index.add(id);
      if (position >= 0) ids[position] = id;
      return position;
    },
  };
}

describe('IdIndex', () => {
  it('answers the position of every id added, -1 for others, through many growths', () => {
    const { index, add } = indexWithList();
    const ids = Array.from({ length: 5000 }, (_, i) => `id-${(i * 7919) % 100003}`);
    ids.forEach((id, position) => expect(add(id)).toBe(position));
    expect(index.size).toBe(ids.length);
    ids.forEach((id, position) => expect(index.indexOf(id)).toBe(position));
    expect(index.indexOf('id-missing')).toBe(-1);
    expect(index.indexOf('')).toBe(-1);
  });

  it('refuses an id already in, without taking a position', () => {
    const { index, add } = indexWithList();
    expect(add('a')).toBe(0);
    expect(add('b')).toBe(1);
    expect(add('a')).toBe(-1);
    expect(add('c')).toBe(2);
    expect(index.size).toBe(3);
    expect(index.indexOf('c')).toBe(2);
  });

  it('keeps its answers across reserve, and forgets every id on clear', () => {
    const { index, add } = indexWithList();
    for (let i = 0; i < 100; i++) add(`n${i}`);
    index.reserve(100_000);
    for (let i = 100; i < 3000; i++) add(`n${i}`);
    for (let i = 0; i < 3000; i++) expect(index.indexOf(`n${i}`)).toBe(i);
    index.clear();
    expect(index.size).toBe(0);
    expect(index.indexOf('n5')).toBe(-1);
    expect(add('n5')).toBe(0);
    expect(index.indexOf('n5')).toBe(0);
  });

  it('tells apart ids whose hashes collide in the table', () => {
    // Far more ids than the first table's slots, all sharing a long common prefix.
    const { index, add } = indexWithList();
    const prefix = 'x'.repeat(64);
    for (let i = 0; i < 4000; i++) add(`${prefix}${i}`);
    for (let i = 0; i < 4000; i++) expect(index.indexOf(`${prefix}${i}`)).toBe(i);
  });

  it('leaves the table of an empty index untouched when cleared', () => {
    const { index, add } = indexWithList();
    index.reserve(200_000);
    const fill = vi.spyOn(Int32Array.prototype, 'fill');
    try {
      index.clear();
      expect(fill).not.toHaveBeenCalled();
      expect(add('a')).toBe(0);
      index.clear();
      expect(fill).toHaveBeenCalledTimes(1);
      expect(index.size).toBe(0);
      expect(index.indexOf('a')).toBe(-1);
    } finally {
      fill.mockRestore();
    }
  });
});
