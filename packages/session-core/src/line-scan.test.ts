// Exactness of the skeleton scan (line-scan.ts): on every line of the project's fixtures and on
// seeded, generated lines (valid and damaged every way JSON can be), the abridged parse accepts exactly
// what JSON.parse accepts, keeps the full entry's shape with only long strings cut to prefixes, and
// every skeleton field derived from an entry it lets through equals the one from the full entry.
// One file past 300 lines because the generator of odd JSON and the checks it feeds belong together.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { fixtureNames, fixturesDir } from '../test/fixtures';
import { bytesReader } from '../test/retention';
import { seededRandom } from '../../fixtures/src/determinism';
import { ABRIDGE_KEEP_UNITS, abridgedEntryIsExact, abridgeLine, isAbridged } from './line-scan';
import { SessionLineParser, utf8Decoder, utf8Encode } from './parse';
import type { ParseBatch } from './parse';
import { SessionManager } from './session-manager';
import { userMessageText } from './text';
import { ToolCallIndex, toViewEntry } from './tree-view/view-entry';
import type { SessionEntry, SessionTreeNode } from './types';

const decoder = utf8Decoder();

function parsed(bytes: Uint8Array): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(decoder.decode(bytes)) };
  } catch {
    return { ok: false };
  }
}

/** `abridged` is `full` with some strings cut to prefixes of at least `keep` units; nothing else differs. */
function expectPrefixShape(abridged: unknown, full: unknown, keep: number, path = '$'): void {
  if (typeof full === 'string') {
    expect(typeof abridged, path).toBe('string');
    const cut = abridged as string;
    if (cut !== full) {
      expect(full.startsWith(cut), path).toBe(true);
      expect(cut.length, path).toBeGreaterThanOrEqual(keep);
    }
    return;
  }
  if (Array.isArray(full)) {
    expect(Array.isArray(abridged), path).toBe(true);
    const list = abridged as unknown[];
    expect(list.length, path).toBe(full.length);
    full.forEach((item, i) => expectPrefixShape(list[i], item, keep, `${path}[${i}]`));
    return;
  }
  if (full !== null && typeof full === 'object') {
    const record = abridged as Record<string, unknown>;
    expect(Object.keys(record), path).toEqual(Object.keys(full));
    for (const [key, value] of Object.entries(full))
      expectPrefixShape(record[key], value, keep, `${path}.${key}`);
    return;
  }
  expect(Object.is(abridged, full), path).toBe(true);
}

/** Checks one line at one cut length; answers whether anything was cut. */
function checkLine(bytes: Uint8Array, keep: number): boolean {
  const result = abridgeLine(bytes, 0, bytes.length, keep);
  if (result === undefined) return false;
  const full = parsed(bytes);
  const abridged = parsed(result.bytes);
  expect(abridged.ok).toBe(full.ok);
  if (abridged.ok && full.ok) expectPrefixShape(abridged.value, full.value, keep);
  expect(result.cuts.length).toBeGreaterThan(0);
  return true;
}

// ---------------------------------------------------------------- a seeded generator of odd JSON

type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;

// Pieces of text: ASCII, whitespace runs, characters JSON escapes, 2-, 3- and 4-byte UTF-8, lone
// surrogates (JSON.stringify writes them as \u escapes), the final sigma, and a dotted capital I.
const PIECES = [
  'a',
  'word ',
  'x',
  '   ',
  '\t\t',
  '\n',
  '\r\n',
  '"',
  '\\',
  '/',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u0085',
  'é',
  'Σ',
  'İ',
  '日本',
  '\u2028',
  '😀',
  '\ud800',
  '\udc00',
  '\ufeff',
];

function randomText(rng: Rng, maxLength: number): string {
  const length = Math.floor(rng() ** 2 * maxLength);
  let text = '';
  const blank = rng() < 0.15;
  while (text.length < length)
    text += blank && rng() < 0.9 ? pick(rng, [' ', '\n', '\t']) : pick(rng, PIECES);
  return text;
}

