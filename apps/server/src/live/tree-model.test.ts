import { decodeNodes, encodeNodes, type NodeColumns } from '@canopy/protocol';
import { SessionManager, type SessionEntry } from '@canopy/session-core';
import { describe, expect, it, vi } from 'vitest';
import { assistantMsg, entryFactory, userMsg } from '../../../../packages/session-core/test/messages';
import { CHUNK_NODES, FIRST_CHUNK_NODES, nodeChunkLines, RowToolCalls, TreeModel } from './tree-model';
import { freshTreeNodes } from '../../test/fresh-nodes';

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
  return freshTreeNodes(sm, HOME);
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

/**
 * A manager of `text` that feeds `model` through `onEntries`, as an open session's does; with
 * 'index' it reads its entries back from `file.text`, which the test extends as it ingests.
 */
function feeding(model: TreeModel, file: { text: string }, retain: 'all' | 'index' = 'all'): SessionManager {
  const sm = SessionManager.fromJsonl(file.text, {
    retain,
    readRange: (offset, length) => Buffer.from(file.text, 'utf8').subarray(offset, offset + length),
    onEntries: (entries, firstIndex) => model.receive(entries, firstIndex),
  });
  // The whole entry list is what the model must never need (an index session reads it all back).
  vi.spyOn(sm, 'getEntries').mockImplementation(() => {
    throw new Error('the tree model asked for every entry');
  });
  return sm;
}

/** The model's snapshot as the route streams it, decoded back into nodes. */
function chunkedNodes(model: TreeModel) {
  return [...nodeChunkLines(model.snapshot())].flatMap((chunk) =>
    decodeNodes(JSON.parse(chunk) as NodeColumns),
  );
}

