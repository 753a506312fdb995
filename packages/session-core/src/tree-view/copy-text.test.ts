// entryCopyText and formatLabelTime against pi 1.6.0's tree selector (`getEntryCopyText`,
// `formatLabelTimestamp`) on a session its own SessionManager wrote.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionEntry } from '../types';
import { entryCopyText, formatLabelTime } from './copy-text';
import { assistantMsg } from '../../test/messages';
import * as pi16 from '../../test/pi16';

interface RefNode {
  entry: { id: string };
  children: RefNode[];
}
interface RefTreeList {
  getEntryCopyText(node: RefNode): string | undefined;
  formatLabelTimestamp(timestamp: string): string;
}

beforeAll(() => pi16.initTheme('dark'));

function referenceList(sm: ReturnType<typeof pi16.SessionManager.inMemory>): RefTreeList {
  const component = new pi16.TreeSelectorComponent(
    sm.getTree(),
    sm.getLeafId(),
    40,
    () => {},
    () => {},
  );
  return component.getTreeList() as unknown as RefTreeList;
}

describe('entryCopyText', () => {
  it('copies what pi 1.6 copies for every kind of entry', () => {
    const sm = pi16.SessionManager.inMemory('/tmp/project');
    sm.appendMessage({ role: 'user', content: 'a question\nin two lines', timestamp: 1 });
    sm.appendMessage(assistantMsg('an answer') as never);
    sm.appendMessage(
      assistantMsg('', { content: [], stopReason: 'error', errorMessage: 'overloaded' }) as never,
    );
    sm.appendMessage(assistantMsg('', { content: [{ type: 'text', text: '   ' }] }) as never);
    sm.appendMessage({
      role: 'toolResult',
      toolCallId: 'c1',
      toolName: 'read',
      content: [{ type: 'text', text: 'file body' }],
      isError: false,
      timestamp: 1,
    } as never);
    sm.appendMessage({
      role: 'bashExecution',
      command: 'ls -la',
      output: 'x',
      exitCode: 0,
      timestamp: 1,
    } as never);
    sm.appendCustomMessageEntry('note', [{ type: 'text', text: 'custom text' }], true);
    sm.appendModelChange('anthropic', 'claude');
    sm.appendCompaction('what happened so far', null, 1234);
    const first = sm.getEntries()[0]!.id;
    sm.appendLabelChange(first, 'start');
    sm.branchWithSummary(first, 'the branch left');
    const reference = referenceList(sm);
    const nodes: RefNode[] = [];
    const walk = (list: RefNode[]) => list.forEach((node) => (nodes.push(node), walk(node.children)));
    walk(sm.getTree() as unknown as RefNode[]);
    const byId = new Map(nodes.map((node) => [node.entry.id, node]));
    const entries = sm.getEntries() as unknown as SessionEntry[];
    expect(entries.length).toBe(11);
    for (const entry of entries)
      expect(entryCopyText(entry), `${entry.type} ${entry.id}`).toBe(
        reference.getEntryCopyText(byId.get(entry.id)!),
      );
    // Spot checks of what the comparison covered.
    expect(entries.map(entryCopyText)).toEqual([
      'a question\nin two lines',
      'an answer',
      'overloaded',
      undefined,
      'file body',
      'ls -la',
      'custom text',
      undefined,
      'what happened so far',
      undefined,
      'the branch left',
    ]);
  });
});

describe('formatLabelTime', () => {
  it('writes a label time as pi 1.6 does, today, this year and before', () => {
    const RealDate = Date;
    const now = new RealDate(2026, 10, 20, 15, 30);
    const reference = referenceList(pi16.SessionManager.inMemory('/tmp/project'));
    const stamps = [
      new RealDate(2026, 10, 20, 9, 5).toISOString(),
      new RealDate(2026, 10, 19, 23, 59).toISOString(),
      new RealDate(2026, 0, 2, 0, 0).toISOString(),
      new RealDate(2025, 11, 31, 12, 7).toISOString(),
    ];
    // pi reads the current time from `new Date()`: route it to the same instant.
    globalThis.Date = class extends RealDate {
      constructor(...args: unknown[]) {
        if (args.length === 0) super(now.getTime());
        else super(...(args as [string]));
      }
    } as DateConstructor;
    let theirs: string[];
    try {
      theirs = stamps.map((stamp) => reference.formatLabelTimestamp(stamp));
    } finally {
      globalThis.Date = RealDate;
    }
    expect(stamps.map((stamp) => formatLabelTime(stamp, now))).toEqual(theirs);
    expect(theirs).toEqual(['09:05', '11/19 23:59', '1/2 00:00', '25/12/31 12:07']);
    expect(formatLabelTime('not a time', now)).toBe('');
  });
});