/** JSON text of `value` with random whitespace, random \u escapes and an occasional duplicate key first. */
function toJson(value: unknown, rng: Rng): string {
  const space = (): string => (rng() < 0.1 ? pick(rng, [' ', '\t', '\r', '  \n ']) : '');
  if (typeof value === 'string') {
    let out = '"';
    for (const char of JSON.stringify(value)
      .slice(1, -1)
      .match(/\\u[0-9a-f]{4}|\\.|[^]/gu) ?? []) {
      if (char.length === 1 && rng() < 0.05) {
        // The same character as an escape: a surrogate pair becomes two escapes.
        for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
      } else if (char === '/' && rng() < 0.5) out += '\\/';
      else out += char;
    }
    return `${out}"`;
  }
  if (Array.isArray(value))
    return `[${space()}${value.map((item) => toJson(item, rng)).join(`${space()},${space()}`)}${space()}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(([key, item]) => {
      const decoy = rng() < 0.05 ? `${toJson(key, rng)}:${toJson(randomText(rng, 900), rng)},` : '';
      return `${decoy}${space()}${toJson(key, rng)}${space()}:${space()}${toJson(item, rng)}`;
    });
    return `{${members.join(',')}${space()}}`;
  }
  return JSON.stringify(value);
}

function shuffled<T>(rng: Rng, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** An object with its members in a random order. */
function record(rng: Rng, members: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(shuffled(rng, Object.entries(members)));
}

const TOOLS = ['read', 'write', 'edit', 'bash', 'grep', 'find', 'ls', 'task', 'mcp_thing'];

function randomBlock(rng: Rng, callIds: string[]): Record<string, unknown> {
  const kind = pick(rng, ['text', 'text', 'thinking', 'toolCall', 'image']);
  switch (kind) {
    case 'text':
      return record(rng, { type: 'text', text: randomText(rng, 1500) });
    case 'thinking':
      return record(rng, {
        type: 'thinking',
        thinking: randomText(rng, 1500),
        thinkingSignature: randomText(rng, 600),
      });
    case 'image':
      return record(rng, {
        type: 'image',
        data: 'iVBOR'.repeat(Math.floor(rng() * 200)),
        mimeType: 'image/png',
      });
    default: {
      const id = `call_${callIds.length}`;
      callIds.push(id);
      return record(rng, {
        type: 'toolCall',
        id,
        name: pick(rng, TOOLS),
        arguments: record(rng, {
          path: randomText(rng, rng() < 0.2 ? 1200 : 60),
          command: randomText(rng, rng() < 0.2 ? 1200 : 80),
          content: randomText(rng, 2000),
          oldText: randomText(rng, 1500),
          offset: pick(rng, [1, '12', ' 7 ', undefined]),
          nested: { deep: [randomText(rng, 900)] },
        }),
      });
    }
  }
}

function randomEntry(rng: Rng, index: number, callIds: string[]): Record<string, unknown> {
  const base = {
    id: `e${index}`,
    parentId: index === 0 ? null : `e${index - 1}`,
    timestamp: '2025-01-01T00:00:00.000Z',
  };
  const type = pick(rng, [
    'message',
    'message',
    'message',
    'message',
    'compaction',
    'custom',
    'custom_message',
    'branch_summary',
    'label',
  ]);
  const usage = {
    input: Math.floor(rng() * 1e6),
    output: 3,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 9,
    cost: { total: rng() },
  };
  switch (type) {
    case 'message': {
      const role = pick(rng, ['user', 'assistant', 'assistant', 'toolResult', 'bashExecution', 'developer']);
      const content =
        rng() < 0.3
          ? randomText(rng, 1500)
          : Array.from({ length: 1 + Math.floor(rng() * 4) }, () => randomBlock(rng, callIds));
      const message: Record<string, unknown> = { role, content, timestamp: 1 };
      if (role === 'assistant') {
        Object.assign(message, {
          usage,
          stopReason: pick(rng, ['stop', 'toolUse', 'error', 'aborted', 'length']),
        });
        if (rng() < 0.3) message.errorMessage = randomText(rng, 800);
      }
      if (role === 'toolResult') {
        Object.assign(message, {
          toolCallId: callIds.length > 0 ? pick(rng, callIds) : 'none',
          toolName: pick(rng, TOOLS),
          isError: rng() < 0.2,
          details: { diff: randomText(rng, 1500), usage },
        });
      }
      if (role === 'bashExecution')
        Object.assign(message, { command: randomText(rng, 900), output: randomText(rng, 2000), exitCode: 1 });
      return record(rng, { ...base, type, message });
    }
    case 'compaction':
      return record(rng, {
        ...base,
        type,
        summary: randomText(rng, 3000),
        firstKeptEntryId: 'e0',
        tokensBefore: 12345,
        details: { readFiles: [randomText(rng, 900)] },
      });
    case 'custom':
      return record(rng, {
        ...base,
        type,
        customType: randomText(rng, 500),
        data: { blob: randomText(rng, 2000) },
      });
    case 'custom_message':
      return record(rng, {
        ...base,
        type,
        customType: 'note',
        content: randomText(rng, 2000),
        display: true,
      });
    case 'branch_summary':
      return record(rng, { ...base, type, fromId: 'e0', summary: randomText(rng, 5000) });
    default:
      return record(rng, { ...base, type, targetId: 'e0', label: randomText(rng, 500) });
  }
}

/** Ways a line can be damaged; several produce invalid JSON, some stay valid with odd bytes. */
function damaged(rng: Rng, line: string): Uint8Array {
  const at = Math.floor(rng() * line.length);
  const quote = line.indexOf('"', at);
  const inString = quote >= 0 ? quote + 1 : at;
  const splice = (where: number, text: string) => line.slice(0, where) + text + line.slice(where);
  switch (Math.floor(rng() * 11)) {
    case 0:
      return utf8Encode(line.slice(0, at));
    case 1:
      return utf8Encode(splice(inString, '\\x'));
    case 2:
      return utf8Encode(splice(inString, '\u0001'));
    case 3:
      return utf8Encode(line.replace(/}$/, ',}'));
    case 4:
      return utf8Encode(line.replace(/:(\d+)/, ':NaN'));
    case 5:
      return utf8Encode(line.replace(/:(\d+)/, ':0$1'));
    case 6:
      return utf8Encode(line.replace(/:(\d+)/, ':$1.'));
    case 7:
      return utf8Encode(splice(inString, '\\u12"'));
    case 8: {
      // Invalid UTF-8 inside a string: valid JSON (the decoder replaces it).
      const bytes = utf8Encode(line);
      const where = utf8Encode(line.slice(0, inString)).length;
      return new Uint8Array([...bytes.subarray(0, where), 0xe2, 0x82, 0xff, 0xc3, ...bytes.subarray(where)]);
    }
    case 9:
      // A non-ASCII byte outside any string.
      return new Uint8Array([...utf8Encode(line.replace(/,/, ',')), 0xc3, 0xa9]);
    default:
      return utf8Encode(splice(inString, '\\uD83D\\uDE00\\'));
  }
}

function generatedLines(seed: number, count: number): string[] {
  const rng = seededRandom(seed);
  const callIds: string[] = [];
  return Array.from({ length: count }, (_, i) => toJson(randomEntry(rng, i, callIds), rng));
}

// ---------------------------------------------------------------- the skeleton of a line, both ways

interface LineSkeletons {
  passed: number;
  refused: number;
}

/**
 * Renders every line of a file twice, fully and (where the guard lets it through) abridged, each with
 * its own running tool-call index, and expects the same view entry and first-user-message text.
 */
function checkSkeletons(lines: readonly Uint8Array[]): LineSkeletons {
  const fullCalls = new ToolCallIndex();
  const abridgedCalls = new ToolCallIndex();
  const counts = { passed: 0, refused: 0 };
  for (const bytes of lines) {
    const full = parsed(bytes);
    if (!full.ok || full.value === null || typeof full.value !== 'object' || Array.isArray(full.value))
      continue;
    const fullEntry = full.value as SessionEntry;
    let entry = fullEntry;
    const result = abridgeLine(bytes, 0, bytes.length);
    if (result) {
      const abridged = parsed(result.bytes);
      expect(abridged.ok).toBe(true);
      const value = (abridged as { value: Record<string, unknown> }).value;
      if (abridgedEntryIsExact(value, result.cuts)) {
        counts.passed++;
        entry = value as SessionEntry;
        expectPrefixShape(entry, fullEntry, ABRIDGE_KEEP_UNITS);
      } else counts.refused++;
    }
    fullCalls.add(fullEntry);
    abridgedCalls.add(entry);
    for (const options of [undefined, { home: '/home/dev' }, { dialect: 'omp' as const }]) {
      expect(toViewEntry(entry, 'a label', abridgedCalls, options)).toEqual(
        toViewEntry(fullEntry, 'a label', fullCalls, options),
      );
    }
    const firstMessage = (e: SessionEntry) => {
      const text = e.type === 'message' ? userMessageText(e.message) : '';
      return text.length > 300 ? text.slice(0, 300) : text;
    };
    expect(firstMessage(entry)).toBe(firstMessage(fullEntry));
  }
  return counts;
}

function fileLines(text: string): Uint8Array[] {
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => utf8Encode(line));
}

describe('abridgeLine', () => {
  test('cuts a long string value to a prefix of at least the kept length and leaves keys and short strings alone', () => {
    const long = 'é'.repeat(400);
    const line = utf8Encode(JSON.stringify({ [long]: 1, short: 'ok', body: long }));
    const result = abridgeLine(line, 0, line.length);
    expect(result?.cuts).toEqual([{ key: 'body', inData: false }]);
    expect(JSON.parse(decoder.decode(result!.bytes))).toEqual({
      [long]: 1,
      short: 'ok',
      body: 'é'.repeat(ABRIDGE_KEEP_UNITS),
    });
  });

  test('never cuts inside an escape or a UTF-8 sequence, and counts a surrogate pair escape as two units', () => {
    const line = utf8Encode(`{"text":"${'\\ud83d\\ude00'.repeat(3)}😀x"}`);
    const result = abridgeLine(line, 0, line.length, 3);
    // Three units kept: two escapes of the first pair and one of the second: a lone high surrogate.
    expect(JSON.parse(decoder.decode(result!.bytes))).toEqual({ text: '😀\ud83d' });
  });

  test('names the key of a string in an array and whether it is inside tool data', () => {
    const line = utf8Encode(
      JSON.stringify({
        message: {
          content: [{ type: 'toolCall', arguments: { edits: ['y'.repeat(900)] } }, 'z'.repeat(900)],
        },
      }),
    );
    expect(abridgeLine(line, 0, line.length)?.cuts).toEqual([
      { key: 'edits', inData: true },
      { key: 'content', inData: false },
    ]);
  });

  test('gives up on a line whose removed tail is not a valid string body', () => {
    for (const tail of ['\\x', '\\u12G4', '\u0001', '', '\\']) {
      const line = utf8Encode(
        `{"text":"${'a'.repeat(400)}${tail}`.concat(tail === '' || tail === '\\' ? '' : '"}'),
      );
      expect(abridgeLine(line, 0, line.length)).toBeUndefined();
    }
  });

  test('accepts exactly what JSON.parse accepts on generated lines, valid and damaged, at every cut length', () => {
    const rng = seededRandom(7);
    let cut = 0;
    for (const line of generatedLines(1, 400)) {
      for (const keep of [0, 1, 2, 5, 41, ABRIDGE_KEEP_UNITS]) {
        if (checkLine(utf8Encode(line), keep)) cut++;
        if (checkLine(damaged(rng, line), keep)) cut++;
      }
    }
    // The generator must exercise cutting on most lines, or this test proves nothing.
    expect(cut).toBeGreaterThan(2000);
  });

  test('accepts exactly what JSON.parse accepts on every line of the project fixtures, at every cut length', () => {
    let lines = 0;
    for (const name of fixtureNames()) {
      for (const line of fileLines(readFileSync(join(fixturesDir(), name), 'utf8'))) {
        lines++;
        for (const keep of [0, 3, 40, ABRIDGE_KEEP_UNITS]) checkLine(line, keep);
      }
    }
    expect(lines).toBeGreaterThan(100);
  });
});

