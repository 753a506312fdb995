// The small TypeScript project the demo conversations work on ("tiny-csv"), at each stage of the
// story, and the tool outputs an agent would have seen. Plain data, so the story reads like a script.

export const PROJECT_CWD = '/home/dev/projects/tiny-csv';

export const PACKAGE_JSON = `{
  "name": "tiny-csv",
  "version": "1.0.3",
  "type": "module",
  "main": "dist/index.js",
  "scripts": {
    "build": "tsc -p tsconfig.json",
    "test": "vitest run"
  },
  "devDependencies": {
    "typescript": "5.9.3",
    "vitest": "4.1.12"
  }
}
`;

export const PARSE_TS_BUGGY = `export interface ParseOptions {
  delimiter?: string;
}

/** Parses CSV text into rows of fields. */
export function parseCsv(text: string, options: ParseOptions = {}): string[][] {
  const delimiter = options.delimiter ?? ',';
  return text
    .split('\\n')
    .filter((line) => line.length > 0)
    .map((line) => line.split(delimiter).map((field) => field.replace(/^"|"$/g, '')));
}
`;

export const INDEX_TS = `export { parseCsv } from './parse';
export type { ParseOptions } from './parse';
`;

export const PARSE_TEST_TS = `import { describe, expect, it } from 'vitest';
import { parseCsv } from '../src/parse';

describe('parseCsv', () => {
  it('parses simple rows', () => {
    expect(parseCsv('a,b\\nc,d\\n')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('parses quoted fields with commas', () => {
    expect(parseCsv('name,notes\\n"Smith, J","likes ""tea"""\\n')).toEqual([
      ['name', 'notes'],
      ['Smith, J', 'likes "tea"'],
    ]);
  });

  it('keeps empty fields', () => {
    expect(parseCsv('a,,c\\n')).toEqual([['a', '', 'c']]);
  });

  it('supports a custom delimiter', () => {
    expect(parseCsv('a;b\\n', { delimiter: ';' })).toEqual([['a', 'b']]);
  });
});
`;

export const README_MD = `# tiny-csv

A very small CSV parser without dependencies.

\`\`\`ts
import { parseCsv } from 'tiny-csv';

parseCsv('a,b\\nc,d\\n'); // [['a', 'b'], ['c', 'd']]
\`\`\`

Options: \`delimiter\` (default \`,\`).
`;

export const TEST_FAIL_QUOTED = ` RUN  v4.1.12 /home/dev/projects/tiny-csv

 ❯ test/parse.test.ts (4 tests | 1 failed) 9ms
   ✓ parseCsv > parses simple rows 2ms
   × parseCsv > parses quoted fields with commas 5ms
     → expected [ [ 'name', 'notes' ], [ '"Smith', ' J"', 'likes ""tea""' ] ] to deeply equal [ [ 'name', 'notes' ], [ 'Smith, J', 'likes "tea"' ] ]
   ✓ parseCsv > keeps empty fields 0ms
   ✓ parseCsv > supports a custom delimiter 0ms

⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  test/parse.test.ts > parseCsv > parses quoted fields with commas
AssertionError: expected [ [ 'name', 'notes' ], …(1) ] to deeply equal [ [ 'name', 'notes' ], …(1) ]

- Expected
+ Received

  [
    [
      "name",
      "notes",
    ],
    [
-     "Smith, J",
-     "likes \\"tea\\"",
+     "\\"Smith",
+     " J\\"",
+     "likes \\"\\"tea\\"\\"",
    ],
  ]

 ❯ test/parse.test.ts:13:58

 Test Files  1 failed (1)
      Tests  1 failed | 3 passed (4)
   Start at  09:14:31
   Duration  312ms

Command exited with code 1`;

export const PARSE_TS_REGEX = `export interface ParseOptions {
  delimiter?: string;
}

// Split on delimiters that are followed by an even number of quotes.
const splitter = (delimiter: string) => new RegExp(\`\${delimiter}(?=(?:[^"]*"[^"]*")*[^"]*$)\`);

/** Parses CSV text into rows of fields. */
export function parseCsv(text: string, options: ParseOptions = {}): string[][] {
  const delimiter = options.delimiter ?? ',';
  return text
    .split('\\n')
    .filter((line) => line.length > 0)
    .map((line) => line.split(splitter(delimiter)).map((field) => field.replace(/^"|"$/g, '')));
}
`;

export const TEST_FAIL_ESCAPED = ` RUN  v4.1.12 /home/dev/projects/tiny-csv

 ❯ test/parse.test.ts (4 tests | 1 failed) 8ms
   ✓ parseCsv > parses simple rows 1ms
   × parseCsv > parses quoted fields with commas 4ms
     → expected [ [ 'name', 'notes' ], [ 'Smith, J', 'likes ""tea""' ] ] to deeply equal [ [ 'name', 'notes' ], [ 'Smith, J', 'likes "tea"' ] ]
   ✓ parseCsv > keeps empty fields 0ms
   ✓ parseCsv > supports a custom delimiter 1ms

 Test Files  1 failed (1)
      Tests  1 failed | 3 passed (4)

Command exited with code 1`;

