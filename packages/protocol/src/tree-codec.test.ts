import { ViewFlags } from '@canopy/session-core';
import { describe, expect, it } from 'vitest';
import { createValidator } from './validate';
import { NodeColumns, type TreeNode } from './node-columns';
import { decodeNodes, encodeNodes } from './tree-codec';

const nodes: TreeNode[] = [
  {
    id: 'a',
    parentId: null,
    type: 'message',
    role: 'user',
    timestamp: 't0',
    text: 'Hello World',
    search: 'hello world',
    flags: 0,
  },
  {
    id: 'b',
    parentId: 'a',
    type: 'message',
    role: 'assistant',
    timestamp: 't1',
    text: 'Reply',
    search: 'reply and more text',
    flags: ViewFlags.HasThinking | ViewFlags.HasToolCalls,
    label: 'turning point',
    labelTime: '2026-01-02T03:04:05.000Z',
    usage: { input: 1, output: 2, cacheRead: 3, cacheWrite: 4, totalTokens: 10, cost: 0.5 },
  },
  {
    id: 'c',
    parentId: 'b',
    type: 'label',
    timestamp: 't2',
    text: '[label: turning point]',
    search: '',
    flags: 0,
  },
];

describe('tree codec', () => {
  it('decodes exactly what it encoded, keeping absent fields absent', () => {
    expect(decodeNodes(encodeNodes(nodes))).toEqual(nodes);
    const decoded = decodeNodes(encodeNodes(nodes));
    expect('role' in decoded[2]!).toBe(false);
    expect(decoded[1]!.labelTime).toBe('2026-01-02T03:04:05.000Z');
    expect('labelTime' in decoded[0]!).toBe(false);
    expect('label' in decoded[0]!).toBe(false);
    expect('usage' in decoded[0]!).toBe(false);
  });

  it('interns types and roles, and leaves out search text that is the row text lower-cased', () => {
    const columns = encodeNodes(nodes);
    expect(columns.types).toEqual(['message', 'label']);
    expect(columns.roles).toEqual(['user', 'assistant']);
    expect(columns.role).toEqual([0, 1, -1]);
    expect(columns.search).toEqual([0, 'reply and more text', '']);
  });

  it('produces what the schema accepts, round-tripped through JSON', () => {
    const columns = JSON.parse(JSON.stringify(encodeNodes(nodes))) as unknown;
    expect(createValidator(NodeColumns).firstError(columns)).toBeUndefined();
    expect(decodeNodes(columns as NodeColumns)).toEqual(nodes);
  });

  it('encodes an empty batch', () => {
    expect(decodeNodes(encodeNodes([]))).toEqual([]);
  });

  it('refuses columns shorter than the count instead of leaving holes', () => {
    const columns = encodeNodes(nodes);
    columns.text.pop();
    expect(() => decodeNodes(columns)).toThrow('"text" has 2 values for 3 nodes');
  });
});