describe('SessionLineParser cutting long strings', () => {
  /** Every batch of a file pushed in the given piece sizes, flattened. */
  function parseAll(bytes: Uint8Array, pieces: readonly number[], abridge: boolean) {
    const parser = new SessionLineParser();
    parser.abridgeLongStrings = abridge;
    const batches: ParseBatch[] = [];
    let at = 0;
    for (let i = 0; at < bytes.length; i++) {
      const size = pieces[i % pieces.length]!;
      batches.push(parser.push(bytes.subarray(at, at + size)));
      at += size;
    }
    batches.push(parser.end());
    return {
      issues: batches.flatMap((batch) => batch.issues),
      header: batches.find((batch) => batch.header)?.header,
      entries: batches.flatMap((batch) => batch.entries),
    };
  }

  test('reports the same header, issues and entry positions as a full parse, on damaged generated files in any pieces', () => {
    const rng = seededRandom(11);
    let abridged = 0;
    for (let file = 0; file < 12; file++) {
      const header = utf8Encode(
        JSON.stringify({
          type: 'session',
          version: 3,
          id: `f${file}`,
          timestamp: '2025-01-01T00:00:00.000Z',
          cwd: '/',
        }),
      );
      const parts: Uint8Array[] = [...(file % 3 === 0 ? [new Uint8Array([0xef, 0xbb, 0xbf])] : []), header];
      for (const line of generatedLines(100 + file, 60)) {
        parts.push(utf8Encode(rng() < 0.1 ? '\r\n' : rng() < 0.05 ? '\n  \n' : '\n'));
        parts.push(rng() < 0.3 ? damaged(rng, line) : utf8Encode(line));
      }
      if (file % 2 === 0) parts.push(utf8Encode('\n'));
      const bytes = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
      parts.reduce((offset, part) => (bytes.set(part, offset), offset + part.length), 0);
      const pieces = [1 + Math.floor(rng() * 5000), 1 + Math.floor(rng() * 300)];

      const full = parseAll(bytes, pieces, false);
      const cut = parseAll(bytes, pieces, true);
      expect(cut.issues).toEqual(full.issues);
      expect(cut.header).toEqual(full.header);
      const position = ({ line, offset, length, entry }: (typeof full.entries)[number]) => ({
        line,
        offset,
        length,
        id: entry.id,
      });
      expect(cut.entries.map(position)).toEqual(full.entries.map(position));
      cut.entries.forEach(({ entry }, i) => {
        if (isAbridged(entry)) abridged++;
        expectPrefixShape(entry, full.entries[i]!.entry, ABRIDGE_KEEP_UNITS);
      });
      expect(full.entries.some(({ entry }) => isAbridged(entry))).toBe(false);
    }
    expect(abridged).toBeGreaterThan(20);
  });
});