export const TEST_FAIL_DELIMITER = ` RUN  v4.1.12 /home/dev/projects/tiny-csv

 ❯ test/parse.test.ts (4 tests | 2 failed) 11ms
   ✓ parseCsv > parses simple rows 1ms
   ✓ parseCsv > parses quoted fields with commas 2ms
   ✓ parseCsv > keeps empty fields 0ms
   × parseCsv > supports a custom delimiter 3ms
     → expected [ [ 'a;b' ] ] to deeply equal [ [ 'a', 'b' ] ]

SyntaxError: Invalid regular expression: /|(?=(?:[^"]*"[^"]*")*[^"]*$)/: Nothing to repeat
 ❯ splitter src/parse.ts:6:46

 Test Files  1 failed (1)
      Tests  2 failed | 2 passed (4)

Command exited with code 1`;

export const PARSE_TS_STATE_MACHINE = `export interface ParseOptions {
  delimiter?: string;
}

type State = 'fieldStart' | 'unquoted' | 'quoted' | 'quoteInQuoted';

/**
 * Parses CSV text into rows of fields (RFC 4180): quoted fields may hold delimiters, line breaks and
 * doubled quotes; both \\n and \\r\\n end a record.
 */
export function parseCsv(text: string, options: ParseOptions = {}): string[][] {
  const delimiter = options.delimiter ?? ',';
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let state: State = 'fieldStart';

  const endField = () => {
    row.push(field);
    field = '';
    state = 'fieldStart';
  };
  const endRow = () => {
    endField();
    rows.push(row);
    row = [];
  };

  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (state === 'quoted') {
      if (char === '"') state = 'quoteInQuoted';
      else field += char;
    } else if (state === 'quoteInQuoted') {
      if (char === '"') {
        field += '"';
        state = 'quoted';
      } else if (char === delimiter) endField();
      else if (char === '\\n') endRow();
      else if (char !== '\\r') field += char;
    } else if (char === '"' && state === 'fieldStart') state = 'quoted';
    else if (char === delimiter) endField();
    else if (char === '\\n') endRow();
    else if (char !== '\\r') {
      field += char;
      state = 'unquoted';
    }
  }
  if (field !== '' || row.length > 0) endRow();
  return rows;
}
`;

export const TSC_ERROR = `src/parse.ts(31,11): error TS2322: Type 'string | undefined' is not assignable to type 'string'.
  Type 'undefined' is not assignable to type 'string'.

Command exited with code 2`;

export const TEST_PASS_4 = ` RUN  v4.1.12 /home/dev/projects/tiny-csv

 ✓ test/parse.test.ts (4 tests) 6ms
   ✓ parseCsv > parses simple rows 1ms
   ✓ parseCsv > parses quoted fields with commas 1ms
   ✓ parseCsv > keeps empty fields 0ms
   ✓ parseCsv > supports a custom delimiter 0ms

 Test Files  1 passed (1)
      Tests  4 passed (4)
   Start at  09:41:07
   Duration  287ms`;

export const TEST_PASS_7 = ` RUN  v4.1.12 /home/dev/projects/tiny-csv

 ✓ test/parse.test.ts (7 tests) 7ms
   ✓ parseCsv > parses simple rows 1ms
   ✓ parseCsv > parses quoted fields with commas 1ms
   ✓ parseCsv > keeps empty fields 0ms
   ✓ parseCsv > supports a custom delimiter 0ms
   ✓ parseCsv > keeps line breaks inside quoted fields 1ms
   ✓ parseCsv > accepts CRLF line endings 0ms
   ✓ parseCsv > treats a lone trailing newline as the end of the last row 0ms

 Test Files  1 passed (1)
      Tests  7 passed (7)
   Start at  09:47:52
   Duration  301ms`;

export const TEST_PASS_8 = TEST_PASS_7.replace('(7 tests) 7ms', '(8 tests) 8ms')
  .replace(
    '   ✓ parseCsv > treats a lone trailing newline as the end of the last row 0ms',
    '   ✓ parseCsv > treats a lone trailing newline as the end of the last row 0ms\n   ✓ parseCsv > strips a UTF-8 byte order mark 0ms',
  )
  .replace('Tests  7 passed (7)', 'Tests  8 passed (8)')
  .replace('09:47:52', '10:03:18');

export const GIT_DIFF_STAT = ` src/parse.ts       | 58 ++++++++++++++++++++++++++++++++++++++++++++++++++-------
 test/parse.test.ts | 21 +++++++++++++++++++++
 2 files changed, 72 insertions(+), 7 deletions(-)`;

export const GIT_LOG = `9c1e2f4 (HEAD -> main) Parse quoted fields with a state machine
41b07aa Add custom delimiter option
0d3c5e1 Initial parser`;

export const BUILD_OK = `> tiny-csv@1.1.0 build /home/dev/projects/tiny-csv
> tsc -p tsconfig.json
`;

export const GREP_DELIMITER = `src/parse.ts:2:  delimiter?: string;
src/parse.ts:12:  const delimiter = options.delimiter ?? ',';
test/parse.test.ts:26:  it('supports a custom delimiter', () => {
test/parse.test.ts:27:    expect(parseCsv('a;b\\n', { delimiter: ';' })).toEqual([['a', 'b']]);
README.md:11:Options: \`delimiter\` (default \`,\`).`;

export const NEW_TESTS = `
  it('keeps line breaks inside quoted fields', () => {
    expect(parseCsv('"a\\nb",c\\n')).toEqual([['a\\nb', 'c']]);
  });

  it('accepts CRLF line endings', () => {
    expect(parseCsv('a,b\\r\\nc,d\\r\\n')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('treats a lone trailing newline as the end of the last row', () => {
    expect(parseCsv('a,b\\n')).toEqual([['a', 'b']]);
  });
`;
