import type { SessionListItem } from '@canopy/protocol';
import { describe, expect, it } from 'vitest';
import {
  childSessionsOf,
  emptyListText,
  lineageOf,
  matchesSessionQuery,
  sessionRows,
  sessionTitle,
} from './sessionList';

function item(id: string, mtime: number, extra: Partial<SessionListItem> = {}): SessionListItem {
  return {
    id,
    headerId: `h-${id}`,
    root: 'demo',
    path: `${id}.jsonl`,
    firstMessage: `first ${id}`,
    cwd: '/home/dev/project',
    entryCount: 3,
    messageCount: 2,
    size: 100,
    mtime,
    created: '2026-01-01T00:00:00.000Z',
    version: 3,
    parentId: null,
    issueCount: 0,
    writerActive: false,
    ...extra,
  };
}

describe('session list', () => {
  const a = item('a', 10);
  const b = item('b', 30, { parentId: 'a', name: 'Branch of A' });
  const c = item('c', 20);
  const d = item('d', 40, { parentId: 'b' });

  it('lists families by their newest activity (as pi threads /resume), children nested under their parent', () => {
    // a is older than c, but its grandchild d is the newest file of all.
    expect(sessionRows([a, b, c, d], '').map((r) => `${r.session.id}:${r.depth}`)).toEqual([
      'a:0',
      'b:1',
      'd:2',
      'c:0',
    ]);
    const e = item('e', 5, { parentId: 'c' });
    const f = item('f', 50, { parentId: 'c' });
    const g = item('g', 1, { parentId: 'e' });
    const h = item('h', 60, { parentId: 'g' });
    // Siblings by their subtree's newest activity too: e (through h at 60) before f (50).
    expect(sessionRows([c, e, f, g, h], '').map((r) => `${r.session.id}:${r.depth}`)).toEqual([
      'c:0',
      'e:1',
      'g:2',
      'h:3',
      'f:1',
    ]);
  });

  it('lists search matches flat, every token required, case-insensitive', () => {
    expect(sessionRows([a, b, c, d], 'BRANCH of').map((r) => r.session.id)).toEqual(['b']);
    expect(matchesSessionQuery(a, 'first project')).toBe(true);
    expect(matchesSessionQuery(a, 'first nothing')).toBe(false);
  });

  it('survives a lineage cycle', () => {
    const x = item('x', 1, { parentId: 'y' });
    const y = item('y', 2, { parentId: 'x' });
    expect(
      sessionRows([x, y], '')
        .map((r) => r.session.id)
        .sort(),
    ).toEqual(['x', 'y']);
    expect(lineageOf([x, y], 'x').map((s) => s.id)).toEqual(['y']);
  });

  it('finds ancestors nearest first and direct children', () => {
    expect(lineageOf([a, b, c, d], 'd').map((s) => s.id)).toEqual(['b', 'a']);
    expect(childSessionsOf([a, b, c, d], 'a').map((s) => s.id)).toEqual(['b']);
  });

  it('titles a session by name, else first message, else a placeholder', () => {
    expect(sessionTitle(b)).toBe('Branch of A');
    expect(sessionTitle(a)).toBe('first a');
    expect(sessionTitle(item('e', 1, { firstMessage: '' }))).toBe('(no messages)');
  });

  it('nests oh-my-pi subagents under their parent, but does not count them as its branches', () => {
    const parent = item('p', 3);
    const subagent = item('s', 2, { parentId: 'p', kind: 'subagent' });
    const branch = item('b', 1, { parentId: 'p' });
    expect(sessionRows([subagent, parent, branch], '').map((row) => [row.session.id, row.depth])).toEqual([
      ['p', 0],
      ['s', 1],
      ['b', 1],
    ]);
    expect(childSessionsOf([parent, subagent, branch], 'p').map((s) => s.id)).toEqual(['b']);
  });
});

describe('the empty session list', () => {
  it('names the folders it read, by their short names', () => {
    expect(emptyListText([{ name: '~/.pi/agent/sessions' }, { name: '/srv/sessions' }])).toBe(
      'No sessions in ~/.pi/agent/sessions, /srv/sessions.',
    );
  });

  it('says when none of the given paths exists (nothing was read)', () => {
    expect(emptyListText([])).toBe('No session folder to read: none of the paths Canopy was given exists.');
  });

  it('stays general until the server has said which folders it reads', () => {
    expect(emptyListText(undefined)).toBe('No sessions under the roots.');
  });
});
