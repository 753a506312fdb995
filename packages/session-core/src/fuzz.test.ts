// Byte-level damage to the fixtures: bit flips, truncation, inserted newlines and garbage, deleted
// and duplicated spans. Loading must never throw or hang, and every non-blank line must be accounted
// for: it is the header, an indexed entry, or an issue carrying its line number.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readFixtureCopy, removeFixtureCopies } from '../test/fixtures';
import { loadIn } from '../test/retention';
import type { EntryRetention } from './entry-store';
import { SessionManager } from './session-manager';
import type { SessionTreeNode, StoredMessage } from './types';

type Damage =
  | { kind: 'flip'; at: number; mask: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'newline'; at: number }
  | { kind: 'garbage'; at: number; bytes: Uint8Array }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'duplicate'; at: number; length: number; to: number };

const damageArbitrary: fc.Arbitrary<Damage> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('newline' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('garbage' as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 24 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 400 }) }),
  fc.record({
    kind: fc.constant('duplicate' as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 600 }),
    to: fc.nat(),
  }),
);

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function applyDamage(input: Uint8Array, damage: Damage): Uint8Array {
  const size = input.length;
  const at = size === 0 ? 0 : damage.at % (size + 1);
  switch (damage.kind) {
    case 'flip': {
      if (size === 0) return input;
      const out = input.slice();
      const index = damage.at % size;
      out[index] = (out[index] as number) ^ damage.mask;
      return out;
    }
    case 'truncate':
      return input.slice(0, at);
    case 'newline':
      return concat(input.subarray(0, at), new Uint8Array([0x0a]), input.subarray(at));
    case 'garbage':
      return concat(input.subarray(0, at), damage.bytes, input.subarray(at));
    case 'delete':
      return concat(input.subarray(0, at), input.subarray(Math.min(size, at + damage.length)));
    case 'duplicate': {
      const span = input.slice(at, Math.min(size, at + damage.length));
      const to = size === 0 ? 0 : damage.to % (size + 1);
      return concat(input.subarray(0, to), span, input.subarray(to));
    }
  }
}

/** The 1-based numbers of the non-blank lines, judged the way a reader would: "\r" dropped, trimmed. */
function nonBlankLines(bytes: Uint8Array): number[] {
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  const lines = text.split('\n');
  const numbers: number[] = [];
  lines.forEach((raw, index) => {
    const value = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (value.trim().length > 0) numbers.push(index + 1);
  });
  return numbers;
}

function countTree(roots: readonly SessionTreeNode[]): Map<string, number> {
  const seen = new Map<string, number>();
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop() as SessionTreeNode;
    seen.set(node.entry.id, (seen.get(node.entry.id) ?? 0) + 1);
    stack.push(...node.children);
  }
  return seen;
}

/** The lines of a file as the parser splits them ("\n", with a trailing "\r" dropped). */
function linesOf(bytes: Uint8Array): string[] {
  return new TextDecoder('utf-8', { ignoreBOM: true })
    .decode(bytes)
    .split('\n')
    .map((raw) => (raw.endsWith('\r') ? raw.slice(0, -1) : raw));
}

