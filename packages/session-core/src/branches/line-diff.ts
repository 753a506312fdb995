// A small Myers line diff (docs/branches.md#line-diff): the final answers of two lanes and the net
// change of a file are shown as line diffs. No dependency: the O(ND) algorithm over lines, after the
// common head and tail are cut off, with a bound on D past which the middle is one replacement.

/** One line of a diff: kept (' '), removed ('-') or added ('+'). */
export interface DiffLine {
  kind: ' ' | '-' | '+';
  text: string;
}

/** A run of changes with up to `context` kept lines around it; starts are 1-based line numbers. */
export interface DiffHunk {
  oldStart: number;
  newStart: number;
  lines: DiffLine[];
}

/** Past this many differences the middle is reported as one replacement (the trace is O(D²)). */
export const MAX_DIFF_DISTANCE = 2_000;

/** Splits text into lines; a final newline does not make an empty last line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Every line of `a` and `b` as kept, removed or added, in order (removals before additions). */
export function diffLines(a: readonly string[], b: readonly string[]): DiffLine[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const out: DiffLine[] = [];
  for (let i = 0; i < head; i++) out.push({ kind: ' ', text: a[i] as string });
  middle(a.slice(head, a.length - tail), b.slice(head, b.length - tail), out);
  for (let i = a.length - tail; i < a.length; i++) out.push({ kind: ' ', text: a[i] as string });
  return out;
}

function replaceAll(a: readonly string[], b: readonly string[], out: DiffLine[]): void {
  for (const text of a) out.push({ kind: '-', text });
  for (const text of b) out.push({ kind: '+', text });
}

function middle(a: readonly string[], b: readonly string[], out: DiffLine[]): void {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return replaceAll(a, b, out);
  const max = Math.min(n + m, MAX_DIFF_DISTANCE);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number))
          ? (v[offset + k + 1] as number)
          : (v[offset + k - 1] as number) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return replaceAll(a, b, out);
  // Walk the trace back from (n, m), collecting the edit script in reverse.
  const reversed: DiffLine[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const prev = trace[d] as Int32Array;
    const k = x - y;
    const down = k === -d || (k !== d && (prev[offset + k - 1] as number) < (prev[offset + k + 1] as number));
    const prevK = down ? k + 1 : k - 1;
    const prevX = prev[offset + prevK] as number;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      reversed.push({ kind: ' ', text: a[--x] as string });
      y--;
    }
    if (down) reversed.push({ kind: '+', text: b[--y] as string });
    else reversed.push({ kind: '-', text: a[--x] as string });
  }
  while (x > 0 && y > 0) {
    reversed.push({ kind: ' ', text: a[--x] as string });
    y--;
  }
  for (let i = reversed.length - 1; i >= 0; i--) out.push(reversed[i] as DiffLine);
}

/** The changed runs of a diff with `context` kept lines around each; runs closer than that merge. */
export function hunksOf(lines: readonly DiffLine[], context = 3): DiffHunk[] {
  // Line numbers before each diff line, then the changed indexes grouped by their gaps.
  const oldAt = new Int32Array(lines.length + 1);
  const newAt = new Int32Array(lines.length + 1);
  oldAt[0] = 1;
  newAt[0] = 1;
  const changed: number[] = [];
  lines.forEach((line, i) => {
    oldAt[i + 1] = (oldAt[i] as number) + (line.kind === '+' ? 0 : 1);
    newAt[i + 1] = (newAt[i] as number) + (line.kind === '-' ? 0 : 1);
    if (line.kind !== ' ') changed.push(i);
  });
  const hunks: DiffHunk[] = [];
  let g = 0;
  while (g < changed.length) {
    let last = changed[g] as number;
    const first = last;
    while (g + 1 < changed.length && (changed[g + 1] as number) - last <= 2 * context + 1)
      last = changed[++g] as number;
    g++;
    const from = Math.max(0, first - context);
    const to = Math.min(lines.length, last + context + 1);
    hunks.push({
      oldStart: oldAt[from] as number,
      newStart: newAt[from] as number,
      lines: lines.slice(from, to),
    });
  }
  return hunks;
}

/** Lines added and removed by a diff. */
export function countChanges(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of lines) {
    if (line.kind === '+') added++;
    else if (line.kind === '-') removed++;
  }
  return { added, removed };
}
