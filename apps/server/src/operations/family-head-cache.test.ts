import { FamilyHeadReader } from '@canopy/session-core';
import { describe, expect, it } from 'vitest';
import type { FamilyHeadRead } from '../files/family-heads';
import { FamilyHeadCache } from './family-head-cache';

/** A head read of `entries` entries. */
function headOf(entries: number): FamilyHeadRead {
  const reader = new FamilyHeadReader();
  reader.addLine(JSON.stringify({ type: 'session', id: 'S', timestamp: 't' }));
  for (let i = 0; i < entries; i++)
    reader.addLine(JSON.stringify({ type: 'custom', id: `e${i}`, parentId: null, timestamp: 't' }));
  return { reader, complete: true };
}

describe('FamilyHeadCache', () => {
  it('answers a file’s head while its size and time stay, reads it again when they change', async () => {
    const cache = new FamilyHeadCache();
    let reads = 0;
    const read = async () => (reads++, headOf(2));
    const first = await cache.get({ file: '/a', size: 10, mtime: 1 }, read);
    expect(await cache.get({ file: '/a', size: 10, mtime: 1 }, read)).toBe(first);
    expect(reads).toBe(1);
    await cache.get({ file: '/a', size: 11, mtime: 1 }, read);
    await cache.get({ file: '/a', size: 11, mtime: 2 }, read);
    expect(reads).toBe(3);
    expect(cache.size).toBe(1);
  });

  it('forgets the least recently used heads past its bound of entries, never the one just read', async () => {
    const cache = new FamilyHeadCache(5);
    const read = (n: number) => async () => headOf(n);
    await cache.get({ file: '/a', size: 1, mtime: 1 }, read(2));
    await cache.get({ file: '/b', size: 1, mtime: 1 }, read(2));
    // /a used again: /b is now the oldest, and goes when /c does not fit beside both.
    await cache.get({ file: '/a', size: 1, mtime: 1 }, read(2));
    await cache.get({ file: '/c', size: 1, mtime: 1 }, read(2));
    expect(cache.size).toBe(2);
    let reads = 0;
    await cache.get({ file: '/a', size: 1, mtime: 1 }, async () => (reads++, headOf(2)));
    expect(reads).toBe(0);
    // A head larger than the bound is kept alone.
    await cache.get({ file: '/d', size: 1, mtime: 1 }, read(9));
    expect(cache.size).toBe(1);
  });
});
