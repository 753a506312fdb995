import { SessionManager } from '@canopy/session-core';
import { describe, expect, it } from 'vitest';
import { FILE_CHANGED_ON_READ, toClientError } from './errors';

describe('toClientError', () => {
  it('an entry whose line no longer matches the index (the file changed underneath) is FILE_CHANGED, never an internal error', () => {
    const writer = SessionManager.inMemory('/w');
    const id = writer.appendMessage({ role: 'user', content: 'first', timestamp: 1 });
    const original = writer.toJsonl();
    // The same bytes with another id at that place: what a rewrite in place would leave.
    let onDisk = original;
    const sm = SessionManager.fromJsonl(original, {
      retain: 'index',
      entryCacheSize: 0,
      readRange: (offset, length) => Buffer.from(onDisk, 'utf8').subarray(offset, offset + length),
    });
    onDisk = original.replace(id, 'ffffffff'.slice(0, id.length));
    let thrown: unknown;
    try {
      sm.getEntry(id);
    } catch (error) {
      thrown = error;
    }
    expect(toClientError(thrown)).toEqual({
      code: 'FILE_CHANGED',
      message: FILE_CHANGED_ON_READ,
      statusCode: 409,
    });
  });
});
