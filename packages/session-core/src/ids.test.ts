import { describe, expect, it } from 'vitest';
import { generateEntryId, generateSessionId } from './ids';

describe('generateEntryId', () => {
  it('returns 8 lowercase hex digits', () => {
    for (let i = 0; i < 50; i++) expect(generateEntryId(new Set())).toMatch(/^[0-9a-f]{8}$/);
  });

  it('never returns an id that is already taken', () => {
    const taken = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = generateEntryId(taken);
      expect(taken.has(id)).toBe(false);
      taken.add(id);
    }
    expect(taken.size).toBe(2000);
  });

  it('falls back to a full UUID after 100 short ids collide', () => {
    let asked = 0;
    const everythingTaken = {
      has: (id: string) => {
        asked++;
        return id.length === 8;
      },
    };
    const id = generateEntryId(everythingTaken);
    expect(asked).toBe(100);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('generateSessionId', () => {
  it('returns distinct v4 UUIDs', () => {
    const first = generateSessionId();
    const second = generateSessionId();
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second).not.toBe(first);
  });
});