describe('the skeleton of an abridged entry', () => {
  test('equals the one of the full entry on generated sessions, and the guard lets most long lines through', () => {
    const counts = checkSkeletons(generatedLines(2, 600).map((line) => utf8Encode(line)));
    expect(counts.passed).toBeGreaterThan(100);
    expect(counts.refused).toBeGreaterThan(10);
  });

  test('equals the one of the full entry on every project fixture', () => {
    for (const name of fixtureNames())
      checkSkeletons(fileLines(readFileSync(join(fixturesDir(), name), 'utf8')));
  });
});

/** A session file of generated long entries under a header, as bytes. */
function generatedSessionBytes(seed: number, count: number): Uint8Array {
  const header = JSON.stringify({
    type: 'session',
    version: 3,
    id: 's1',
    timestamp: '2025-01-01T00:00:00.000Z',
    cwd: '/w',
  });
  return utf8Encode(`${[header, ...generatedLines(seed, count)].join('\n')}\n`);
}

function treeEntries(nodes: readonly SessionTreeNode[]): SessionEntry[] {
  const out: SessionEntry[] = [];
  const pending = [...nodes];
  for (let node = pending.pop(); node; node = pending.pop()) {
    out.push(node.entry);
    pending.push(...node.children);
  }
  return out;
}

