import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accessToken, adoptToken, authHeaders, setAccessToken, socketProtocols } from './token';

/** A tab's session storage, as the browser keeps it. */
class MemoryStorage {
  private readonly values = new Map<string, string>();
  getItem(key: string): string | null {
    return this.values.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.values.set(key, value);
  }
}

describe('the access token (net/token.ts)', () => {
  let storage: MemoryStorage;
  beforeEach(() => {
    storage = new MemoryStorage();
    (globalThis as { sessionStorage?: unknown }).sessionStorage = storage;
    setAccessToken(null);
  });
  afterEach(() => {
    delete (globalThis as { sessionStorage?: unknown }).sessionStorage;
  });

  it('is taken from the URL into memory and the tab, and the URL is answered without it', () => {
    expect(adoptToken('?token=abc123&session=s1&entry=e2')).toBe('?session=s1&entry=e2');
    expect(accessToken()).toBe('abc123');
    expect(storage.getItem('canopy.token')).toBe('abc123');
    expect(authHeaders()).toEqual({ authorization: 'Bearer abc123' });
    expect(socketProtocols()).toEqual(['canopy', 'canopy.token.abc123']);
  });

  it('a reload (no token in the URL) takes the one this tab kept; a page with neither sends none', () => {
    adoptToken('?token=kept');
    setAccessToken(null);
    expect(adoptToken('?session=s1')).toBe('?session=s1');
    expect(accessToken()).toBe('kept');
    delete (globalThis as { sessionStorage?: unknown }).sessionStorage;
    setAccessToken(null);
    expect(adoptToken('')).toBe('');
    expect(accessToken()).toBeNull();
    expect(authHeaders()).toEqual({});
    expect(socketProtocols()).toEqual(['canopy']);
  });
});
