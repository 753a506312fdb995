import { describe, expect, it } from 'vitest';
import { SessionLineParser, parseSessionText, parseTitleSlot, utf8Length } from './parse';
import type { ParseBatch } from './parse';

const encoder = new TextEncoder();
const HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}';

function entryLine(id: string, parentId: string | null, extra = ''): string {
  return `{"type":"message","id":"${id}","parentId":${parentId === null ? 'null' : `"${parentId}"`},"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi${extra}","timestamp":1}}`;
}

function merge(batches: ParseBatch[]): ParseBatch {
  const merged: ParseBatch = { entries: [], issues: [] };
  for (const batch of batches) {
    if (batch.header) merged.header = batch.header;
    if (batch.titleSlot) merged.titleSlot = batch.titleSlot;
    merged.entries.push(...batch.entries);
    merged.issues.push(...batch.issues);
  }
  return merged;
}

function kinds(batch: { issues: { line: number; kind: string }[] }): string[] {
  return batch.issues.map((issue) => `${issue.line}:${issue.kind}`);
}

describe('SessionLineParser chunking', () => {
  it('yields only complete lines and buffers the partial last one', () => {
    const parser = new SessionLineParser();
    const text = `${HEADER}\n${entryLine('a', null)}\n`;
    const first = parser.push(text.slice(0, HEADER.length + 10));
    expect(first.header?.line).toBe(1);
    expect(first.entries).toEqual([]);
    expect(parser.lineCount).toBe(1);
    expect(parser.consumedBytes).toBe(HEADER.length + 1);
    expect(parser.pendingBytes).toBe(9);

    const second = parser.push(text.slice(HEADER.length + 10));
    expect(second.entries.map((parsed) => [parsed.line, parsed.entry.id])).toEqual([[2, 'a']]);
    expect(parser.pendingBytes).toBe(0);
    expect(parser.consumedBytes).toBe(text.length);
  });

  it('keeps a multi-byte character whole when a byte chunk splits it, and counts bytes exactly', () => {
    const text = `${HEADER}\n${entryLine('a', null, ' é😀中')}\n`;
    const bytes = encoder.encode(text);
    const emoji = bytes.indexOf(0xf0);
    const parser = new SessionLineParser();
    const batches = [
      parser.push(bytes.subarray(0, emoji + 2)),
      parser.push(bytes.subarray(emoji + 2, emoji + 3)),
      parser.push(bytes.subarray(emoji + 3)),
    ];
    const merged = merge(batches);
    expect(merged.entries).toHaveLength(1);
    expect((merged.entries[0]?.entry.message as { content: string }).content).toBe('hi é😀中');
    expect(parser.consumedBytes).toBe(bytes.length);
    expect(merged.issues).toEqual([]);
  });

  it('reports pendingBytes in bytes for a partial line given as text', () => {
    const parser = new SessionLineParser();
    parser.push(`${HEADER}\n{"type":"message","id":"é`);
    expect(parser.pendingBytes).toBe(encoder.encode('{"type":"message","id":"é').length);
  });

  it('continues a partial line given as text with byte chunks', () => {
    const text = `${HEADER}\n${entryLine('a', null, ' ü')}\n`;
    const split = text.indexOf('ü');
    const parser = new SessionLineParser();
    const merged = merge([parser.push(text.slice(0, split)), parser.push(encoder.encode(text.slice(split)))]);
    expect(merged.entries.map((parsed) => parsed.entry.id)).toEqual(['a']);
    expect(parser.consumedBytes).toBe(encoder.encode(text).length);
  });

  it('strips \\r of CRLF endings and counts it in consumedBytes', () => {
    const text = `${HEADER}\r\n${entryLine('a', null)}\r\n`;
    const parser = new SessionLineParser();
    const batch = parser.push(encoder.encode(text));
    expect(batch.header?.header.id).toBe('s1');
    expect(batch.entries.map((parsed) => parsed.entry.id)).toEqual(['a']);
    expect(batch.issues).toEqual([]);
    expect(parser.consumedBytes).toBe(text.length);
  });

  it('skips blank and whitespace-only lines without issues but counts them as lines', () => {
    const text = `\n${HEADER}\n\n   \n\t\r\n${entryLine('a', null)}\n`;
    const batch = new SessionLineParser().push(text);
    expect(batch.header?.line).toBe(2);
    expect(batch.entries.map((parsed) => parsed.line)).toEqual([6]);
    expect(batch.issues).toEqual([]);
  });

  it('ignores a UTF-8 byte-order mark at the start of the file, in bytes or in text', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode(`${HEADER}\n`)]);
    const fromBytes = new SessionLineParser();
    expect(fromBytes.push(bytes.subarray(0, 2)).header).toBeUndefined();
    expect(fromBytes.push(bytes.subarray(2)).header?.header.id).toBe('s1');
    expect(fromBytes.consumedBytes).toBe(bytes.length);

    const fromText = new SessionLineParser();
    const batch = fromText.push(`\uFEFF${HEADER}\n`);
    expect(batch.header?.header.id).toBe('s1');
    expect(batch.issues).toEqual([]);
  });

  it('does not strip a byte-order mark in the middle of the file', () => {
    const batch = new SessionLineParser().push(`${HEADER}\n\uFEFF${entryLine('a', null)}\n`);
    expect(batch.entries).toEqual([]);
    expect(kinds(batch)).toEqual(['2:invalid-json']);
  });

  it('copies a chunk it buffers, so the caller may reuse its read buffer', () => {
    const parser = new SessionLineParser();
    const buffer = encoder.encode(`${HEADER}\n{"type":"message","id":"a"`);
    parser.push(buffer);
    buffer.fill(0x20);
    const batch = parser.push(',"parentId":null,"timestamp":"t"}\n');
    expect(batch.entries.map((parsed) => parsed.entry.id)).toEqual(['a']);
  });

  it('copies what it buffers from a Node Buffer too (whose slice is a view), whether the chunk has a newline or not', () => {
    // A server reads a file into one reused Buffer; `Buffer#slice` shares its memory.
    const parser = new SessionLineParser();
    const reused = Buffer.alloc(256);
    const pieces = [`${HEADER}\n{"type":"message","id":"a"`, ',"parentId":null,', '"timestamp":"t"}\n'];
    const merged = merge(pieces.map((piece) => parser.push(reused.subarray(0, reused.write(piece)))));
    expect(merged.entries.map((parsed) => parsed.entry.id)).toEqual(['a']);
    expect(merged.issues).toEqual([]);
  });
});

