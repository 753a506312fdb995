import { describe, expect, it } from 'vitest';
import { countChanges, diffLines, hunksOf, MAX_DIFF_DISTANCE, splitLines } from './line-diff';

function apply(lines: ReturnType<typeof diffLines>): { a: string[]; b: string[] } {
  return {
    a: lines.filter((l) => l.kind !== '+').map((l) => l.text),
    b: lines.filter((l) => l.kind !== '-').map((l) => l.text),
  };
}

describe('diffLines', () => {
  it('finds the shortest edit script between two line lists', () => {
    const a = ['a', 'b', 'c', 'a', 'b', 'b', 'a'];
    const b = ['c', 'b', 'a', 'b', 'a', 'c'];
    const diff = diffLines(a, b);
    expect(apply(diff)).toEqual({ a, b });
    // Myers' example: 5 differences.
    expect(diff.filter((l) => l.kind !== ' ')).toHaveLength(5);
  });

  it('keeps identical input as kept lines and handles empty sides', () => {
    expect(diffLines(['x', 'y'], ['x', 'y']).every((l) => l.kind === ' ')).toBe(true);
    expect(diffLines([], ['x'])).toEqual([{ kind: '+', text: 'x' }]);
    expect(diffLines(['x'], [])).toEqual([{ kind: '-', text: 'x' }]);
  });

  it('reports a middle past the distance bound as one replacement, still exact', () => {
    const n = MAX_DIFF_DISTANCE + 10;
    const a = Array.from({ length: n }, (_, i) => `a${i}`);
    const b = Array.from({ length: n }, (_, i) => `b${i}`);
    const diff = diffLines(['head', ...a, 'tail'], ['head', ...b, 'tail']);
    expect(apply(diff)).toEqual({ a: ['head', ...a, 'tail'], b: ['head', ...b, 'tail'] });
    expect(countChanges(diff)).toEqual({ added: n, removed: n });
  });
});

describe('hunksOf', () => {
  it('cuts changes with their context and merges close ones', () => {
    const a = splitLines('1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n');
    const b = a.map((l) => (l === '2' ? 'two' : l === '4' ? 'four' : l === '14' ? 'fourteen' : l));
    const hunks = hunksOf(diffLines(a, b), 2);
    expect(hunks).toHaveLength(2);
    expect(hunks[0]).toMatchObject({ oldStart: 1, newStart: 1 });
    expect(hunks[0]?.lines.map((l) => `${l.kind}${l.text}`)).toEqual([
      ' 1',
      '-2',
      '+two',
      ' 3',
      '-4',
      '+four',
      ' 5',
      ' 6',
    ]);
    expect(hunks[1]).toMatchObject({ oldStart: 12, newStart: 12 });
    expect(hunks[1]?.lines.map((l) => `${l.kind}${l.text}`)).toEqual([
      ' 12',
      ' 13',
      '-14',
      '+fourteen',
      ' 15',
      ' 16',
    ]);
  });
});