function parsedObject(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Everything a caller can observe of a loaded session. */
function observable(session: SessionManager) {
  return {
    entries: session.getEntries(),
    tree: session.getTree(),
    issues: session.issues,
    leaf: session.getLeafId(),
    branch: session.getBranch(),
    context: session.buildSessionContext(),
    name: session.getSessionName(),
    // A file without a header gets a random one in memory (written only before a first append).
    jsonl: session.getHeaderLine() === undefined ? session.toJsonl().replace(/^.*\n/, '') : session.toJsonl(),
  };
}

/**
 * Checks a (possibly damaged) file in both retention modes: each accounts for every line, and a
 * session keeping only its index shows exactly what one keeping every entry shows.
 */
function checkDamagedFile(bytes: Uint8Array): void {
  const all = checkDamagedFileIn('all', bytes);
  const index = checkDamagedFileIn('index', bytes);
  // A migrated legacy file gets random new ids on every load: nothing to compare entry by entry.
  if (!all.needsRewrite) expect(observable(index)).toStrictEqual(observable(all));
}

function checkDamagedFileIn(retention: EntryRetention, bytes: Uint8Array): SessionManager {
  const session = loadIn(retention, bytes);
  const lines = linesOf(bytes);

  const accounted = new Set<number>();
  const headerLine = session.getHeaderLine();
  if (headerLine !== undefined) accounted.add(headerLine);
  for (const entry of session.getEntries()) accounted.add(session.getLine(entry.id) as number);
  for (const issue of session.issues) {
    expect(issue.message.startsWith(`line ${issue.line}: `)).toBe(true);
    accounted.add(issue.line);
  }
  // An oh-my-pi title slot before the header is the only other thing a line may be.
  const titleLine = lines
    .slice(0, (headerLine ?? lines.length + 1) - 1)
    .findIndex((line) => parsedObject(line)?.type === 'title');
  if (titleLine >= 0) accounted.add(titleLine + 1);
  const missing = nonBlankLines(bytes).filter((line) => !accounted.has(line));
  expect(missing).toEqual([]);

  const inTree = countTree(session.getTree());
  expect(inTree.size).toBe(session.getEntries().length);
  expect([...inTree.values()].every((count) => count === 1)).toBe(true);
  for (const entry of session.getEntries()) {
    // Entries read back from the file are equal, not the same objects.
    if (retention === 'all') expect(session.getBranch(entry.id).at(-1)).toBe(entry);
    else expect(session.getBranch(entry.id).at(-1)).toStrictEqual(entry);
  }
  // In a v3 file (ids are the file's own), every complete well-formed line with an id and a type is
  // in the tree, whatever happened to its parent (the last line only once its newline is there).
  if (session.version === 3) {
    lines.slice(0, -1).forEach((line) => {
      const value = parsedObject(line);
      if (!value || typeof value.type !== 'string' || value.type === 'session' || value.type === 'title')
        return;
      if (typeof value.id === 'string' && value.id.length > 0) expect(inTree.has(value.id)).toBe(true);
    });
  }
  session.buildSessionContext();
  // What the session would write back loads again without new problems in its entries.
  expect(SessionManager.fromJsonl(session.toJsonl()).getEntries()).toHaveLength(session.getEntries().length);
  return session;
}

const SMALL = [
  'seed-example.jsonl',
  'all-entry-types.jsonl',
  'malformed.jsonl',
  'legacy-v2-hookmessage.jsonl',
  'branched-from-seed-example.jsonl',
  'empty.jsonl',
  'oh-my-pi-title-slot.jsonl',
];
const LARGE = ['many-branches.jsonl', 'legacy-v1-large-session.jsonl', 'legacy-v1-before-compaction.jsonl'];

describe('damaged fixtures', () => {
  afterAll(removeFixtureCopies);

  for (const name of [...SMALL, ...LARGE]) {
    const runs = LARGE.includes(name) ? 8 : 120;
    it(`never throws on ${name} and accounts for every line`, async () => {
      const original = await readFixtureCopy(name);
      fc.assert(
        fc.property(fc.array(damageArbitrary, { minLength: 1, maxLength: 6 }), (damages) => {
          checkDamagedFile(damages.reduce(applyDamage, original));
        }),
        { numRuns: runs },
      );
    });
  }
});

// ---------------------------------------------------------------- random sessions, no fixtures

type Operation =
  | { kind: 'user' | 'assistant'; text: string }
  | { kind: 'branch'; to: number }
  | { kind: 'label'; to: number; label: string | undefined }
  | { kind: 'model'; provider: string; id: string }
  | { kind: 'thinking'; level: string }
  | { kind: 'custom'; data: unknown }
  | { kind: 'compaction'; to: number; summary: string }
  | { kind: 'summary'; to: number; summary: string };

const text = fc.string({ unit: 'grapheme', maxLength: 40 });
const operationArbitrary: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constantFrom('user' as const, 'assistant' as const), text }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('branch' as const), to: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('label' as const),
      to: fc.nat(),
      label: fc.option(text, { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('model' as const),
      provider: fc.constantFrom('anthropic', 'openai'),
      id: fc.constantFrom('claude-sonnet-4-5', 'gpt-5.1-codex'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('thinking' as const),
      level: fc.constantFrom('off', 'low', 'high'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('custom' as const), data: fc.jsonValue({ maxDepth: 2 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('compaction' as const), to: fc.nat(), summary: text }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('summary' as const), to: fc.nat(), summary: text }) },
);

/** A session written by session-core from random operations, as the bytes of its file. */
function writeSession(operations: readonly Operation[]): Uint8Array {
  const session = SessionManager.inMemory('/home/dev/fuzz');
  const ids: string[] = [];
  const pickId = (to: number) => ids[to % ids.length] as string;
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  for (const op of operations) {
    clock += 1_000;
    switch (op.kind) {
      case 'user':
        ids.push(session.appendMessage({ role: 'user', content: op.text, timestamp: clock }));
        break;
      case 'assistant':
        ids.push(
          session.appendMessage({
            role: 'assistant',
            content: [{ type: 'text', text: op.text }],
            api: 'anthropic-messages',
            provider: 'anthropic',
            model: 'claude-sonnet-4-5',
            usage: {
              input: 1,
              output: 1,
              cacheRead: 0,
              cacheWrite: 0,
              totalTokens: 2,
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
            },
            stopReason: 'stop',
            timestamp: clock,
          } as StoredMessage),
        );
        break;
      case 'branch':
        if (ids.length > 0) session.branch(pickId(op.to));
        break;
      case 'label':
        if (ids.length > 0) session.appendLabelChange(pickId(op.to), op.label);
        break;
      case 'model':
        ids.push(session.appendModelChange(op.provider, op.id));
        break;
      case 'thinking':
        ids.push(session.appendThinkingLevelChange(op.level));
        break;
      case 'custom':
        ids.push(session.appendCustomEntry('fuzz', op.data));
        break;
      case 'compaction':
        if (ids.length > 0) ids.push(session.appendCompaction(op.summary, pickId(op.to), 1_000));
        break;
      case 'summary':
        if (ids.length > 0) ids.push(session.branchWithSummary(pickId(op.to), op.summary));
        break;
    }
  }
  return new TextEncoder().encode(session.toJsonl());
}

describe('random sessions written by session-core, then damaged byte by byte', () => {
  it('loads every undamaged one with every entry in the tree and no issues', () => {
    fc.assert(
      fc.property(fc.array(operationArbitrary, { minLength: 1, maxLength: 40 }), (operations) => {
        const bytes = writeSession(operations);
        const session = SessionManager.fromJsonl(bytes);
        expect(session.issues).toEqual([]);
        checkDamagedFile(bytes);
      }),
      { numRuns: 100 },
    );
  });

  it('never throws on a damaged one, accounts for every line and keeps every well-formed entry', () => {
    fc.assert(
      fc.property(
        fc.array(operationArbitrary, { minLength: 1, maxLength: 40 }),
        fc.array(damageArbitrary, { minLength: 1, maxLength: 6 }),
        (operations, damages) => {
          checkDamagedFile(damages.reduce(applyDamage, writeSession(operations)));
        },
      ),
      { numRuns: 300 },
    );
  });
});