describe('SessionLineParser classification', () => {
  it('reports a line that is not JSON with its line number and the parser reason', () => {
    const batch = new SessionLineParser().push(`${HEADER}\n${entryLine('a', null)}\nthis is not json\n`);
    expect(kinds(batch)).toEqual(['3:invalid-json']);
    expect(batch.issues[0]?.message).toMatch(/^line 3: not valid JSON \(.+\); skipped$/);
  });

  it('reports JSON values that are not objects, naming what they are', () => {
    const batch = new SessionLineParser().push(`${HEADER}\n[1,2,3]\n42\nnull\n"text"\ntrue\n`);
    expect(batch.issues.map((issue) => issue.message)).toEqual([
      'line 2: an array, not a JSON object; skipped',
      'line 3: a number, not a JSON object; skipped',
      'line 4: null, not a JSON object; skipped',
      'line 5: a string, not a JSON object; skipped',
      'line 6: a boolean, not a JSON object; skipped',
    ]);
    expect(batch.issues.every((issue) => issue.kind === 'not-object')).toBe(true);
  });

  it('reports a missing header on the first object line and still loads the entries', () => {
    const parser = new SessionLineParser();
    const batch = parser.push(`${entryLine('a', null)}\n${entryLine('b', 'a')}\n`);
    expect(kinds(batch)).toEqual(['1:missing-header']);
    expect(batch.issues[0]?.message).toContain('found a "message" entry');
    expect(batch.entries.map((parsed) => parsed.entry.id)).toEqual(['a', 'b']);
    expect(parser.header).toBeUndefined();
    expect(parser.version).toBeUndefined();
  });

  it('takes the header from the first object line when unparsable lines come before it', () => {
    const batch = new SessionLineParser().push(`garbage\n${HEADER}\n${entryLine('a', null)}\n`);
    expect(kinds(batch)).toEqual(['1:invalid-json']);
    expect(batch.header?.line).toBe(2);
    expect(batch.entries).toHaveLength(1);
  });

  it('reports a session header without a string id as invalid and loads the rest headerless', () => {
    const parser = new SessionLineParser();
    const batch = parser.push(`{"type":"session","id":7}\n${entryLine('a', null)}\n`);
    expect(kinds(batch)).toEqual(['1:invalid-header']);
    expect(parser.header).toBeUndefined();
    expect(batch.entries.map((parsed) => parsed.entry.id)).toEqual(['a']);
  });

  it('ignores a second session header and reports it', () => {
    const batch = new SessionLineParser().push(`${HEADER}\n${HEADER}\n${entryLine('a', null)}\n`);
    expect(kinds(batch)).toEqual(['2:extra-header']);
    expect(batch.entries).toHaveLength(1);
  });

  it('keeps entries with an id but no string type in the tree, each with an issue; skips them without an id', () => {
    const batch = new SessionLineParser().push(
      `${HEADER}\n{"id":"a","parentId":null}\n{"type":5,"id":"b","parentId":"a"}\n{"parentId":null}\n`,
    );
    expect(kinds(batch)).toEqual(['2:unknown-type', '3:unknown-type', '4:invalid-entry']);
    expect(batch.issues[0]?.message).toBe('line 2: an entry without a string "type"; kept as it is');
    expect(batch.entries.map(({ entry }) => entry.id)).toEqual(['a', 'b']);
    expect(batch.entries[1]?.entry).toEqual({ type: 5, id: 'b', parentId: 'a' });
  });

  it('reports and skips entries of a v3 file without a usable id', () => {
    const batch = new SessionLineParser().push(
      `${HEADER}\n{"type":"message","parentId":null}\n{"type":"label","id":""}\n{"type":"custom","id":12}\n`,
    );
    expect(batch.issues.map((issue) => issue.message)).toEqual([
      'line 2: a "message" entry that has no id; skipped',
      'line 3: a "label" entry that has an empty id; skipped',
      'line 4: a "custom" entry that has a non-string id; skipped',
    ]);
    expect(batch.entries).toEqual([]);
  });

  it('passes the id-less entries of a v1 file through for the migration, without issues', () => {
    const parser = new SessionLineParser();
    const batch = parser.push(
      '{"type":"session","id":"old","timestamp":"t","cwd":"/"}\n{"type":"message","timestamp":"t","message":{"role":"user","content":"x","timestamp":1}}\n',
    );
    expect(parser.version).toBe(1);
    expect(batch.issues).toEqual([]);
    expect(batch.entries).toHaveLength(1);
    expect(batch.entries[0]?.entry.id).toBeUndefined();
  });

  it('keeps entries of an unknown type verbatim and reports them as a notice', () => {
    const line = '{"type":"future_kind","id":"f","parentId":null,"timestamp":"t","payload":{"x":[1,2]}}';
    const batch = new SessionLineParser().push(`${HEADER}\n${line}\n`);
    expect(kinds(batch)).toEqual(['2:unknown-type']);
    expect(batch.issues[0]?.message).toBe('line 2: unknown entry type "future_kind"; kept as it is');
    expect(batch.entries[0]?.entry).toEqual(JSON.parse(line));
  });

  it('accepts the oh-my-pi title slot line before the header', () => {
    const parser = new SessionLineParser();
    const batch = parser.push(`{"type":"title","v":1,"title":"Fix the bug","pad":"   "}\n${HEADER}\n`);
    expect(batch.issues).toEqual([]);
    expect(batch.titleSlot?.slot.title).toBe('Fix the bug');
    expect(batch.header?.line).toBe(2);
  });
});