describe('TreeModel', () => {
  it.each(['all', 'index'] as const)(
    '(retain %s) after appends, label changes and a late tool call it equals a fresh build of the same file, and each sync answers exactly the nodes added and re-rendered, never asking for every entry',
    (retain) => {
      const entry = entryFactory();
      const first = [
        entry('message', 'u1', null, { message: userMsg('start') }),
        entry('message', 'a1', 'u1', { message: toolCallMsg('call-1', 'read', { path: '/home/dev/x.ts' }) }),
        entry('message', 'r1', 'a1', { message: toolResultMsg('call-1', 'read') }),
        // Its call only arrives in a later batch (a reordered file): rendered without it for now.
        entry('message', 'r2', 'r1', { message: toolResultMsg('call-late', 'bash') }),
        entry('message', 'u2', 'r2', { message: userMsg('next') }),
      ];
      const file = { text: `${HEADER}\n${jsonl(first)}` };
      let text = file.text;
      const model = new TreeModel(HOME);
      const sm = feeding(model, file, retain);
      expect(model.sync(sm)).toEqual({ added: freshNodes(text), changed: [] });
      expect(chunkedNodes(model)).toEqual(freshNodes(text));
      const u2Node = model.all[4];
      expect(model.all[3]!.text).toBe('[bash]');

      const second = [
        entry('label', 'l1', 'u2', { targetId: 'u1', label: 'origin' }),
        entry('message', 'a2', 'l1', { message: toolCallMsg('call-late', 'bash', { command: 'ls -la' }) }),
        entry('message', 'u3', 'a2', { message: userMsg('third') }),
      ];
      file.text += jsonl(second);
      text = file.text;
      sm.ingest(jsonl(second));
      const delta = model.sync(sm);
      const fresh = freshNodes(text);
      expect(delta.added).toEqual(fresh.slice(5));
      // The labelled node and the tool result whose call arrived, in file order.
      expect(delta.changed).toEqual([fresh[0], fresh[3]]);
      expect(delta.changed.map((node) => [node.label, node.labelTime, node.text])).toEqual([
        // The label's time is its label entry's (Shift+T shows it).
        ['origin', second[0]!.timestamp, 'user: start'],
        [undefined, undefined, '[bash: ls -la]'],
      ]);
      expect(model.all).toEqual(fresh);
      expect(model.all[4]).toBe(u2Node);
      expect(chunkedNodes(model)).toEqual(fresh);

      const third = [
        // Cleared (no label key), moved to another entry, and set on an id that is not there yet.
        entry('label', 'l2', 'u3', { targetId: 'u1' }),
        entry('label', 'l3', 'l2', { targetId: 'a2', label: 'call' }),
        entry('label', 'l4', 'l3', { targetId: 'u9', label: 'early' }),
      ];
      file.text += jsonl(third);
      text = file.text;
      sm.ingest(jsonl(third));
      const cleared = model.sync(sm);
      expect(cleared.changed.map((node) => [node.id, node.label, node.labelTime])).toEqual([
        ['u1', undefined, undefined],
        ['a2', 'call', third[1]!.timestamp],
      ]);
      expect(chunkedNodes(model)).toEqual(freshNodes(text));

      const fourth = [entry('message', 'u9', 'l4', { message: userMsg('late target') })];
      file.text += jsonl(fourth);
      text = file.text;
      sm.ingest(jsonl(fourth));
      expect(model.sync(sm)).toEqual({ added: freshNodes(text).slice(-1), changed: [] });
      expect(chunkedNodes(model)).toEqual(freshNodes(text));
      expect(model.all.at(-1)).toMatchObject({ id: 'u9', label: 'early', text: 'user: late target' });
      expect(model.sync(sm)).toEqual({ added: [], changed: [] });
    },
  );

  it('a different manager for the session (a reload) is built from scratch, even with as many entries', () => {
    const entry = entryFactory();
    const original = `${HEADER}\n${jsonl([entry('message', 'u1', null, { message: userMsg('before') })])}`;
    const replaced = `${HEADER}\n${jsonl([entry('message', 'v1', null, { message: userMsg('after') })])}`;
    const model = new TreeModel(HOME);
    model.sync(feeding(model, { text: original }));
    expect(model.all.map((node) => node.id)).toEqual(['u1']);
    const reloaded = feeding(model, { text: replaced });
    expect(model.sync(reloaded).added).toEqual(freshNodes(replaced));
    expect(chunkedNodes(model)).toEqual(freshNodes(replaced));
    // A reload to an empty file leaves no nodes.
    expect(model.sync(feeding(model, { text: `${HEADER}\n` })).added).toEqual([]);
    expect(model.all).toEqual([]);
  });

  it('a tool result whose call arrives in a later batch before the next sync is added rendered with its call, not reported as changed', () => {
    const entry = entryFactory();
    const result = entry('message', 'r1', null, { message: toolResultMsg('call-1', 'bash') });
    const call = entry('message', 'a1', 'r1', { message: toolCallMsg('call-1', 'bash', { command: 'ls' }) });
    const file = { text: `${HEADER}\n` };
    const model = new TreeModel(HOME);
    const sm = feeding(model, file, 'index');
    model.sync(sm);
    // Two ingests, two batches, one sync.
    for (const line of [jsonl([result]), jsonl([call])]) {
      file.text += line;
      sm.ingest(line);
    }
    expect(model.sync(sm)).toEqual({ added: freshNodes(file.text), changed: [] });
    expect(model.all[0]!.text).toBe('[bash: ls]');
  });

  it('entries that do not follow the ones received (a lost batch) are refused, never rendered in the wrong place', () => {
    const entry = entryFactory();
    const model = new TreeModel(HOME);
    model.receive([entry('message', 'u1', null, { message: userMsg('one') })], 0);
    model.receive([entry('message', 'u2', 'u1', { message: userMsg('two') })], 1);
    expect(() => model.receive([entry('message', 'u4', 'u2', { message: userMsg('four') })], 3)).toThrow(
      'internal: tree model received entries at 3, expected 2',
    );
  });

  it('an empty session has no chunks and grows from none', () => {
    const model = new TreeModel(HOME);
    const sm = feeding(model, { text: `${HEADER}\n` });
    model.sync(sm);
    expect([...nodeChunkLines(model.snapshot())]).toEqual([]);
    const entry = entryFactory();
    const line = jsonl([entry('message', 'u1', null, { message: userMsg('hello') })]);
    sm.ingest(line);
    model.sync(sm);
    expect(chunkedNodes(model)).toEqual(freshNodes(`${HEADER}\n${line}`));
  });

  it('the snapshot streams CHUNK_NODES nodes a line, each line encoded only when asked for, and together they equal the encode of all nodes at once', () => {
    const entry = entryFactory();
    const entries: SessionEntry[] = [];
    let parent: string | null = null;
    for (let i = 0; i < 2 * CHUNK_NODES + 10; i++) {
      entries.push(entry('message', `m${i}`, parent, { message: userMsg(`message ${i}`) }));
      parent = `m${i}`;
    }
    entries.push(entry('label', 'l1', parent, { targetId: 'm1', label: 'first chunk' }));
    const model = new TreeModel(HOME);
    const sm = feeding(model, { text: `${HEADER}\n${jsonl(entries)}` }, 'index');
    model.sync(sm);
    const nodes = model.snapshot();
    const stringify = vi.spyOn(JSON, 'stringify');
    const lines = nodeChunkLines(nodes);
    const first = lines.next();
    // One chunk is encoded when the first line is taken, not the whole tree.
    expect(stringify).toHaveBeenCalledTimes(1);
    stringify.mockRestore();
    const all = [first.value as string, ...lines];
    expect(all.map((line) => (JSON.parse(line) as NodeColumns).count)).toEqual([
      CHUNK_NODES,
      CHUNK_NODES,
      11,
    ]);
    const whole = decodeNodes(JSON.parse(JSON.stringify(encodeNodes(nodes))) as NodeColumns);
    expect(all.flatMap((line) => decodeNodes(JSON.parse(line) as NodeColumns))).toEqual(whole);
    expect(whole).toEqual(freshNodes(`${HEADER}\n${jsonl(entries)}`));
    // A snapshot's first line is shorter (the browser's first rows), the rest as before.
    const short = [...nodeChunkLines(nodes, FIRST_CHUNK_NODES)];
    expect(short.map((line) => (JSON.parse(line) as NodeColumns).count)).toEqual([
      FIRST_CHUNK_NODES,
      CHUNK_NODES,
      CHUNK_NODES - FIRST_CHUNK_NODES + 11,
    ]);
    expect(short.flatMap((line) => decodeNodes(JSON.parse(line) as NodeColumns))).toEqual(whole);
  });

  it('a snapshot taken before a label and an append still encodes the state it was taken at', () => {
    const entry = entryFactory();
    const first = [
      entry('message', 'u1', null, { message: userMsg('one') }),
      entry('message', 'u2', 'u1', { message: userMsg('two') }),
    ];
    const file = { text: `${HEADER}\n${jsonl(first)}` };
    const before = file.text;
    const model = new TreeModel(HOME);
    const sm = feeding(model, file, 'index');
    model.sync(sm);
    const snapshot = model.snapshot();
    const more = jsonl([
      entry('label', 'l1', 'u2', { targetId: 'u1', label: 'later' }),
      entry('message', 'u3', 'u2', { message: userMsg('three') }),
    ]);
    file.text += more;
    sm.ingest(more);
    const delta = model.sync(sm);
    expect(delta.changed.map((node) => [node.id, node.label])).toEqual([['u1', 'later']]);
    const sent = [...nodeChunkLines(snapshot)].flatMap((line) =>
      decodeNodes(JSON.parse(line) as NodeColumns),
    );
    expect(sent).toEqual(freshNodes(before));
    expect(chunkedNodes(model)).toEqual(freshNodes(file.text));
    // Snapshots share one list until the next change; the list of one taken earlier never moves.
    const after = model.snapshot();
    expect(model.snapshot()).toBe(after);
    expect(after).not.toBe(snapshot);
    expect(after.map((node) => node.id)).toEqual(['u1', 'u2', 'l1', 'u3']);
    expect(snapshot.map((node) => node.id)).toEqual(['u1', 'u2']);
  });

  it("keeps of each tool call only its name and its result's row, and every row reads as with all arguments kept", () => {
    const entry = entryFactory();
    const big = 'x'.repeat(50_000);
    const calls: Array<[string, Record<string, unknown>]> = [
      ['read', { path: '/home/dev/a.ts', offset: 10, limit: 5, extra: big }],
      ['write', { path: '/home/dev/b.ts', content: big }],
      ['edit', { file_path: '/home/dev/c.ts', oldText: big, newText: big }],
      ['bash', { command: `echo ${'y'.repeat(80)}`, timeout: 5 }],
      ['grep', { pattern: 'needle', path: '/home/dev', glob: big }],
      ['find', { pattern: '*.ts', extra: big }],
      ['ls', { path: '/home/dev/src', all: true }],
      ['custom_tool', { anything: 'kept whole', more: 1 }],
    ];
    const entries: SessionEntry[] = [];
    let parent: string | null = null;
    calls.forEach(([name, args], i) => {
      entries.push(entry('message', `a${i}`, parent, { message: toolCallMsg(`c${i}`, name, args) }));
      entries.push(entry('message', `r${i}`, `a${i}`, { message: toolResultMsg(`c${i}`, name) }));
      parent = `r${i}`;
    });
    const text = `${HEADER}\n${jsonl(entries)}`;
    const model = new TreeModel(HOME);
    model.sync(feeding(model, { text }, 'index'));
    expect(model.all).toEqual(freshNodes(text));
    expect(model.all.find((node) => node.id === 'r1')!.text).toBe('[write: ~/b.ts]');
    const kept = new RowToolCalls(HOME);
    kept.addEntries(entries);
    expect(calls.map((_, i) => kept.get(`c${i}`))).toEqual([
      { name: 'read', arguments: undefined, row: '[read: ~/a.ts:10-14]' },
      { name: 'write', arguments: undefined, row: '[write: ~/b.ts]' },
      { name: 'edit', arguments: undefined, row: '[edit: ~/c.ts]' },
      { name: 'bash', arguments: undefined, row: `[bash: echo ${'y'.repeat(45)}...]` },
      { name: 'grep', arguments: undefined, row: '[grep: /needle/ in ~]' },
      { name: 'find', arguments: undefined, row: '[find: *.ts in .]' },
      { name: 'ls', arguments: undefined, row: '[ls: ~/src]' },
      { name: 'custom_tool', arguments: undefined, row: '[custom_tool: {"anything":"kept whole","more":1}]' },
    ]);
  });
});

