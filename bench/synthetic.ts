// A synthetic session generator for the benchmark and for stress tests.
// It writes v3 pi-dialect JSONL directly (not through SessionManager) so that generating a 100 MB file is
// fast, deterministic for a given seed, and independent of the code being measured.
// One file: one deterministic generator whose parts share the seeded random source.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

export type SyntheticShape = 'realistic' | 'chain' | 'fanout';

export interface SyntheticOptions {
  /** Number of entries after the header. */
  entries: number;
  /** PRNG seed; the same seed and options give the same file byte for byte. */
  seed?: number;
  /**
   * realistic: coding turns with tool calls, branches, summaries, labels, compactions (~2 KB per entry);
   * chain: one linear path of small messages; fanout: every entry a child of the first one.
   */
  shape?: SyntheticShape;
  /** Multiplies the size of generated text (1 gives ~2 KB per realistic entry, i.e. ~100 MB at 50,000). */
  sizeScale?: number;
}

export interface SyntheticStats {
  entries: number;
  bytes: number;
  branchPoints: number;
  labels: number;
  compactions: number;
  branchSummaries: number;
  leafId: string | null;
}

/** mulberry32: small, fast and good enough to vary sizes and shapes. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'const let function return await async import export from interface type string number boolean ' +
  'parse line entry session tree leaf branch label summary test expect describe it file path read write ' +
  'edit error result value index map set array object promise buffer chunk stream offset length config'
).split(' ');

const FILES = [
  'src/parser.ts',
  'src/tree.ts',
  'src/session.ts',
  'src/index.ts',
  'src/utils/strings.ts',
  'test/parser.test.ts',
  'test/tree.test.ts',
  'package.json',
  'README.md',
];

/** A block of pseudo TypeScript that texts are sliced from, so big outputs cost no per-character work. */
function buildCorpus(random: () => number, size: number): string {
  const lines: string[] = [];
  let length = 0;
  while (length < size) {
    const indent = '  '.repeat(Math.floor(random() * 4));
    const words: string[] = [];
    const count = 3 + Math.floor(random() * 9);
    for (let i = 0; i < count; i++) words.push(WORDS[Math.floor(random() * WORDS.length)] as string);
    const line = `${indent}${words.join(' ')};`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}

interface Rng {
  random(): number;
  int(min: number, max: number): number;
  chance(p: number): boolean;
  text(length: number): string;
  id(): string;
  timestamp(): string;
  now(): number;
}

function makeRng(seed: number, sizeScale: number): Rng {
  const random = prng(seed);
  const corpus = buildCorpus(random, 1 << 18);
  const ids = new Set<string>();
  let clock = Date.parse('2026-02-01T09:00:00.000Z');
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  return {
    random,
    int,
    chance: (p) => random() < p,
    text(length) {
      const wanted = Math.max(1, Math.round(length * sizeScale));
      const start = Math.floor(random() * corpus.length);
      let out = corpus.slice(start, start + wanted);
      while (out.length < wanted) out += `\n${corpus.slice(0, wanted - out.length)}`;
      return out;
    },
    id() {
      for (;;) {
        const id = Math.floor(random() * 0x100000000)
          .toString(16)
          .padStart(8, '0');
        if (!ids.has(id)) {
          ids.add(id);
          return id;
        }
      }
    },
    timestamp() {
      clock += int(200, 20_000);
      return new Date(clock).toISOString();
    },
    now: () => clock,
  };
}

const USAGE = {
  input: 1200,
  output: 300,
  cacheRead: 8000,
  cacheWrite: 0,
  totalTokens: 9500,
  cost: { input: 0.0036, output: 0.0045, cacheRead: 0.0024, cacheWrite: 0, total: 0.0105 },
};

function assistant(g: Rng, content: unknown[], stopReason: string): Record<string, unknown> {
  return {
    role: 'assistant',
    content,
    api: 'anthropic-messages',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    usage: USAGE,
    stopReason,
    timestamp: g.now(),
  };
}

/** The lines of one synthetic session file (header first), each without its trailing newline. */
export function* syntheticLines(options: SyntheticOptions, stats?: SyntheticStats): Generator<string> {
  const shape = options.shape ?? 'realistic';
  const g = makeRng(options.seed ?? 1, options.sizeScale ?? 1);
  const total = options.entries;
  const counters: SyntheticStats = stats ?? {
    entries: 0,
    bytes: 0,
    branchPoints: 0,
    labels: 0,
    compactions: 0,
    branchSummaries: 0,
    leafId: null,
  };
  const header = {
    type: 'session',
    version: 3,
    id: '0194f0a0-0000-7000-8000-000000000000',
    timestamp: new Date(g.now()).toISOString(),
    cwd: '/home/dev/projects/synthetic',
  };
  yield JSON.stringify(header);

  // Parent of every entry by index, and the ids, so that branches can go back to any earlier point.
  const ids: string[] = [];
  const parents: number[] = [];
  const childCount: number[] = [];
  const userIndices: number[] = [];
  let leaf = -1;

  const emit = (fields: Record<string, unknown>, parentIndex = leaf): string => {
    const id = g.id();
    const entry: Record<string, unknown> = {
      type: fields.type,
      id,
      parentId: parentIndex < 0 ? null : (ids[parentIndex] as string),
      timestamp: g.timestamp(),
      ...fields,
    };
    if (entry.type === 'message') (entry.message as Record<string, unknown>).timestamp = g.now();
    const index = ids.length;
    ids.push(id);
    parents.push(parentIndex);
    childCount.push(0);
    if (parentIndex >= 0) {
      childCount[parentIndex] = (childCount[parentIndex] as number) + 1;
      if (childCount[parentIndex] === 2) counters.branchPoints++;
    }
    leaf = index;
    counters.entries++;
    counters.leafId = id;
    return JSON.stringify(entry);
  };

  if (shape === 'chain' || shape === 'fanout') {
    for (let i = 0; i < total; i++) {
      const parent = shape === 'fanout' ? (i === 0 ? -1 : 0) : leaf;
      const message =
        i % 2 === 0
          ? { role: 'user', content: `question ${i}: ${g.text(40)}`, timestamp: 0 }
          : assistant(g, [{ type: 'text', text: `answer ${i}: ${g.text(60)}` }], 'stop');
      yield emit({ type: 'message', message }, parent);
    }
    return;
  }

  const remaining = () => total - ids.length;
  let sinceCompaction = 0;
  let toolCallSeq = 0;

  while (remaining() > 0) {
    // Settings changes now and then, before a turn.
    if (g.chance(0.03) && remaining() > 0) {
      yield emit({
        type: 'thinking_level_change',
        thinkingLevel: ['off', 'low', 'medium', 'high'][g.int(0, 3)],
      });
    }
    if (g.chance(0.015) && remaining() > 0) {
      yield emit({
        type: 'model_change',
        provider: 'anthropic',
        modelId: g.chance(0.5) ? 'claude-opus-4-5' : 'claude-sonnet-4-5',
      });
    }
    if (remaining() <= 0) break;

    const userIndex = ids.length;
    userIndices.push(userIndex);
    yield emit({
      type: 'message',
      message: { role: 'user', content: [{ type: 'text', text: g.text(g.int(40, 700)) }], timestamp: 0 },
    });

    // Tool rounds: an assistant with tool calls, then one result per call.
    const rounds = g.int(0, 6);
    for (let round = 0; round < rounds && remaining() > 0; round++) {
      const calls = g.int(1, 3);
      const content: unknown[] = [];
      if (g.chance(0.6)) content.push({ type: 'thinking', thinking: g.text(g.int(100, 900)) });
      if (g.chance(0.5)) content.push({ type: 'text', text: g.text(g.int(30, 400)) });
      const names: string[] = [];
      for (let c = 0; c < calls; c++) {
        const name = ['read', 'bash', 'edit', 'write', 'read', 'bash'][g.int(0, 5)] as string;
        names.push(name);
        const path = FILES[g.int(0, FILES.length - 1)] as string;
        const args =
          name === 'bash'
            ? { command: `pnpm test -- ${path}` }
            : name === 'edit'
              ? { path, oldText: g.text(g.int(40, 500)), newText: g.text(g.int(40, 600)) }
              : name === 'write'
                ? { path, content: g.text(g.int(200, 3000)) }
                : { path };
        content.push({
          type: 'toolCall',
          id: `toolu_${(++toolCallSeq).toString().padStart(6, '0')}`,
          name,
          arguments: args,
        });
      }
      yield emit({ type: 'message', message: assistant(g, content, 'toolUse') });
      for (let c = 0; c < calls && remaining() > 0; c++) {
        const name = names[c] as string;
        const huge = g.chance(0.01);
        const length = huge
          ? g.int(20_000, 60_000)
          : name === 'read'
            ? g.int(500, 7_000)
            : name === 'bash'
              ? g.int(100, 3_000)
              : g.int(30, 200);
        const isError = g.chance(0.06);
        yield emit({
          type: 'message',
          message: {
            role: 'toolResult',
            toolCallId: `toolu_${(toolCallSeq - calls + c + 1).toString().padStart(6, '0')}`,
            toolName: name,
            content: [{ type: 'text', text: g.text(length) }],
            isError,
            timestamp: 0,
          },
        });
      }
    }
    if (remaining() <= 0) break;

    // The closing answer: mostly a plain stop, sometimes aborted or failed.
    const roll = g.random();
    const stopReason = roll < 0.03 ? 'aborted' : roll < 0.05 ? 'error' : 'stop';
    const final = assistant(g, [{ type: 'text', text: g.text(g.int(80, 1_200)) }], stopReason);
    if (stopReason === 'error') final.errorMessage = 'overloaded_error: Overloaded';
    yield emit({ type: 'message', message: final });

    if (g.chance(0.04) && remaining() > 0) {
      counters.labels++;
      yield emit({
        type: 'label',
        targetId: ids[userIndex] as string,
        label: `checkpoint ${counters.labels}`,
      });
    }
    if (g.chance(0.02) && remaining() > 0) {
      yield emit({
        type: 'custom_message',
        customType: 'reminder',
        content: g.text(g.int(50, 300)),
        display: g.chance(0.5),
      });
    }
    if (g.chance(0.01) && remaining() > 0) {
      yield emit({
        type: 'custom',
        customType: 'preset-state',
        data: { preset: 'default', turn: userIndices.length },
      });
    }

    sinceCompaction += ids.length - userIndex;
    if (sinceCompaction > 400 && remaining() > 0) {
      // Keep roughly the last 20 entries of the current path.
      let kept = leaf;
      for (let back = 0; back < 20 && (parents[kept] as number) >= 0; back++) kept = parents[kept] as number;
      counters.compactions++;
      sinceCompaction = 0;
      yield emit({
        type: 'compaction',
        summary: g.text(g.int(800, 3_000)),
        firstKeptEntryId: ids[kept] as string,
        tokensBefore: g.int(80_000, 180_000),
        details: { readFiles: FILES.slice(0, 3), modifiedFiles: FILES.slice(3, 5) },
      });
    }

    // Navigate back now and then: a sibling of an earlier user message, often with a branch summary.
    if (g.chance(0.1) && userIndices.length > 1 && remaining() > 0) {
      const target = userIndices[g.int(0, userIndices.length - 1)] as number;
      const newLeaf = parents[target] as number;
      leaf = newLeaf;
      if (g.chance(0.5) && remaining() > 0) {
        counters.branchSummaries++;
        yield emit({
          type: 'branch_summary',
          fromId: newLeaf < 0 ? 'root' : (ids[newLeaf] as string),
          summary: g.text(g.int(300, 1_500)),
          details: { readFiles: FILES.slice(0, 2), modifiedFiles: FILES.slice(2, 3) },
        });
      }
    }
  }
}

/** The whole synthetic file as one string (for sizes that comfortably fit in memory). */
export function syntheticJsonl(options: SyntheticOptions, stats?: SyntheticStats): string {
  let out = '';
  for (const line of syntheticLines(options, stats)) out += `${line}\n`;
  return out;
}

/** Streams a synthetic session to `path` and returns what was written. */
export async function writeSyntheticSession(
  path: string,
  options: SyntheticOptions,
): Promise<SyntheticStats> {
  const stats: SyntheticStats = {
    entries: 0,
    bytes: 0,
    branchPoints: 0,
    labels: 0,
    compactions: 0,
    branchSummaries: 0,
    leafId: null,
  };
  const out = createWriteStream(path);
  let buffer = '';
  for (const line of syntheticLines(options, stats)) {
    buffer += `${line}\n`;
    if (buffer.length > 1 << 20) {
      stats.bytes += Buffer.byteLength(buffer);
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
  }
  stats.bytes += Buffer.byteLength(buffer);
  out.end(buffer);
  await once(out, 'finish');
  return stats;
}
