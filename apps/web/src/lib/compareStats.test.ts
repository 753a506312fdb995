import { describe, expect, it } from 'vitest';
import { laneRollup } from '../store/testing';
import { costVerdict, wallTime } from './compareStats';

function rollup(cost: number, totalTokens: number) {
  return laneRollup({
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens, cost, entries: 1 },
  });
}

describe('compare stats', () => {
  it('names the lane that cost more, by cost when one was recorded', () => {
    expect(costVerdict(rollup(0.5, 10), rollup(0.2, 999))).toEqual({
      more: 'a',
      text: 'Lane A cost $0.30 more.',
    });
  });
  it('falls back to tokens when no lane recorded a cost, and says so', () => {
    const verdict = costVerdict(rollup(0, 100), rollup(0, 2_100));
    expect(verdict.more).toBe('b');
    expect(verdict.text).toMatch(/^Lane B cost .* tokens more \(no cost recorded\)\.$/);
  });
  it('says when both cost the same', () => {
    expect(costVerdict(rollup(0.1, 5), rollup(0.1, 9)).more).toBeNull();
  });
  it('writes wall times for people', () => {
    expect(wallTime(null)).toBe('—');
    expect(wallTime(12_400)).toBe('12 s');
    expect(wallTime(125_000)).toBe('2 min 5 s');
    expect(wallTime(3_900_000)).toBe('1 h 5 min');
  });
});
