import type { TreeNode } from '@canopy/protocol';
import { ViewTree } from '@canopy/session-core';
import { describe, expect, it } from 'vitest';
import { node } from '../store/testing';
import { countSessionUsage, type SessionUsage } from './sessionUsage';

function nodes(count: number, from = 0): TreeNode[] {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    const id = `n${i}`;
    const parentId = i === 0 ? null : `n${i - 1}`;
    if (i % 3 !== 1) return node(id, parentId, 'message', 'user', 'user');
    // Costs that do not add up exactly in floating point, and some writers' totalTokens of 0.
    const usage = {
      input: i,
      output: 2,
      cacheRead: 1,
      cacheWrite: 0,
      totalTokens: i % 7 === 0 ? 0 : i + 9,
      cost: 0.1 + i / 3,
    };
    return node(id, parentId, 'message', 'assistant', 'assistant', { usage });
  });
}

/** One pass in file order, as the panel summed before. */
function onePass(tree: ViewTree): SessionUsage {
  let tokens = 0;
  let cost = 0;
  let withUsage = 0;
  for (const entry of tree.allEntries()) {
    const u = (entry as TreeNode).usage;
    if (!u) continue;
    tokens += u.totalTokens > 0 ? u.totalTokens : u.input + u.output + u.cacheRead + u.cacheWrite;
    cost += u.cost;
    withUsage++;
  }
  return { tokens, cost, withUsage };
}

function countInSlices(tree: ViewTree): { usage: SessionUsage | null; steps: number } {
  const count = countSessionUsage(tree);
  let steps = 1;
  while (!count.step(() => true)) steps++;
  return { usage: count.result(), steps };
}

describe('countSessionUsage', () => {
  it('counts in slices exactly what one pass sums, and goes on from there when the tree grows', () => {
    const tree = new ViewTree(nodes(10_000));
    const first = countInSlices(tree);
    expect(first.steps).toBeGreaterThan(2);
    expect(first.usage).toEqual(onePass(tree));
    tree.append(nodes(5, 10_000));
    const grown = countInSlices(tree);
    // Only the appended entries: no look at the clock was needed.
    expect(grown.steps).toBe(1);
    expect(grown.usage).toEqual(onePass(tree));
  });

  it('counts again from the start when an entry changed in place, showing the last count meanwhile', () => {
    const tree = new ViewTree(nodes(9000));
    countInSlices(tree);
    const before = countSessionUsage(tree).result();
    tree.replace({ ...(tree.entryAt(4) as TreeNode), usage: undefined } as TreeNode);
    const count = countSessionUsage(tree);
    expect(count.result()).toBeNull();
    expect(count.latest()).toEqual(before);
    expect(count.step(() => true)).toBe(false);
    while (!count.step(() => true));
    expect(count.result()).toEqual(onePass(tree));
  });

  it('gives up when the tree changes between two slices', () => {
    const tree = new ViewTree(nodes(9000));
    const count = countSessionUsage(tree);
    expect(count.step(() => true)).toBe(false);
    tree.append(nodes(1, 9000));
    expect(count.step(() => true)).toBe(true);
    expect(count.result()).toBeNull();
  });
});
