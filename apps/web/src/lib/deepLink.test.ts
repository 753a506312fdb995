import { describe, expect, it } from 'vitest';
import { formatDeepLink, parseDeepLink } from './deepLink';

describe('deep links', () => {
  it('parses session and entry', () => {
    expect(parseDeepLink('?session=abc&entry=e1')).toEqual({
      sessionId: 'abc',
      entryId: 'e1',
      compare: null,
      file: null,
    });
  });
  it('ignores an entry without a session', () => {
    expect(parseDeepLink('?entry=e1&compare=a,b&file=x')).toEqual({
      sessionId: null,
      entryId: null,
      compare: null,
      file: null,
    });
  });
  it('formats a link, dropping the token and keeping other parameters', () => {
    expect(formatDeepLink('?token=secret&theme=dark', { sessionId: 's 1', entryId: 'e1' })).toBe(
      '?theme=dark&session=s+1&entry=e1',
    );
    expect(formatDeepLink('?session=a&entry=b', { sessionId: null, entryId: 'b' })).toBe('');
  });
  it('round-trips a compare view and a file lens', () => {
    const search = formatDeepLink('?compare=old,old&file=old', {
      sessionId: 's1',
      entryId: 'e1',
      compare: ['a1', 'b2'],
      file: 'src/some file.ts',
    });
    expect(search).toBe('?session=s1&entry=e1&compare=a1%2Cb2&file=src%2Fsome+file.ts');
    expect(parseDeepLink(search)).toEqual({
      sessionId: 's1',
      entryId: 'e1',
      compare: ['a1', 'b2'],
      file: 'src/some file.ts',
    });
  });
  it('drops a closed compare view and a malformed one', () => {
    expect(formatDeepLink('?session=s1&compare=a,b&file=f', { sessionId: 's1', entryId: null })).toBe(
      '?session=s1',
    );
    expect(parseDeepLink('?session=s1&compare=a').compare).toBeNull();
    expect(parseDeepLink('?session=s1&compare=a,b,c').compare).toBeNull();
  });
});
