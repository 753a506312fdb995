import { describe, expect, it } from 'vitest';
import { branchTotals, type UsageLike } from './branchTotals';

const usage = (input: number, output: number, cost: number, totalTokens = 0): UsageLike => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens,
  cost,
});

describe('branchTotals', () => {
  const nodes = new Map<string, { parentId: string | null; usage?: UsageLike }>([
    ['u1', { parentId: null }],
    ['a1', { parentId: 'u1', usage: usage(100, 20, 0.5, 120) }],
    ['u2', { parentId: 'a1' }],
    ['a2', { parentId: 'u2', usage: usage(300, 50, 0.25) }],
    ['a3', { parentId: 'u1', usage: usage(1, 1, 1, 2) }],
  ]);

  it('sums usage of the assistant messages from the node up to the root only', () => {
    const totals = branchTotals('a2', (id) => nodes.get(id));
    expect(totals).toEqual({
      entries: 4,
      assistantMessages: 2,
      input: 400,
      output: 70,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 120 + 350,
      cost: 0.75,
    });
  });

  it('stops on a parent cycle and on a missing parent', () => {
    const cyclic = new Map([
      ['x', { parentId: 'y', usage: usage(1, 0, 0, 1) }],
      ['y', { parentId: 'x', usage: usage(2, 0, 0, 2) }],
    ]);
    expect(branchTotals('x', (id) => cyclic.get(id)).totalTokens).toBe(3);
    expect(branchTotals('orphan', () => undefined).entries).toBe(0);
  });
});
