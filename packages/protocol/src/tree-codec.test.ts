import { ViewFlags } from '@canopy/session-core';
import { describe, expect, it } from 'vitest';
import { createValidator } from './validate';
import { NodeChunkHead, NodeColumns, type TreeNode } from './node-columns';
import { decodeNodes, encodeNodeChunk, encodeNodes, parseSnapshotText, textSpans } from './tree-codec';

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
    expect('label' in decoded[0]!).toBe(false);
    expect('usage' in decoded[0]!).toBe(false);
  });

  it('interns types and roles, and carries every text in one string with its length', () => {
    const columns = encodeNodes(nodes);
    expect(columns.types).toEqual(['message', 'label']);
    expect(columns.roles).toEqual(['user', 'assistant']);
    expect(columns.role).toEqual([0, 1, -1]);
    expect(columns.latin1).toBe(
      't0Hello Worldhello world' + 't1Replyreply and more text' + 't2[label: turning point]',
    );
    expect(columns.wide).toBe('');
    expect(columns.lengths).toEqual([2, 11, 11, 2, 5, 19, 2, 22, 0]);
  });

  it('puts only the texts with a character past U+00FF in the wide string', () => {
    const wide: TreeNode[] = [
      { ...nodes[0]!, text: 'café ✓ done', search: 'café ✓ done' },
      { ...nodes[2]!, text: 'naïve', search: '😀' },
    ];
    const columns = encodeNodes(wide);
    expect(columns.latin1).toBe('t0' + 't2naïve');
    expect(columns.wide).toBe('café ✓ donecafé ✓ done😀');
    expect(columns.lengths).toEqual([2, -12, -12, 2, 5, -3]);
    expect(decodeNodes(columns)).toEqual(wide);
    expect(textSpans(columns)).toEqual({
      starts: Uint32Array.from([0, 0, 11, 2, 4, 22]),
      ends: Uint32Array.from([2, 11, 22, 4, 9, 24]),
      inWide: Uint8Array.from([0, 1, 1, 0, 0, 1]),
    });
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
    columns.flags.pop();
    expect(() => decodeNodes(columns)).toThrow('"flags" has 2 values for 3 nodes');
    const lengths = encodeNodes(nodes);
    lengths.lengths.pop();
    expect(() => decodeNodes(lengths)).toThrow('"lengths" has 8 values for 3 nodes');
  });

  it('refuses lengths that do not add up to the texts', () => {
    const columns = encodeNodes(nodes);
    columns.latin1 += 'x';
    expect(() => decodeNodes(columns)).toThrow(
      'the texts\' lengths add up to 74 and 0 characters, not the 75 and 0 of "latin1" and "wide"',
    );
  });

  it('writes a node chunk as a head line, then its texts as they are, read back exactly', () => {
    const wide: TreeNode[] = [
      ...nodes,
      { ...nodes[0]!, id: 'd', text: 'line\n"quoted" ✓', search: 'tab\there' },
    ];
    const chunk = encodeNodeChunk(wide);
    const columns = encodeNodes(wide);
    const [head, texts, end] = [
      chunk.slice(0, chunk.indexOf('\n')),
      chunk.slice(chunk.indexOf('\n') + 1, -1),
      chunk.at(-1),
    ];
    expect(createValidator(NodeChunkHead).firstError(JSON.parse(head))).toBeUndefined();
    expect(JSON.parse(head)).toMatchObject({
      latin1Chars: columns.latin1.length,
      wideChars: columns.wide.length,
    });
    // The texts are written as they are: no escapes, newlines and quotes included.
    expect(texts).toBe(columns.latin1 + columns.wide);
    expect(end).toBe('\n');
    const [read] = parseSnapshotText(`${chunk}`) as NodeColumns[];
    expect(createValidator(NodeColumns).firstError(read)).toBeUndefined();
    expect(decodeNodes(read!)).toEqual(wide);
    // Between other lines, in a whole body.
    expect(parseSnapshotText(`{"a":1}\n${chunk}${chunk}{"b":2}\n`)).toEqual([{ a: 1 }, read, read, { b: 2 }]);
  });

  it('sends a chunk whose texts hold a lone surrogate as a line of columns (UTF-8 cannot carry it)', () => {
    const lone: TreeNode[] = [{ ...nodes[0]!, text: 'half \udc00 of a pair', search: '\ud83c' }, nodes[1]!];
    const chunk = encodeNodeChunk(lone);
    expect(chunk.split('\n')).toEqual([JSON.stringify(encodeNodes(lone)), '']);
    expect(decodeNodes(parseSnapshotText(chunk)[0] as NodeColumns)).toEqual(lone);
    // A whole pair is no lone surrogate.
    expect(encodeNodeChunk([{ ...nodes[0]!, text: '🌲' }])).toContain('"latin1Chars"');
  });

  it('refuses a chunk whose texts are not followed by a newline where its head says they end', () => {
    const chunk = encodeNodeChunk(nodes).replace('"wideChars":0', '"wideChars":1');
    expect(() => parseSnapshotText(chunk)).toThrow(
      'node chunk: its 75 characters of text are not followed by a newline',
    );
  });
});
