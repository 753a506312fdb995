import { describe, expect, it } from 'vitest';
import {
  API_ROUTES,
  apiPath,
  clientMessageValidator,
  createValidator,
  DEFAULT_SETTINGS,
  encodeNodes,
  ERROR_CODES,
  ErrorBody,
  serverEventValidator,
  Settings,
  SettingsPatch,
} from './index';

describe('client message validator', () => {
  it('accepts subscribe, unsubscribe, ping and abort_summary', () => {
    expect(clientMessageValidator.check({ type: 'subscribe', sessionId: 'abc_1-2' })).toBe(true);
    expect(clientMessageValidator.check({ type: 'unsubscribe', sessionId: 'abc' })).toBe(true);
    expect(clientMessageValidator.check({ type: 'ping' })).toBe(true);
    expect(clientMessageValidator.check({ type: 'ping', id: '7' })).toBe(true);
    expect(clientMessageValidator.check({ type: 'abort_summary', sessionId: 'abc' })).toBe(true);
  });

  it('rejects unknown types, extra keys and session ids that look like paths', () => {
    expect(clientMessageValidator.check({ type: 'explode' })).toBe(false);
    expect(clientMessageValidator.check({ type: 'subscribe', sessionId: 'abc', extra: 1 })).toBe(false);
    expect(clientMessageValidator.check({ type: 'subscribe', sessionId: '../etc/passwd' })).toBe(false);
    expect(clientMessageValidator.check({ type: 'subscribe' })).toBe(false);
    expect(clientMessageValidator.check(null)).toBe(false);
  });

  it('names the failing path in firstError', () => {
    expect(clientMessageValidator.firstError({ type: 'ping' })).toBeUndefined();
    expect(createValidator(Settings).firstError({ ...DEFAULT_SETTINGS, defaultFilter: 'bogus' })).toMatch(
      /^\/defaultFilter: /,
    );
  });
});

describe('server event validator', () => {
  it('accepts a session_changed event that only moves the leaf, with and without a summary entry', () => {
    expect(
      serverEventValidator.check({
        type: 'session_changed',
        sessionId: 's1',
        source: 'canopy',
        leaf: { id: 'a', previousId: null },
      }),
    ).toBe(true);
    expect(
      serverEventValidator.check({
        type: 'session_changed',
        sessionId: 's1',
        source: 'canopy',
        leaf: {
          id: 'b',
          previousId: 'a',
          summaryEntry: { type: 'branch_summary', id: 'b' },
          fromExtension: true,
        },
      }),
    ).toBe(true);
  });

  it('accepts appended nodes in the codec form and rejects them as an array of objects', () => {
    const added = encodeNodes([
      { id: 'a', parentId: null, type: 'message', timestamp: 't', text: 'x', search: 'x', flags: 0 },
    ]);
    expect(
      serverEventValidator.check({ type: 'session_changed', sessionId: 's1', source: 'external', added }),
    ).toBe(true);
    expect(
      serverEventValidator.check({
        type: 'session_changed',
        sessionId: 's1',
        source: 'external',
        added: [{ id: 'a', parentId: null }],
      }),
    ).toBe(false);
  });

  it('rejects a session_changed event without its source', () => {
    expect(serverEventValidator.check({ type: 'session_changed', sessionId: 's1', writerActive: true })).toBe(
      false,
    );
  });
});

describe('settings', () => {
  it('defaults match the reference: summaries off, double escape opens the tree, default filter', () => {
    expect(DEFAULT_SETTINGS).toEqual({
      branchSummary: { enabled: false },
      doubleEscapeAction: 'tree',
      defaultFilter: 'default',
    });
    expect(createValidator(Settings).check(DEFAULT_SETTINGS)).toBe(true);
  });

  it('a patch accepts a subset and refuses unknown keys', () => {
    const patch = createValidator(SettingsPatch);
    expect(patch.check({ branchSummary: { enabled: true } })).toBe(true);
    expect(patch.check({})).toBe(true);
    expect(patch.check({ theme: 'dark' })).toBe(false);
    expect(patch.check({ doubleEscapeAction: 'fork' })).toBe(false);
  });
});

describe('errors and routes', () => {
  it('the error body carries a known code', () => {
    const body = createValidator(ErrorBody);
    expect(body.check({ error: { code: 'NO_SUMMARIZER', message: 'x' } })).toBe(true);
    expect(body.check({ error: { code: 'SOMETHING_ELSE', message: 'x' } })).toBe(false);
    expect(ERROR_CODES).toContain('FILE_MID_WRITE');
  });

  it('apiPath fills and encodes parameters and refuses missing ones', () => {
    expect(apiPath(API_ROUTES.getEntry.url, { id: 's1', entryId: 'a/b' })).toBe(
      '/api/sessions/s1/entries/a%2Fb',
    );
    expect(() => apiPath(API_ROUTES.getEntry.url, { id: 's1' })).toThrow('missing route parameter entryId');
  });
});
