import { describe, expect, it } from 'vitest';
import { usage } from '../../../fixtures/src/messages';
import { usageNumbersOf } from '../entry-types';
import { TWO_APPROACHES_TEXTS } from '../../test/fixtures';
import {
  alignTurns,
  commonAncestor,
  compareBranches,
  laneTurns,
  rollUpLane,
  sharedPrefixLength,
} from './compare';
import { loadTwoApproaches, type TwoApproachesName } from '../../test/two-approaches';

const WRITERS: TwoApproachesName[] = ['two-approaches-pi16.jsonl', 'two-approaches-pi073.jsonl'];

function numbers(u: ReturnType<typeof usage>) {
  return {
    input: u.input,
    output: u.output,
    cacheRead: u.cacheRead,
    cacheWrite: u.cacheWrite,
    totalTokens: u.totalTokens,
    cost: u.cost.total,
  };
}

describe.each(WRITERS)('compare on %s', (name) => {
  const { ids, path, session } = loadTwoApproaches(name);
  const a = path(ids.answerA as string);
  const b = path(ids.answerB as string);

  it('finds the common ancestor where the lanes split (the plan)', () => {
    expect(commonAncestor(a, b)).toBe(ids.plan);
    expect(a[sharedPrefixLength(a, b) - 1]?.id).toBe(ids.plan);
    expect(commonAncestor(a, a.slice(0, 2))).toBe(a[1]?.id);
    expect(commonAncestor(a, [])).toBeNull();
  });

  it('cuts each lane at its user turns and aligns the turns with the same user text', () => {
    const result = compareBranches(a, b);
    expect(result.a.turns.map((t) => t.userId)).toEqual([ids.tryA, ids.runTestsA]);
    const bUsers = result.b.turns.map((t) => t.userId);
    expect(bUsers.slice(-2)).toEqual([ids.tryB, ids.runTestsB]);
    // "Run the tests." opens a turn in both lanes: one row, marked the same.
    const same = result.rows.filter((r) => r.same);
    expect(same).toHaveLength(1);
    expect(result.a.turns[same[0]?.a as number]?.userId).toBe(ids.runTestsA);
    expect(result.b.turns[same[0]?.b as number]?.userId).toBe(ids.runTestsB);
    // Every turn appears exactly once, in order.
    expect(result.rows.map((r) => r.a).filter((x) => x !== null)).toEqual([0, 1]);
    expect(result.rows.map((r) => r.b).filter((x) => x !== null)).toEqual(bUsers.map((_, i) => i));
    // The lanes hold every entry after the ancestor, in order.
    expect(result.a.entryIds).toEqual(a.slice(sharedPrefixLength(a, b)).map((e) => e.id));
    expect(result.a.turns.flatMap((t) => t.entryIds)).toEqual(result.a.entryIds);
    expect(result.sharedIds.at(-1)).toBe(ids.plan);
  });

  it('rolls up tool calls, errors, models and turns of each lane', () => {
    const result = compareBranches(a, b);
    const pi16 = name === 'two-approaches-pi16.jsonl';
    // Lane A: write, edit, failed edit, (code), bash.
    expect(result.a.rollup.toolCalls).toBe(pi16 ? 5 : 4);
    expect(result.a.rollup.toolErrors).toBe(1);
    expect(result.a.rollup.turns).toBe(2);
    expect(result.b.rollup.toolCalls).toBe(5);
    expect(result.b.rollup.toolErrors).toBe(0);
    expect(result.a.rollup.models).toEqual(['anthropic/claude-sonnet-4-5']);
    expect(result.a.rollup.errors).toBe(0);
    expect(result.a.rollup.aborts).toBe(0);
  });

  it('counts usage from every source the lane has, and the total is their sum', () => {
    const lane = b.slice(sharedPrefixLength(a, b));
    const rollup = rollUpLane(lane, session.getEntry(ids.plan as string));
    let expected = 0;
    for (const entry of lane) expected += usageNumbersOf(entry)?.cost ?? 0;
    expect(rollup.usage.cost).toBeCloseTo(expected, 12);
    const sources = Object.values(rollup.usageBySource);
    expect(sources.reduce((n, s) => n + s.totalTokens, 0)).toBe(rollup.usage.totalTokens);
    if (name === 'two-approaches-pi16.jsonl') {
      expect(rollup.usageBySource.branch_summary).toEqual({ ...numbers(usage(1_500, 110)), entries: 1 });
      expect(rollup.usageBySource.usage).toEqual({ ...numbers(usage(40, 2)), entries: 1 });
      const laneA = rollUpLane(a.slice(sharedPrefixLength(a, b)));
      expect(laneA.usageBySource.toolResult).toEqual({ ...numbers(usage(700, 90)), entries: 1 });
    } else {
      expect(Object.keys(rollup.usageBySource)).toEqual(['assistant']);
    }
    expect(rollup.usageBySource.assistant?.entries).toBe(
      lane.filter((e) => e.type === 'message' && (e.message as { role: string }).role === 'assistant').length,
    );
  });

  it('measures wall time from the common ancestor to the lane end', () => {
    const result = compareBranches(a, b);
    const start = Date.parse(session.getEntry(ids.plan as string)?.timestamp ?? '');
    expect(result.a.rollup.wallMs).toBe(Date.parse(a.at(-1)?.timestamp ?? '') - start);
    expect(result.b.rollup.wallMs).toBe(Date.parse(b.at(-1)?.timestamp ?? '') - start);
  });

  it('diffs the final answers line by line', () => {
    const result = compareBranches(a, b);
    expect(result.a.answer).toEqual({ entryId: ids.answerA, text: TWO_APPROACHES_TEXTS.answerA });
    expect(result.b.answer?.entryId).toBe(ids.answerB);
    expect(result.answerDiff.filter((l) => l.kind === ' ').map((l) => l.text)).toEqual(['Tests pass.']);
    expect(result.answerChanges).toEqual({ added: 2, removed: 2 });
  });
});

describe('laneTurns and alignTurns', () => {
  it('keeps entries before the first user message as a lead turn', () => {
    const { ids, path } = loadTwoApproaches('two-approaches-pi16.jsonl');
    const b = path(ids.answerB as string);
    const lane = b.slice(b.findIndex((e) => e.id === ids.plan) + 1);
    const turns = laneTurns(lane);
    expect(turns[0]).toMatchObject({ userId: null, entryIds: [ids.summaryB] });
  });

  it('pairs unmatched turns in order between matched ones', () => {
    const turn = (userText: string) => ({ userId: userText, userText, entryIds: [userText] });
    const rows = alignTurns(
      [turn('x'), turn('same'), turn('y1'), turn('y2')],
      [turn('z'), turn('same'), turn('w')],
    );
    expect(rows).toEqual([
      { a: 0, b: 0, same: false },
      { a: 1, b: 1, same: true },
      { a: 2, b: 2, same: false },
      { a: 3, b: null, same: false },
    ]);
  });
});
