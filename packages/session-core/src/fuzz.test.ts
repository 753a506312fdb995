// Byte-level damage to the real fixtures: bit flips, truncation, inserted newlines and garbage, deleted
// and duplicated spans. Loading must never throw or hang, and every non-blank line must be accounted
// for: it is the header, an indexed entry, or an issue carrying its line number.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  FIXTURES_MISSING_MESSAGE,
  fixturesDir,
  readFixtureCopy,
  removeFixtureCopies,
} from '../test/fixtures';
import { SessionManager } from './session-manager';
import type { SessionTreeNode } from './types';

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

function checkDamagedFile(bytes: Uint8Array): void {
  const session = SessionManager.fromJsonl(bytes);

  const accounted = new Set<number>();
  const headerLine = session.getHeaderLine();
  if (headerLine !== undefined) accounted.add(headerLine);
  for (const entry of session.getEntries()) accounted.add(session.getLine(entry.id) as number);
  for (const issue of session.issues) {
    expect(issue.message.startsWith(`line ${issue.line}: `)).toBe(true);
    accounted.add(issue.line);
  }
  const missing = nonBlankLines(bytes).filter((line) => !accounted.has(line));
  // A title-slot line is the only other thing a line may be; damage never forges one from these files.
  expect(missing).toEqual([]);

  const inTree = countTree(session.getTree());
  expect(inTree.size).toBe(session.getEntries().length);
  expect([...inTree.values()].every((count) => count === 1)).toBe(true);
  for (const entry of session.getEntries()) {
    expect(session.getBranch(entry.id).at(-1)).toBe(entry);
  }
  session.buildSessionContext();
  // What the session would write back loads again without new problems in its entries.
  expect(SessionManager.fromJsonl(session.toJsonl()).getEntries()).toHaveLength(session.getEntries().length);
}

const SMALL = [
  'seed-example.jsonl',
  'all-entry-types.jsonl',
  'malformed.jsonl',
  'legacy-v2-hookmessage.jsonl',
  'branched-from-seed-example.jsonl',
  'empty.jsonl',
];
const LARGE = ['many-branches.jsonl', 'legacy-v1-large-session.jsonl', 'legacy-v1-before-compaction.jsonl'];

describe.skipIf(!fixturesDir())(fixturesDir() ? 'damaged fixtures' : FIXTURES_MISSING_MESSAGE, () => {
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
