// The compare view and file reconstruction (docs/branches.md), timed on session-core's pure functions:
// two 10,000-entry lanes split from a 180,000-entry shared path (a 200,000-entry session), and the
// files of a 50,000-entry path of writes and edits. Run alone: `npx tsx bench/branches.bench.ts`;
// `npm run bench` adds its rows. The server's read-back of the entries is not in these numbers.
import { compareBranches, reconstructFiles, type SessionEntry } from '../packages/session-core/src/index';

const USAGE = {
  input: 100,
  output: 20,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 120,
  cost: { input: 0.0003, output: 0.0003, cacheRead: 0, cacheWrite: 0, total: 0.0006 },
};

/** A chain of `count` entries after `parentId`: user, assistant with a tool call, its result, in turn. */
function chain(prefix: string, count: number, parentId: string | null, files = 20): SessionEntry[] {
  const out: SessionEntry[] = [];
  let parent = parentId;
  const t0 = Date.UTC(2026, 0, 1);
  for (let i = 0; i < count; i++) {
    const id = `${prefix}${i}`;
    const timestamp = new Date(t0 + i * 1000).toISOString();
    const kind = i % 3;
    const file = `src/f${i % files}.ts`;
    let message: Record<string, unknown>;
    if (kind === 0) message = { role: 'user', content: `turn ${Math.floor(i / 3)}`, timestamp: i };
    else if (kind === 1)
      message = {
        role: 'assistant',
        content: [
          { type: 'text', text: `step ${i}\nline two` },
          i % 9 === 1
            ? {
                type: 'toolCall',
                id: `c${id}`,
                name: 'write',
                arguments: { path: file, content: `a\nb ${i}\nc\n` },
              }
            : {
                type: 'toolCall',
                id: `c${id}`,
                name: 'edit',
                arguments: { path: file, edits: [{ oldText: 'c\n', newText: `c\nd ${i}\n` }] },
              },
        ],
        api: 'x',
        provider: 'p',
        model: 'm',
        usage: USAGE,
        stopReason: 'toolUse',
        timestamp: i,
      };
    else
      message = {
        role: 'toolResult',
        toolCallId: `c${prefix}${i - 1}`,
        toolName: 'edit',
        content: [{ type: 'text', text: 'ok' }],
        isError: false,
        timestamp: i,
      };
    out.push({ type: 'message', id, parentId: parent, timestamp, message } as SessionEntry);
    parent = id;
  }
  return out;
}

function ms(run: () => unknown): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

export interface BranchesBench {
  compareMs: number;
  filesMs: number;
}

/** Median of `runs` timings of each. */
export function branchesBench(runs = 3): BranchesBench {
  const shared = chain('s', 180_000, null);
  const last = shared[shared.length - 1]!.id;
  const a = [...shared, ...chain('a', 10_000, last)];
  const b = [...shared, ...chain('b', 10_000, last)];
  const path = chain('p', 50_000, null);
  const compare: number[] = [];
  const files: number[] = [];
  for (let i = 0; i < runs; i++) {
    compare.push(ms(() => compareBranches(a, b)));
    files.push(ms(() => reconstructFiles(path)));
  }
  const median = (list: number[]) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)]!;
  return { compareMs: median(compare), filesMs: median(files) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = branchesBench();
  console.log(
    `compare, two 10k-entry lanes of a 200k session: ${result.compareMs.toFixed(0)} ms (goal 300 ms)`,
  );
  console.log(`files of a 50k-entry path: ${result.filesMs.toFixed(0)} ms (goal 1 s)`);
}
