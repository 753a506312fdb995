import { describe, expect, it } from 'vitest';
import { highlightSegments } from './highlight';

describe('highlightSegments', () => {
  it('marks every occurrence of every token, case-insensitively, merging overlaps', () => {
    expect(highlightSegments('User: Fix the fixture', ['fix', 'ture'])).toEqual([
      { text: 'User: ', match: false },
      { text: 'Fix', match: true },
      { text: ' the ', match: false },
      { text: 'fixture', match: true },
    ]);
  });
  it('returns the whole text unmarked without tokens', () => {
    expect(highlightSegments('abc', [])).toEqual([{ text: 'abc', match: false }]);
  });
  it('marks only matches that start within the limit, the rest stays one plain segment', () => {
    expect(highlightSegments('aXa aXa aXa', ['xa'], 6)).toEqual([
      { text: 'a', match: false },
      { text: 'Xa', match: true },
      { text: ' a', match: false },
      { text: 'Xa', match: true },
      { text: ' aXa', match: false },
    ]);
    expect(highlightSegments('abc', ['b'], 0)).toEqual([{ text: 'abc', match: false }]);
  });
});
