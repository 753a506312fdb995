import { describe, expect, it } from 'vitest';
import { branchTotals, subtreeTotals, type UsageLike } from './branchTotals';

const usage = (input: number, output: number, cost: number, totalTokens = 0): UsageLike => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens,
  cost,
});

type Node = { id: string; parentId: string | null; usage?: UsageLike };

/** The tree's three reads over a list of nodes, parents by position as ViewTree keeps them. */
function treeOf(nodes: Node[]) {
  const index = new Map(nodes.map((node, i) => [node.id, i]));
  return {
    indexOf: (id: string) => index.get(id) ?? -1,
    entryAt: (at: number) => nodes[at]!,
    parentIndexAt: (at: number) => {
      const parentId = nodes[at]!.parentId;
      return parentId === null ? -1 : (index.get(parentId) ?? -1);
    },
  };
}

describe('branchTotals', () => {
  const tree = treeOf([
    { id: 'u1', parentId: null },
    { id: 'a1', parentId: 'u1', usage: usage(100, 20, 0.5, 120) },
    { id: 'u2', parentId: 'a1' },
    { id: 'a2', parentId: 'u2', usage: usage(300, 50, 0.25) },
    { id: 'a3', parentId: 'u1', usage: usage(1, 1, 1, 2) },
  ]);
  const usageOf = (node: Node) => node.usage;

  it('sums usage of the assistant messages from the node up to the root only', () => {
    expect(branchTotals(tree, 'a2', usageOf)).toEqual({
      entries: 4,
      withUsage: 2,
      input: 400,
      output: 70,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 120 + 350,
      cost: 0.75,
    });
    expect(branchTotals(tree, 'a3', usageOf).totalTokens).toBe(2);
  });

  it('counts nothing for an unknown id or none, and stops at an entry whose parent is missing', () => {
    expect(branchTotals(tree, 'missing', usageOf).entries).toBe(0);
    expect(branchTotals(tree, null, usageOf).entries).toBe(0);
    const orphaned = treeOf([
      { id: 'x', parentId: 'gone', usage: usage(1, 0, 0, 1) },
      { id: 'y', parentId: 'x', usage: usage(2, 0, 0, 2) },
    ]);
    expect(branchTotals(orphaned, 'y', usageOf)).toMatchObject({ entries: 2, totalTokens: 3 });
  });

  it('walks a 100,000-entry chain by index: no id is looked up but the first', () => {
    const chain: Node[] = Array.from({ length: 100_000 }, (_, i) => ({
      id: `c${i}`,
      parentId: i === 0 ? null : `c${i - 1}`,
      usage: usage(1, 0, 0, 1),
    }));
    const plain = treeOf(chain);
    let lookups = 0;
    const counted = { ...plain, indexOf: (id: string) => (lookups++, plain.indexOf(id)) };
    expect(branchTotals(counted, 'c99999', usageOf).totalTokens).toBe(100_000);
    expect(lookups).toBe(1);
  });
});

describe('subtreeTotals (what an archived branch hides)', () => {
  const nodes: { id: string; parentId: string | null; usage?: UsageLike }[] = [
    { id: 'u1', parentId: null },
    { id: 'a1', parentId: 'u1', usage: usage(100, 20, 0.5, 120) },
    { id: 'u2', parentId: 'a1' },
    { id: 'a2', parentId: 'u2', usage: usage(300, 50, 0.25) },
    { id: 'a3', parentId: 'a1', usage: usage(1, 1, 1, 2) },
  ];
  const index = new Map(nodes.map((node, i) => [node.id, i]));
  const children = (at: number) => nodes.flatMap((n, i) => (n.parentId === nodes[at]!.id ? [i] : []));
  const tree = {
    indexOf: (id: string) => index.get(id) ?? -1,
    entryAt: (at: number) => nodes[at]!,
    childCountAt: (at: number) => children(at).length,
    childAt: (at: number, k: number) => children(at)[k]!,
  };

  it('sums the entries and usage under a node, itself included, and nothing for an unknown id', () => {
    expect(subtreeTotals(tree, 'a1', (n) => n.usage)).toMatchObject({
      entries: 4,
      withUsage: 3,
      totalTokens: 120 + 350 + 2,
      cost: 1.75,
    });
    expect(subtreeTotals(tree, 'u2', (n) => n.usage)).toMatchObject({ entries: 2, withUsage: 1 });
    expect(subtreeTotals(tree, 'nope', (n) => n.usage).entries).toBe(0);
  });
});
