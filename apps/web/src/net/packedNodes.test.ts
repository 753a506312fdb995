import type { TreeNode } from '@canopy/protocol';
import { describe, expect, it } from 'vitest';
import { packNodes, packedTransfers, unpackNodes } from './packedNodes';
import { fieldsOf } from './testing';

function node(id: string, parentId: string | null, extra: Partial<TreeNode> = {}): TreeNode {
  const text = extra.text ?? `user: ${id}`;
  return {
    id,
    parentId,
    type: 'message',
    timestamp: '2026-01-01T00:00:00.000Z',
    text,
    search: text.toLowerCase(),
    flags: 0,
    ...extra,
  };
}

/** Through a real structured clone, as the worker's message goes. */
function unpacked(nodes: TreeNode[]): TreeNode[] {
  const packed = packNodes(nodes);
  return unpackNodes(structuredClone(packed, { transfer: packedTransfers(packed) }));
}

/** The unpacked nodes' fields, to compare with those packed. */
function posted(nodes: TreeNode[]): TreeNode[] {
  return unpacked(nodes).map(fieldsOf);
}

describe('packed nodes', () => {
  it('unpack to nodes whose fields equal those packed', () => {
    const nodes = [
      node('root', null, { role: 'user' }),
      // A parent in the part, one before it (not in the part), a self-parent, a missing one.
      node('a1', 'root', { role: 'assistant', flags: 64 | 2, label: 'turning point' }),
      node('x', 'elsewhere', { type: 'model_change', text: '[model: x]', search: '[model: x] provider' }),
      node('self', 'self'),
      node('later', 'a1', {
        role: 'assistant',
        usage: { input: 1, output: 2, cacheRead: 3, cacheWrite: 4, totalTokens: 10, cost: 0.5 },
      }),
      // Empty texts, an invalid timestamp, short and long texts on both sides of 13 characters.
      node('empty', 'later', { text: '', search: '', timestamp: '' }),
      // Usage without a role (a custom entry may carry it) and a label beside usage.
      node('custom', 'empty', {
        type: 'custom_message',
        label: 'both',
        labelTime: '2026-01-02T03:04:05.000Z',
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0 },
      }),
      node('short', 'empty', { text: 'ok', search: 'ok', timestamp: 'not a time' }),
      node('long', 'short', { text: 'x'.repeat(1000), search: 'y'.repeat(4000) }),
    ];
    expect(posted(nodes)).toStrictEqual(nodes.map(fieldsOf));
    // Each read of a text is a fresh string equal to the one packed.
    const back = unpacked(nodes);
    expect(back.map((node) => [node.timestamp, node.text, node.search])).toEqual(
      nodes.map((node) => [node.timestamp, node.text, node.search]),
    );
  });

  it('keeps text past Latin-1 (emoji, CJK, lone surrogates) and Latin-1 text in one part, each exact', () => {
    const texts = ['café — 🌲 tree', 'plain ascii', 'naïve', '漢字の行', '\ud800 lone', 'ÿ\u00ff end', '🌲'];
    const nodes = texts.map((text, i) =>
      node(`n${i}`, i === 0 ? null : `n${i - 1}`, { text, search: `${text.toLowerCase()} ${i}` }),
    );
    const packed = packNodes(nodes);
    // Only the texts that need it go to the wide string.
    expect(packed.latin1).toContain('plain ascii');
    expect(packed.latin1).toContain('naïve');
    expect(packed.wide).not.toContain('plain ascii');
    expect(packed.wide).toContain('漢字の行');
    expect(posted(nodes)).toEqual(nodes);
  });

  it('refers to a parent in the same part by position, and to the others by id', () => {
    const nodes = [node('a', null), node('b', 'a'), node('c', 'z'), node('a', 'b'), node('d', 'a')];
    const packed = packNodes(nodes);
    expect(packed.parents).toEqual([null, 0, 'z', 1, 0]);
    expect(posted(nodes)).toEqual(nodes);
  });

  it('packs an empty part', () => {
    expect(posted([])).toEqual([]);
  });

  it('matches nodes of every type and role in one part through its tables', () => {
    const nodes = ['message', 'compaction', 'branch_summary', 'custom', 'message'].map((type, i) =>
      node(`t${i}`, null, { type, ...(i % 2 ? { role: i === 1 ? 'toolResult' : 'user' } : {}) }),
    );
    const packed = packNodes(nodes);
    expect(packed.types).toEqual(['message', 'compaction', 'branch_summary', 'custom']);
    expect(packed.roles).toEqual(['toolResult', 'user']);
    expect(posted(nodes)).toEqual(nodes);
  });
});
