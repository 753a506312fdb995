// The tree model's archive flags (docs/archive-and-family.md#archive): set by archive and restore
// records as they arrive, equal to a fresh load of the same file at every step, and sent as changes.
import { ARCHIVE_CUSTOM_TYPE, SessionManager, ViewFlags, type SessionEntry } from '@canopy/session-core';
import { describe, expect, it } from 'vitest';
import { assistantMsg, entryFactory, userMsg } from '../../../../packages/session-core/test/messages';
import { TreeModel } from './tree-model';

const HOME = '/home/dev';
const HEADER = JSON.stringify({
  type: 'session',
  version: 3,
  id: 'archive-flags-test',
  timestamp: '2025-01-01T00:00:00.000Z',
  cwd: '/home/dev/project',
});
const T = ViewFlags.ArchiveTarget;

function jsonl(entries: SessionEntry[]): string {
  return entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
}

function load(text: string, retain: 'all' | 'index'): { model: TreeModel; sm: SessionManager } {
  const model = new TreeModel(HOME);
  const sm = SessionManager.fromJsonl(text, {
    retain,
    readRange: (offset, length) => Buffer.from(text, 'utf8').subarray(offset, offset + length),
    onEntries: (entries, firstIndex) => model.receive(entries, firstIndex),
  });
  model.sync(sm);
  return { model, sm };
}

function archiveBits(model: TreeModel): Record<string, number> {
  return Object.fromEntries(model.all.map((node) => [node.id, node.flags & T]));
}

describe('TreeModel archive flags', () => {
  it.each(['all', 'index'] as const)(
    '(retain %s) follow archive and restore records and appends, as a fresh load of the file does',
    (retain) => {
      const entry = entryFactory();
      const record = (id: string, parentId: string, targetId: string, archived: boolean) =>
        entry('custom', id, parentId, { customType: ARCHIVE_CUSTOM_TYPE, data: { targetId, archived } });
      const first = [
        entry('message', 'u1', null, { message: userMsg('start') }),
        entry('message', 'a1', 'u1', { message: assistantMsg('hi') }),
        entry('message', 'u2', 'a1', { message: userMsg('abandoned') }),
        entry('message', 'a2', 'u2', { message: assistantMsg('there') }),
        entry('message', 'u3', 'a1', { message: userMsg('kept') }),
      ];
      let text = `${HEADER}\n${jsonl(first)}`;
      const { model, sm } = load(text, retain);
      expect(Object.values(archiveBits(model)).every((bits) => bits === 0)).toBe(true);

      const steps: [SessionEntry[], Record<string, number>, string[]][] = [
        // One node changes per record, whatever the branch's size: the page derives the rest.
        [[record('c1', 'u3', 'u2', true)], { u2: T }, ['u2']],
        // Another program appends under the archived branch: its own node carries no flag.
        [[entry('message', 'u4', 'a2', { message: userMsg('late') })], { u2: T }, []],
        [[record('c2', 'c1', 'u2', false)], {}, ['u2']],
        [[record('c3', 'c2', 'a2', true), record('c4', 'c3', 'gone', true)], { a2: T }, ['a2']],
        // oh-my-pi's own record archives the outer branch: the inner record stays.
        [[entry('archive', 'o1', 'c4', { targetId: 'u2', archived: true })], { u2: T, a2: T }, ['u2']],
      ];
      for (const [entries, expected, changed] of steps) {
        text += jsonl(entries);
        sm.ingest(jsonl(entries));
        const delta = model.sync(sm);
        expect(delta.changed.map((node) => node.id)).toEqual(changed);
        const bits = archiveBits(model);
        for (const [id, value] of Object.entries(bits)) expect([id, value]).toEqual([id, expected[id] ?? 0]);
        expect(model.all).toEqual(load(text, retain).model.all);
      }
      expect(model.archiveLedger.unknownTargets((id) => sm.getShape(id) !== undefined)).toEqual(['gone']);
    },
  );

  it('never changes a node a snapshot holds: a changed node is a new object', () => {
    const entry = entryFactory();
    const first = [
      entry('message', 'u1', null, { message: userMsg('start') }),
      entry('message', 'u2', 'u1', { message: userMsg('branch') }),
    ];
    const text = `${HEADER}\n${jsonl(first)}`;
    const { model, sm } = load(text, 'all');
    const snapshot = model.snapshot();
    const before = snapshot[1]!;
    const line = jsonl([
      entry('custom', 'c1', 'u1', {
        customType: ARCHIVE_CUSTOM_TYPE,
        data: { targetId: 'u2', archived: true },
      }),
    ]);
    sm.ingest(line);
    model.sync(sm);
    expect(before.flags & T).toBe(0);
    expect(model.all[1]!.flags & T).toBe(T);
  });
});
