// Subagent call sites (docs/archive-and-family.md#subagent-lanes): parents written by session-core
// with oh-my-pi's task calls and results, each rule of SubagentCallLedger.find, and the line filter
// a scan of a large parent uses before parsing.
import { describe, expect, it } from 'vitest';
import { SessionManager } from './session-manager';
import {
  findSubagentCallSites,
  LastEntryBefore,
  subagentLineFilter,
  SubagentCallLedger,
} from './subagent-calls';
import { assistantMsg, userMsg } from '../test/messages';
import { taskCallMsg, taskResultMsg } from '../test/task-calls';

/** An oh-my-pi session in memory whose clock moves one second per entry from 2030-01-01T00:00:00Z. */
function ompSession() {
  let now = Date.parse('2030-01-01T00:00:00.000Z') - 1000;
  return SessionManager.inMemory('/w', { dialect: 'omp', now: () => (now += 1000) });
}
const at = (second: number) => new Date(Date.parse('2030-01-01T00:00:00.000Z') + second * 1000).toISOString();

describe('subagent call sites', () => {
  it('finds a single task by its result, a batch by theirs, and an older taskId', () => {
    const sm = ompSession();
    sm.appendMessage(userMsg('scan the auth code'));
    const single = sm.appendMessage(
      taskCallMsg('call-1', { name: 'AuthScan', agent: 'explore', task: 'scan' }),
    );
    sm.appendMessage(taskResultMsg('call-1', ['AuthScan']));
    const batch = sm.appendMessage(
      taskCallMsg('call-2', {
        context: 'shared',
        tasks: [
          { name: 'Left', agent: 'explore', task: 'left' },
          { name: 'Right', agent: 'explore', task: 'right' },
        ],
      }),
    );
    sm.appendMessage(taskResultMsg('call-2', ['Left', 'Right']));
    const older = sm.appendMessage(taskCallMsg('call-3', { agent: 'explore', task: 'old' }));
    sm.appendMessage(taskResultMsg('call-3', ['0-Old'], { key: 'taskId' }));
    sm.appendMessage(assistantMsg('all done'));

    const sites = findSubagentCallSites(sm.getEntries(), [
      { stem: 'AuthScan' },
      { stem: 'Left' },
      { stem: 'Right' },
      { stem: '0-Old' },
    ]);
    expect(Object.fromEntries(sites)).toEqual({
      AuthScan: { entryId: single, toolCallId: 'call-1', rule: 'result' },
      Left: { entryId: batch, toolCallId: 'call-2', rule: 'result' },
      Right: { entryId: batch, toolCallId: 'call-2', rule: 'result' },
      '0-Old': { entryId: older, toolCallId: 'call-3', rule: 'result' },
    });
  });

  it('finds a nested subagent by its full id or its last segment, in its parent transcript', () => {
    // Anna's own transcript (Anna.jsonl) started Anna.Bob; oh-my-pi writes the full id in the result.
    const anna = ompSession();
    anna.appendMessage(userMsg('split the work'));
    const full = anna.appendMessage(taskCallMsg('call-b', { name: 'Bob', agent: 'explore', task: 'b' }));
    anna.appendMessage(taskResultMsg('call-b', ['Anna.Bob']));
    const short = anna.appendMessage(taskCallMsg('call-c', { name: 'Cy', agent: 'explore', task: 'c' }));
    anna.appendMessage(taskResultMsg('call-c', ['Cy']));
    const sites = findSubagentCallSites(anna.getEntries(), [{ stem: 'Anna.Bob' }, { stem: 'Anna.Cy' }]);
    expect(sites.get('Anna.Bob')).toEqual({ entryId: full, toolCallId: 'call-b', rule: 'result' });
    expect(sites.get('Anna.Cy')).toEqual({ entryId: short, toolCallId: 'call-c', rule: 'result' });
  });

  it('finds a running subagent (a call, no result yet) by the name its call gives', () => {
    const sm = ompSession();
    sm.appendMessage(userMsg('go'));
    const first = sm.appendMessage(taskCallMsg('call-1', { name: 'Scout', agent: 'explore', task: 'one' }));
    sm.appendMessage(taskResultMsg('call-1', ['Scout']));
    const again = sm.appendMessage(
      taskCallMsg('call-2', { context: 'c', tasks: [{ name: 'Scout', agent: 'explore', task: 'two' }] }),
    );
    // Scout-2 (the second run of the name) is still running: no result names it.
    const ledger = new SubagentCallLedger();
    for (const entry of sm.getEntries()) ledger.add(entry);
    expect(ledger.find([{ stem: 'Scout-2', startedAt: at(5) }]).get('Scout-2')).toEqual({
      entryId: again,
      toolCallId: 'call-2',
      rule: 'time',
    });
    // A running subagent named exactly as its call: the call rule, the last such call before its start.
    const running = ompSession();
    running.appendMessage(userMsg('go'));
    const call = running.appendMessage(
      taskCallMsg('call-r', { name: 'Runner', agent: 'explore', task: 'r' }),
    );
    expect(
      findSubagentCallSites(running.getEntries(), [{ stem: 'Runner', startedAt: at(3) }]).get('Runner'),
    ).toEqual({ entryId: call, toolCallId: 'call-r', rule: 'call' });
    expect(first).not.toBe(again);
  });

  it('falls back to the last task call at or before the start, and finds nothing without one', () => {
    const sm = ompSession();
    sm.appendMessage(userMsg('go')); // second 1
    const early = sm.appendMessage(taskCallMsg('call-1', { agent: 'explore', task: 'one' })); // 2
    sm.appendMessage(assistantMsg('thinking')); // 3
    const late = sm.appendMessage(taskCallMsg('call-2', { agent: 'explore', task: 'two' })); // 4
    const entries = sm.getEntries();
    const find = (startedAt: string) =>
      findSubagentCallSites(entries, [{ stem: 'Gen', startedAt }]).get('Gen');
    expect(find(at(2))).toEqual({ entryId: early, toolCallId: 'call-1', rule: 'time' });
    expect(find(at(3))).toEqual({ entryId: early, toolCallId: 'call-1', rule: 'time' });
    expect(find(at(9))).toEqual({ entryId: late, toolCallId: 'call-2', rule: 'time' });
    expect(find(at(1))).toBeUndefined();
    expect(findSubagentCallSites(entries, [{ stem: 'Gen' }]).size).toBe(0);
    const plain = ompSession();
    plain.appendMessage(userMsg('no subagents here'));
    plain.appendMessage(assistantMsg('none'));
    expect(findSubagentCallSites(plain.getEntries(), [{ stem: 'AuthScan', startedAt: at(9) }]).size).toBe(0);
  });

  it('a scan that stopped early uses the time rule only once it read past the start', () => {
    const sm = ompSession();
    sm.appendMessage(userMsg('go'));
    const call = sm.appendMessage(taskCallMsg('call-1', { agent: 'explore', task: 'one' })); // second 2
    const ledger = new SubagentCallLedger();
    for (const entry of sm.getEntries()) ledger.add(entry);
    expect(ledger.find([{ stem: 'Gen', startedAt: at(5) }], false).size).toBe(0);
    expect(ledger.find([{ stem: 'Gen', startedAt: at(1) }], false).size).toBe(0);
    expect(ledger.find([{ stem: 'Gen', startedAt: at(2) }], true).get('Gen')?.entryId).toBe(call);
    sm.appendMessage(taskCallMsg('call-2', { agent: 'explore', task: 'two' })); // second 3
    ledger.add(sm.getEntries().at(-1)!);
    expect(ledger.find([{ stem: 'Gen', startedAt: at(2) }], false).get('Gen')?.entryId).toBe(call);
  });

  it('the line filter keeps the lines that hold task calls and the stems’ results, and those give the same sites', () => {
    const sm = ompSession();
    sm.appendMessage(userMsg('please run a "task" for me'));
    const call = sm.appendMessage(
      taskCallMsg('call-1', { name: 'AuthScan', agent: 'explore', task: 'scan' }),
    );
    sm.appendMessage(taskResultMsg('call-1', ['AuthScan']));
    sm.appendMessage(taskCallMsg('call-2', { name: 'Other', agent: 'explore', task: 'other' }));
    sm.appendMessage(taskResultMsg('call-2', ['Other']));
    sm.appendMessage(assistantMsg('done'));
    const lines = sm
      .toJsonl()
      .split('\n')
      .filter((line) => line !== '');
    const keep = subagentLineFilter(['AuthScan']);
    const kept = lines.filter(keep);
    // The two calls and AuthScan's result; not the user's line, Other's result nor the header.
    expect(kept).toHaveLength(3);
    const ledger = new SubagentCallLedger();
    for (const line of kept) ledger.addLine(line);
    ledger.addLine('not json');
    expect(ledger.find([{ stem: 'AuthScan' }]).get('AuthScan')).toEqual({
      entryId: call,
      toolCallId: 'call-1',
      rule: 'result',
    });
    expect(ledger.size).toBe(2);
  });

  it('grafts an advisor at the last entry written at or before its start, from entries or lines', () => {
    const sm = ompSession();
    const u = sm.appendMessage(userMsg('go')); // second 1
    const a = sm.appendMessage(assistantMsg('first')); // 2
    sm.appendMessage(userMsg('more')); // 3
    const viaEntries = new LastEntryBefore(at(2));
    for (const entry of sm.getEntries()) viaEntries.add(entry.id, entry.timestamp);
    expect([viaEntries.entryId, viaEntries.passed]).toEqual([a, true]);
    const viaLines = new LastEntryBefore(at(1.5));
    // The header line (a `session` with an id) is no entry.
    for (const line of sm.toJsonl().split('\n')) viaLines.addLine(line);
    expect([viaLines.entryId, viaLines.passed]).toEqual([u, true]);
    const before = new LastEntryBefore(at(0));
    for (const line of sm.toJsonl().split('\n')) before.addLine(line);
    expect([before.entryId, before.passed]).toEqual([null, true]);
    const after = new LastEntryBefore(at(9));
    for (const entry of sm.getEntries()) after.add(entry.id, entry.timestamp);
    expect(after.passed).toBe(false);
  });
});