describe('SessionLineParser end of input', () => {
  it('reports a cut-off last line as truncated-line when the input ends, and drops it', () => {
    const parser = new SessionLineParser();
    parser.push(`${HEADER}\n{"type":"message","id":"x`);
    const tail = parser.end();
    expect(tail.issues).toEqual([
      {
        line: 2,
        kind: 'truncated-line',
        message:
          'line 2: cut off: the last line has no terminating newline (25 bytes so far); it is ignored until it is complete',
      },
    ]);
    expect(parser.pendingBytes).toBe(0);
  });

  it('reports the remainder without consuming it, so more bytes can still complete the line', () => {
    const parser = new SessionLineParser();
    parser.push(`${HEADER}\n{"type":"message","id":"a","parentId":null`);
    expect(parser.remainderIssue()?.kind).toBe('truncated-line');
    const batch = parser.push(',"timestamp":"t"}\n');
    expect(batch.entries.map((parsed) => parsed.entry.id)).toEqual(['a']);
    expect(parser.remainderIssue()).toBeUndefined();
  });

  it('does not report a whitespace-only remainder', () => {
    const parser = new SessionLineParser();
    parser.push(`${HEADER}\n  \t`);
    expect(parser.end().issues).toEqual([]);
    const nonBreaking = new SessionLineParser();
    nonBreaking.push(encoder.encode(`${HEADER}\n\u00a0`));
    expect(nonBreaking.end().issues).toEqual([]);
  });
});