describe('SessionManager loading keeping only its index', () => {
  test('hands abridged entries to onEntries whose view entries equal a full load, and no getter returns one', () => {
    const bytes = generatedSessionBytes(3, 300);
    const views = (retain: 'all' | 'index') => {
      const toolCalls = new ToolCallIndex();
      const seen: SessionEntry[] = [];
      const rendered: unknown[] = [];
      const session = SessionManager.fromJsonl(bytes, {
        retain,
        readRange: bytesReader(bytes),
        onEntries: (entries) => {
          toolCalls.addEntries(entries);
          for (const entry of entries) {
            seen.push(entry);
            rendered.push(toViewEntry(entry, undefined, toolCalls));
          }
        },
      });
      return { session, seen, rendered };
    };
    const all = views('all');
    const index = views('index');
    expect(index.rendered).toEqual(all.rendered);
    expect(all.seen.some(isAbridged)).toBe(false);
    expect(index.seen.filter(isAbridged).length).toBeGreaterThan(10);

    const session = index.session;
    const returned = [
      ...session.getEntries(),
      ...treeEntries(session.getTree()),
      ...session.getBranch(),
      ...session.getChildren('e10'),
      ...index.seen.map((entry) => session.getEntry(entry.id)!),
      session.getLeafEntry()!,
    ];
    expect(returned.filter(isAbridged)).toEqual([]);
    expect(session.getEntries()).toEqual(all.session.getEntries());
    expect(session.buildSessionContext()).toEqual(all.session.buildSessionContext());
  });

  test('parses lines appended after the load in full', () => {
    const bytes = generatedSessionBytes(4, 20);
    const seen: SessionEntry[] = [];
    let file = bytes;
    const session = SessionManager.fromJsonl(bytes, {
      retain: 'index',
      readRange: (offset, length) => file.slice(offset, offset + length),
      onEntries: (entries) => seen.push(...entries),
    });
    const appended = utf8Encode(
      `${JSON.stringify({ type: 'message', id: 'late', parentId: null, timestamp: 't', message: { role: 'user', content: 'q'.repeat(2000) } })}\n`,
    );
    file = new Uint8Array([...bytes, ...appended]);
    const { entries } = session.ingest(appended);
    expect(entries.map(isAbridged)).toEqual([false]);
    expect(seen.at(-1)).toBe(entries[0]);
  });

  test('keeps a legacy file whole and never abridges its lines', () => {
    const header = JSON.stringify({ type: 'session', version: 2, id: 's', timestamp: 't', cwd: '/' });
    const body = JSON.stringify({
      type: 'message',
      id: 'a',
      parentId: null,
      timestamp: 't',
      message: { role: 'user', content: 'w'.repeat(2000) },
    });
    const bytes = utf8Encode(`${header}\n${body}\n`);
    const seen: SessionEntry[] = [];
    SessionManager.fromJsonl(bytes, {
      retain: 'index',
      readRange: bytesReader(bytes),
      onEntries: (e) => seen.push(...e),
    });
    expect(seen.map(isAbridged)).toEqual([false]);
    expect((seen[0] as { message: { content: string } }).message.content).toHaveLength(2000);
  });
});
