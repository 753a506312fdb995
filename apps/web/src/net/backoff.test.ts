import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff';

describe('backoffDelay', () => {
  it('doubles the ceiling with each attempt and jitters within its upper half', () => {
    expect(backoffDelay(0, { baseMs: 100, random: () => 0 })).toBe(50);
    expect(backoffDelay(0, { baseMs: 100, random: () => 1 })).toBe(100);
    expect(backoffDelay(3, { baseMs: 100, random: () => 0 })).toBe(400);
  });
  it('never exceeds the cap', () => {
    expect(backoffDelay(30, { baseMs: 100, maxMs: 5000, random: () => 1 })).toBe(5000);
  });
});
