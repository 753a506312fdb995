// Loading a session in each retention mode, so suites can run once per mode. In 'index' mode the
// session reads its entries back from the very bytes (or storage) it was loaded from.
import type { EntryRetention, RangeReader } from '../src/entry-store';
import { utf8Encode } from '../src/parse';
import { SessionManager } from '../src/session-manager';
import type { FromJsonlOptions } from '../src/session-manager';
import { MemoryStorage } from '../src/storage';

export const RETENTIONS: readonly EntryRetention[] = ['all', 'index'];

/** A ranged reader over a file's bytes that counts its reads. */
export interface CountingReader extends RangeReader {
  readonly reads: number;
}

export function bytesReader(content: string | Uint8Array): CountingReader {
  const bytes = typeof content === 'string' ? utf8Encode(content) : content;
  let reads = 0;
  const reader = (offset: number, length: number): Uint8Array => {
    reads++;
    return bytes.slice(offset, offset + length);
  };
  return Object.defineProperty(reader, 'reads', { get: () => reads }) as CountingReader;
}

/**
 * `SessionManager.fromJsonl(content, options)` keeping `retention`. In 'index' mode text is loaded
 * from its bytes with a MemoryStorage holding it, so what the session appends later is read back too;
 * bytes (which may not be valid UTF-8) are read back from the bytes themselves.
 */
export function loadIn(
  retention: EntryRetention,
  content: string | Uint8Array,
  options: FromJsonlOptions = {},
): SessionManager {
  if (retention === 'all') return SessionManager.fromJsonl(content, options);
  if (typeof content === 'string' && options.storage === undefined && options.readRange === undefined) {
    // Loaded from its bytes, as the server loads a file, so long lines are parsed abridged.
    return SessionManager.fromJsonl(utf8Encode(content), {
      ...options,
      storage: new MemoryStorage(content),
      retain: 'index',
    });
  }
  return SessionManager.fromJsonl(content, { readRange: bytesReader(content), ...options, retain: 'index' });
}
