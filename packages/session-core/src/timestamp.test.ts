import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTimestamp, timestampSortKey } from './timestamp';

/** Compares as Object.is does, so that NaN equals NaN. */
function same(text: string): void {
  expect({ text, ms: parseTimestamp(text) }).toEqual({ text, ms: Date.parse(text) });
}

describe('parseTimestamp', () => {
  it('answers what Date.parse answers for every instant toISOString writes in years 0 to 9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }), (ms) => {
        const text = new Date(ms).toISOString();
        expect(parseTimestamp(text)).toBe(ms);
        same(text);
      }),
      { numRuns: 5000 },
    );
  });

  it('answers what Date.parse answers for strings of that shape with any digits, and for other forms', () => {
    const digit = fc.constantFrom(...'0123456789');
    const field = (n: number) => fc.array(digit, { minLength: n, maxLength: n }).map((d) => d.join(''));
    fc.assert(
      fc.property(
        field(4),
        field(2),
        field(2),
        field(2),
        field(2),
        field(2),
        field(3),
        (y, mo, d, h, mi, s, ms) => same(`${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`),
      ),
      { numRuns: 5000 },
    );
    for (const text of [
      '2024-02-29T12:00:00.000Z',
      '2023-02-29T12:00:00.000Z',
      '1900-02-29T00:00:00.000Z',
      '2000-02-29T00:00:00.000Z',
      '2024-04-31T00:00:00.000Z',
      '2024-01-01T24:00:00.000Z',
      '2024-01-01T23:59:60.000Z',
      '2024-13-01T00:00:00.000Z',
      '2024-00-10T00:00:00.000Z',
      '0000-01-01T00:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '2024-01-01T00:00:00Z',
      '2024-01-01T00:00:00.000+02:00',
      '2024-01-01',
      '+002024-01-01T00:00:00.000Z',
      '2024-01-01T00:00:00.000z',
      '2024-0a-01T00:00:00.000Z',
      'not a timestamp at all!!',
      '',
    ])
      same(text);
  });

  it('gives the sort key of children: the time, or after every valid time for anything else', () => {
    expect(timestampSortKey('2026-03-01T09:00:13.388Z')).toBe(Date.parse('2026-03-01T09:00:13.388Z'));
    expect(timestampSortKey('2026-03-01T10:00:00+01:00')).toBe(Date.parse('2026-03-01T09:00:00Z'));
    for (const bad of ['2024-13-01T00:00:00.000Z', 'yesterday', '', 1_700_000_000_000, null, undefined])
      expect(timestampSortKey(bad)).toBe(Number.POSITIVE_INFINITY);
  });
});