describe('TreeModel subagent calls', () => {
  it.each(['all', 'index'] as const)(
    '(retain %s) its ledger finds a subagent call site from the entries fed once, appends included, and starts over with the model',
    (retain) => {
      const entry = entryFactory();
      const file = {
        text:
          `${HEADER}\n` +
          jsonl([
            entry('message', 'u1', null, { message: userMsg('go') }),
            entry('message', 'a1', 'u1', {
              message: toolCallMsg('call-1', 'task', { name: 'AuthScan', agent: 'explore', task: 'scan' }),
            }),
          ]),
      };
      const model = new TreeModel(HOME);
      const sm = feeding(model, file, retain);
      model.sync(sm);
      expect(model.subagentCalls.find([{ stem: 'AuthScan' }]).get('AuthScan')).toEqual({
        entryId: 'a1',
        toolCallId: 'call-1',
        rule: 'call',
      });
      const appended = jsonl([
        entry('message', 'r1', 'a1', {
          message: { ...toolResultMsg('call-1', 'task'), details: { results: [{ id: 'AuthScan' }] } },
        }),
      ]);
      file.text += appended;
      sm.ingest(appended);
      model.sync(sm);
      expect(model.subagentCalls.find([{ stem: 'AuthScan' }]).get('AuthScan')?.rule).toBe('result');
      model.clear();
      expect(model.subagentCalls.size).toBe(0);
    },
  );
});
