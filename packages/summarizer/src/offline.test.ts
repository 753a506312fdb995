import { describe, expect, it } from 'vitest';
import { buildEveryKindBranch, buildFixBugBranch, SessionBuilder } from '../test/sessions';
import { createOfflineSummarizer, summarizeOffline } from './offline';
import type { SummaryProgress } from './types';

const signal = () => new AbortController().signal;

/** The lines of one `## ` or `### ` section of a summary, without its heading. */
function section(summary: string, heading: string): string[] {
  const lines = summary.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`no section ${heading} in:\n${summary}`);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => line === '' || line.startsWith('#'));
  return end < 0 ? rest : rest.slice(0, end);
}

/** The summary without the file lists appended after it. */
function body(summary: string): string {
  return summary.replace(/\n\n<read-files>[\s\S]*$|\n\n<modified-files>[\s\S]*$/, '');
}

describe('the offline summariser', () => {
  it('names the goal, what was done, the tools by file, the errors and the open end', async () => {
    const { summary } = await createOfflineSummarizer().summarize(buildFixBugBranch().entries(), {
      signal: signal(),
    });
    expect(
      summary.startsWith(
        'The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n_Offline summary of 15 entries, written without a model._\n\n## Goal\n',
      ),
    ).toBe(true);
    expect(section(summary, '## Goal')).toEqual([
      '- Fix the crash in src/parser.ts when the input is empty. Do not change the exported names.',
      '- Also handle whitespace-only input',
    ]);
    expect(section(summary, '## Constraints & Preferences')).toEqual(['- Do not change the exported names.']);
    expect(section(summary, '### Done')).toEqual([
      '- [x] The parser now returns undefined for empty input; added test/empty-input.test.ts and the tests pass.',
    ]);
    expect(section(summary, '### Tool calls')).toEqual([
      '- `read` src/parser.ts',
      '- `read` test/parser.test.ts',
      '- `edit` src/parser.ts (2×)',
      '- `bash` (2×): `npm test -- parser`',
      '- `write` test/empty-input.test.ts',
    ]);
    expect(section(summary, '### In Progress')).toEqual([
      '- [ ] Also handle whitespace-only input (aborted)',
    ]);
    expect(section(summary, '### Blocked')).toEqual([
      '- `edit` src/parser.ts failed: Could not find the exact text in src/parser.ts',
      '- `bash` npm test -- parser failed: FAIL test/parser.test.ts',
      '- Turn aborted while working on: Also handle whitespace-only input',
    ]);
    expect(section(summary, '## Next Steps')).toEqual([
      '1. Resume the aborted turn: Also handle whitespace-only input',
    ]);
    expect(summary).not.toContain('## Key Decisions');
    expect(summary).not.toContain('## Critical Context');
  });

  it('lists the files read and modified as the reference tracks them, in details and after the text', async () => {
    const { summary, details } = await createOfflineSummarizer().summarize(buildFixBugBranch().entries(), {
      signal: signal(),
    });
    expect(details).toEqual({
      readFiles: ['test/parser.test.ts'],
      modifiedFiles: ['src/parser.ts', 'test/empty-input.test.ts'],
    });
    expect(
      summary.endsWith(
        '\n\n<read-files>\ntest/parser.test.ts\n</read-files>\n\n<modified-files>\nsrc/parser.ts\ntest/empty-input.test.ts\n</modified-files>',
      ),
    ).toBe(true);
  });

  it('gives the same text for the same conversation written twice (different ids and times)', async () => {
    const first = await createOfflineSummarizer().summarize(buildFixBugBranch().entries(), {
      signal: signal(),
    });
    const second = await createOfflineSummarizer().summarize(buildFixBugBranch().entries(), {
      signal: signal(),
    });
    expect(buildFixBugBranch().entries()[0]?.id).not.toBe(buildFixBugBranch().entries()[0]?.id);
    expect(second).toEqual(first);
  });

  it('adds the files of nested pi summaries but not of extension summaries, and keeps their gist', async () => {
    const s = new SessionBuilder();
    const root = s.user('Start');
    s.manager.branchWithSummary(
      root,
      'The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n## Goal\nTried a cache.\n\n<read-files>\nnotes/cache.md\n</read-files>',
      { readFiles: ['notes/cache.md', 'src/shared.ts'], modifiedFiles: ['src/cache.ts'] },
    );
    s.manager.branchWithSummary(
      s.manager.getLeafId(),
      'Extension notes',
      { readFiles: ['ext.md'], modifiedFiles: ['ext.ts'] },
      true,
    );
    s.useTools([s.toolCall('edit', { path: 'src/shared.ts', oldText: 'a', newText: 'b' })]);
    s.say('Done.');
    const { summary, details } = await createOfflineSummarizer().summarize(s.entries(), { signal: signal() });
    expect(details).toEqual({
      readFiles: ['notes/cache.md'],
      modifiedFiles: ['src/cache.ts', 'src/shared.ts'],
    });
    expect(section(summary, '## Critical Context')).toEqual([
      '- Earlier branch summary: ## Goal Tried a cache.',
      '- Earlier branch summary: Extension notes',
    ]);
  });

  it('reports model errors, failing shell commands, unanswered requests and model changes', async () => {
    const s = new SessionBuilder();
    s.user('Run the build');
    s.manager.appendMessage({
      role: 'bashExecution',
      command: 'make all',
      output: 'error: missing header',
      exitCode: 2,
      cancelled: false,
      truncated: false,
      timestamp: 1,
    });
    s.manager.appendModelChange('anthropic', 'claude-sonnet-4-5');
    s.assistant([], 'error', '429 rate limit exceeded\nretry later');
    s.user('Try again with fewer jobs');
    const { summary } = await createOfflineSummarizer().summarize(s.entries(), { signal: signal() });
    expect(section(summary, '### Blocked')).toEqual([
      '- `make all` exited with code 2',
      '- Model error: 429 rate limit exceeded',
    ]);
    expect(section(summary, '### In Progress')).toEqual([
      '- [ ] Run the build (failed with an error)',
      '- [ ] Try again with fewer jobs (no answer yet)',
    ]);
    expect(section(summary, '## Key Decisions')).toEqual([
      '- Switched the model to anthropic/claude-sonnet-4-5',
    ]);
    expect(section(summary, '## Next Steps')).toEqual([
      '1. Answer the open request: Try again with fewer jobs',
    ]);
    expect(section(summary, '### Tool calls')).toEqual(['- `!`: `make all`']);
  });

  it('stays within its budget, keeping the first and last items and saying how many it left out', () => {
    const s = new SessionBuilder();
    for (let i = 1; i <= 200; i++) {
      s.user(`Request number ${i} ${'x'.repeat(60)}`);
      s.say(`Answer number ${i}`);
    }
    const { summary } = summarizeOffline(s.entries(), { budgetChars: 2000 });
    expect(body(summary).length).toBeLessThanOrEqual(2000);
    const goal = section(summary, '## Goal');
    const omitted = goal.find((line) => line.startsWith('- … '));
    const shown = goal.filter((line) => !line.startsWith('- … '));
    expect(omitted).toBe(`- … ${200 - shown.length} more omitted`);
    expect(shown.length).toBeGreaterThanOrEqual(2);
    expect(shown[0]).toBe(`- Request number 1 ${'x'.repeat(60)}`);
    expect(shown.at(-1)).toBe(`- Request number 200 ${'x'.repeat(60)}`);
    const done = section(summary, '### Done');
    expect(done.at(-1)).toBe('- [x] Answer number 200');
  });

  it('fills the goal, the next step and the errors first when a tight budget cannot hold every list', () => {
    const s = new SessionBuilder();
    for (let i = 0; i < 100; i++) {
      s.user(`Request ${i} ${'q'.repeat(300)}`);
      s.manager.appendModelChange('openai', `model-${i}`);
      s.manager.appendCustomMessageEntry('note', `Note ${i} ${'n'.repeat(300)}`, true);
      s.useTools([s.toolCall('read', { path: `src/file-${i}.ts` })]);
      s.assistant([{ type: 'text', text: `Partial ${i}` }], 'aborted');
    }
    const { summary } = summarizeOffline(s.entries(), { budgetChars: 1000 });
    expect(body(summary).length).toBeLessThanOrEqual(1000);
    expect(section(summary, '## Goal')[0]).toMatch(/^- Request 0 q+…$/);
    expect(section(summary, '## Next Steps')[0]).toMatch(/^1\. Resume the aborted turn: Request 99 q+…$/);
    expect(section(summary, '### Blocked')[0]).toMatch(/^- Turn aborted while working on: Request 0 q+…$/);
  });

  it('never exceeds the budget, whatever the budget', () => {
    const s = new SessionBuilder();
    for (let i = 0; i < 60; i++) {
      s.user(`Request ${i} ${'q'.repeat((i * 37) % 500)}`);
      s.useTools([s.toolCall(`tool${i % 7}`, { path: `src/${'d/'.repeat(i % 40)}f${i}.ts` })]);
      s.assistant(
        [{ type: 'text', text: 'e'.repeat((i * 53) % 700) }],
        i % 3 === 0 ? 'stop' : 'error',
        'boom',
      );
    }
    for (let budget = 1000; budget <= 20000; budget += 733) {
      const { summary } = summarizeOffline(s.entries(), {
        budgetChars: budget,
        customInstructions: 'Request 7',
      });
      expect(body(summary).length).toBeLessThanOrEqual(budget);
      expect(body(summary).length).toBeGreaterThan(budget - 800);
    }
  });

  it('clips a long line with an ellipsis rather than overrun the budget', () => {
    const s = new SessionBuilder();
    s.user(`Refactor ${'y'.repeat(5000)}`);
    const { summary } = summarizeOffline(s.entries(), { budgetChars: 1000 });
    expect(body(summary).length).toBeLessThanOrEqual(1000);
    const [goal] = section(summary, '## Goal');
    expect(goal).toMatch(/^- Refactor y+…$/);
  });

  it('lists what mentions the words of custom instructions under "Additional focus"', async () => {
    const { summary } = await createOfflineSummarizer().summarize(buildFixBugBranch().entries(), {
      signal: signal(),
      customInstructions: 'Focus on whitespace handling',
    });
    expect(section(summary, '## Additional focus')).toEqual([
      'Requested: Focus on whitespace handling',
      '- Also handle whitespace-only input',
      '- Turn aborted while working on: Also handle whitespace-only input',
    ]);
  });

  it('summarises no entries as an empty branch', () => {
    expect(summarizeOffline([])).toEqual({
      summary:
        'The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n' +
        '_Offline summary of 0 entries, written without a model._\n\n## Goal\n- (no user request in these entries)\n\n' +
        '## Constraints & Preferences\n- (none stated)\n\n' +
        '## Progress\n### Done\n- (nothing concluded)\n\n### Blocked\n- (no errors)\n\n## Next Steps\n- (nothing left open)',
      details: { readFiles: [], modifiedFiles: [] },
      sent: { entries: 0, tokens: 0, budget: null, leftOut: [] },
    });
  });

  it("reads every entry it is given (nothing left out for a budget) and takes a selection's preamble", () => {
    const entries = buildFixBugBranch().entries();
    const result = summarizeOffline(entries, { preamble: 'Summary of the selected entries:\n\n' });
    expect(result.sent).toMatchObject({ entries: entries.length, budget: null, leftOut: [] });
    expect(result.summary.startsWith('Summary of the selected entries:\n\n_Offline summary of')).toBe(true);
  });

  it('reports preparing and finishing progress', async () => {
    const progress: SummaryProgress[] = [];
    await createOfflineSummarizer().summarize([], { signal: signal(), onProgress: (p) => progress.push(p) });
    expect(progress).toEqual([
      { phase: 'preparing', fraction: 0 },
      { phase: 'finishing', fraction: 1 },
    ]);
  });

  it('rejects with an AbortError when the signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      createOfflineSummarizer().summarize(buildFixBugBranch().entries(), { signal: controller.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('refuses a budget too small for the headings', () => {
    expect(() => createOfflineSummarizer({ budgetChars: 999 })).toThrow(
      'budgetChars must be an integer of at least 1000, got 999',
    );
  });
});

describe('the offline summariser on every kind of entry', () => {
  it('notes images, shell commands, model changes, compactions, extension messages and nested summaries', () => {
    const { summary } = summarizeOffline(buildEveryKindBranch().entries());
    expect(section(summary, '## Goal')).toEqual([
      '- Speed up the importer',
      '- Here is the flame graph [1 image]',
    ]);
    expect(section(summary, '### Tool calls')).toEqual([
      '- `bash`: `node --prof import.js`',
      '- `!`: `wc -l data.csv`',
      '- `edit` src/import.ts',
    ]);
    expect(section(summary, '## Key Decisions')).toEqual([
      '- Set the thinking level to high',
      '- Switched the model to anthropic/claude-sonnet-4-5',
    ]);
    const context = section(summary, '## Critical Context');
    expect(context.slice(0, 2)).toEqual([
      '- Earlier compacted context: Profiled the importer: parseRow dominates.',
      '- reminder: Keep the CSV dialect unchanged',
    ]);
    // A 400-character line limit: the nested summary is clipped, and the clipping shows.
    expect(context[2]).toMatch(
      /^- Earlier branch summary: Tried streaming rows; no gain\. (Details\. )+De…$/,
    );
    expect(context[2]).toHaveLength(2 + 400);
  });
});
