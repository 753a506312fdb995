import { describe, expect, it } from 'vitest';
import { formatDeepLink, parseDeepLink } from './deepLink';

describe('deep links', () => {
  it('parses session and entry', () => {
    expect(parseDeepLink('?session=abc&entry=e1')).toEqual({ sessionId: 'abc', entryId: 'e1' });
  });
  it('ignores an entry without a session', () => {
    expect(parseDeepLink('?entry=e1')).toEqual({ sessionId: null, entryId: null });
  });
  it('formats a link, dropping the token and keeping other parameters', () => {
    expect(formatDeepLink('?token=secret&theme=dark', { sessionId: 's 1', entryId: 'e1' })).toBe(
      '?theme=dark&session=s+1&entry=e1',
    );
    expect(formatDeepLink('?session=a&entry=b', { sessionId: null, entryId: 'b' })).toBe('');
  });
});
