import { SessionManager, ToolCallIndex, type SessionEntry } from '@canopy/session-core';
import { describe, expect, it } from 'vitest';
import { assistantMsg, entryFactory, userMsg } from '../../../../packages/session-core/test/messages';
import { buildSkeletonNodes, SkeletonCache } from './skeleton';

const HOME = '/home/dev';
const HEADER = JSON.stringify({
  type: 'session',
  version: 3,
  id: 'skeleton-cache-test',
  timestamp: '2025-01-01T00:00:00.000Z',
  cwd: '/home/dev/project',
});

function jsonl(entries: SessionEntry[]): string {
  return entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
}

/** Nodes of the whole text, built from scratch as a first open would. */
function freshNodes(text: string) {
  const sm = SessionManager.fromJsonl(text);
  return buildSkeletonNodes(sm.getEntries(), (id) => sm.getLabel(id), new ToolCallIndex(), HOME);
}

function toolCallMsg(callId: string, name: string, args: Record<string, unknown>) {
  return assistantMsg('', {
    content: [{ type: 'toolCall', id: callId, name, arguments: args }],
    stopReason: 'toolUse',
  });
}

function toolResultMsg(callId: string, toolName: string) {
  return {
    role: 'toolResult',
    toolCallId: callId,
    toolName,
    content: [{ type: 'text', text: 'output' }],
    isError: false,
    timestamp: 0,
  };
}

describe('SkeletonCache', () => {
  it('after appends, label changes and a late tool call it equals a fresh build of the same file, and reuses untouched nodes', () => {
    const entry = entryFactory();
    const first = [
      entry('message', 'u1', null, { message: userMsg('start') }),
      entry('message', 'a1', 'u1', { message: toolCallMsg('call-1', 'read', { path: '/home/dev/x.ts' }) }),
      entry('message', 'r1', 'a1', { message: toolResultMsg('call-1', 'read') }),
      // Its call only arrives in a later batch (a reordered file): rendered without it for now.
      entry('message', 'r2', 'r1', { message: toolResultMsg('call-late', 'bash') }),
      entry('message', 'u2', 'r2', { message: userMsg('next') }),
    ];
    let text = `${HEADER}\n${jsonl(first)}`;
    const sm = SessionManager.fromJsonl(text);
    const cache = new SkeletonCache(HOME);
    expect(cache.jsonOf(sm)).toBe(JSON.stringify(freshNodes(text)));
    const before = cache.nodesOf(sm);
    const u2Node = before[4];
    expect(before[3]!.text).toBe('[bash]');

    const second = [
      entry('label', 'l1', 'u2', { targetId: 'u1', label: 'origin' }),
      entry('message', 'a2', 'l1', { message: toolCallMsg('call-late', 'bash', { command: 'ls -la' }) }),
      entry('message', 'u3', 'a2', { message: userMsg('third') }),
    ];
    sm.ingest(jsonl(second));
    text += jsonl(second);
    const afterSecond = cache.nodesOf(sm);
    expect(afterSecond).toEqual(freshNodes(text));
    expect(afterSecond[0]!.label).toBe('origin');
    expect(afterSecond[3]!.text).toBe('[bash: ls -la]');
    expect(afterSecond[4]).toBe(u2Node);
    expect(cache.jsonOf(sm)).toBe(JSON.stringify(freshNodes(text)));

    const third = [
      // Cleared (no label key), moved to another entry, and set on an id that is not there yet.
      entry('label', 'l2', 'u3', { targetId: 'u1' }),
      entry('label', 'l3', 'l2', { targetId: 'a2', label: 'call' }),
      entry('label', 'l4', 'l3', { targetId: 'u9', label: 'early' }),
    ];
    sm.ingest(jsonl(third));
    text += jsonl(third);
    expect(cache.jsonOf(sm)).toBe(JSON.stringify(freshNodes(text)));
    expect(cache.nodesOf(sm)[0]!.label).toBeUndefined();

    const fourth = [entry('message', 'u9', 'l4', { message: userMsg('late target') })];
    sm.ingest(jsonl(fourth));
    text += jsonl(fourth);
    // Appends without a re-render extend the cached text instead of rebuilding it.
    expect(cache.jsonOf(sm)).toBe(JSON.stringify(freshNodes(text)));
    expect(cache.nodesOf(sm).at(-1)).toMatchObject({ id: 'u9', label: 'early', text: 'user: late target' });
  });

  it('a different manager for the session (a reload) is built from scratch, even with as many entries', () => {
    const entry = entryFactory();
    const original = `${HEADER}\n${jsonl([entry('message', 'u1', null, { message: userMsg('before') })])}`;
    const replaced = `${HEADER}\n${jsonl([entry('message', 'v1', null, { message: userMsg('after') })])}`;
    const cache = new SkeletonCache(HOME);
    expect(cache.nodesOf(SessionManager.fromJsonl(original)).map((node) => node.id)).toEqual(['u1']);
    const reloaded = SessionManager.fromJsonl(replaced);
    expect(cache.nodesOf(reloaded)).toEqual(freshNodes(replaced));
    expect(cache.jsonOf(reloaded)).toBe(JSON.stringify(freshNodes(replaced)));
  });

  it('an empty session serializes as an empty array and grows from it', () => {
    const sm = SessionManager.fromJsonl(`${HEADER}\n`);
    const cache = new SkeletonCache(HOME);
    expect(cache.jsonOf(sm)).toBe('[]');
    const entry = entryFactory();
    const line = jsonl([entry('message', 'u1', null, { message: userMsg('hello') })]);
    sm.ingest(line);
    expect(cache.jsonOf(sm)).toBe(JSON.stringify(freshNodes(`${HEADER}\n${line}`)));
  });
});
