import { describe, expect, it } from 'vitest';
import { boundDepth, TOO_DEEP } from './json-depth';

/** `{"d": … {"leaf": true} … }` nested `depth` levels, built without recursion. */
function nested(depth: number): unknown {
  return JSON.parse(`${'{"d":'.repeat(depth)}{"leaf":true}${'}'.repeat(depth)}`);
}

describe('boundDepth', () => {
  it('answers a value within the limit as it is (the same object)', () => {
    const value = { a: [1, { b: 'x' }], c: null };
    expect(boundDepth(value, 3)).toBe(value);
  });

  it('replaces what lies deeper than the limit, and the rest is kept', () => {
    expect(boundDepth({ a: { b: { c: 1 } }, keep: [1, 2] }, 2)).toEqual({ a: { b: TOO_DEEP }, keep: [1, 2] });
    expect(boundDepth([[[['x']]], 'y'], 2)).toEqual([[TOO_DEEP], 'y']);
  });

  it('takes a value 100,000 levels deep without overflowing the stack, and it then serialises', () => {
    const bounded = boundDepth(nested(100_000));
    const text = JSON.stringify(bounded);
    expect(text).toContain(TOO_DEEP);
    expect(text.split('{"d":').length - 1).toBe(256);
  });
});