describe('SessionLineParser accounting of own writes', () => {
  it('advances line and byte counts for lines this process wrote', () => {
    const parser = new SessionLineParser();
    parser.push(`${HEADER}\n`);
    parser.noteWritten(`${entryLine('a', null, 'é')}\n`);
    expect(parser.lineCount).toBe(2);
    expect(parser.consumedBytes).toBe(encoder.encode(`${HEADER}\n${entryLine('a', null, 'é')}\n`).length);
    const batch = parser.push(`${entryLine('b', 'a')}\n`);
    expect(batch.entries[0]?.line).toBe(3);
  });

  it('refuses to account for written lines while a partial line is buffered', () => {
    const parser = new SessionLineParser();
    parser.push(`${HEADER}\n{"type"`);
    expect(() => parser.noteWritten(`${entryLine('a', null)}\n`)).toThrow(/partial line/);
  });

  it('starts over on a rewritten file with the given header', () => {
    const parser = new SessionLineParser();
    parser.push('{"type":"session","id":"old","timestamp":"t","cwd":"/"}\n');
    expect(parser.allowEntriesWithoutId).toBe(true);
    const header = JSON.parse(HEADER);
    parser.restart(`${HEADER}\n${entryLine('a', null)}\n`, header);
    expect(parser.lineCount).toBe(2);
    expect(parser.version).toBe(3);
    expect(parser.allowEntriesWithoutId).toBe(false);
    expect(kinds(parser.push(`${HEADER}\n`))).toEqual(['3:extra-header']);
  });
});

describe('parseSessionText', () => {
  it('returns header, entries with their lines, issues, version and whether to migrate', () => {
    const result = parseSessionText(
      `{"type":"session","version":2,"id":"s","timestamp":"t","cwd":"/"}\nbad\n${entryLine('a', null)}\n{"cut`,
    );
    expect(result.header?.id).toBe('s');
    expect(result.version).toBe(2);
    expect(result.needsMigration).toBe(true);
    expect(result.entries.map((entry) => entry.id)).toEqual(['a']);
    expect(result.entryLines).toEqual([3]);
    expect(kinds(result)).toEqual(['2:invalid-json', '4:truncated-line']);
  });

  it('does not ask to migrate a current or newer file, or a file without a header', () => {
    expect(parseSessionText(`${HEADER}\n`).needsMigration).toBe(false);
    const newer = parseSessionText('{"type":"session","version":4,"id":"s","timestamp":"t","cwd":"/"}\n');
    expect(newer.version).toBe(4);
    expect(newer.needsMigration).toBe(false);
    expect(parseSessionText(`${entryLine('a', null)}\n`).needsMigration).toBe(false);
  });

  it('returns nothing and no issues for an empty text', () => {
    expect(parseSessionText('')).toEqual({
      header: undefined,
      titleSlot: undefined,
      entries: [],
      entryLines: [],
      issues: [],
      version: undefined,
      needsMigration: false,
    });
  });
});

describe('utf8Length', () => {
  it('equals the length of the UTF-8 encoding, short and long, with pairs and lone surrogates', () => {
    const samples = [
      '',
      'plain ascii',
      'é中😀',
      '\ud800 lone high',
      'lone low \udc00',
      'x'.repeat(32767) + '😀'.repeat(3) + 'tail',
      'ab😀中é\ud800'.repeat(20000),
    ];
    for (const sample of samples) expect(utf8Length(sample)).toBe(encoder.encode(sample).length);
  });
});

describe('parseTitleSlot', () => {
  it('reads an oh-my-pi title line, and nothing else', () => {
    expect(parseTitleSlot('{"type":"title","v":1,"title":"Fix it","pad":"   "}\n')).toEqual({
      type: 'title',
      v: 1,
      title: 'Fix it',
      pad: '   ',
    });
    expect(parseTitleSlot('{"type":"session","id":"s"}')).toBeUndefined();
    expect(parseTitleSlot('{"type":"title","title":"cut')).toBeUndefined();
    expect(parseTitleSlot('[{"type":"title"}]')).toBeUndefined();
  });
});
