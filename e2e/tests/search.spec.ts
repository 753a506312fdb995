// Search by typing on all-entry-types.jsonl: AND tokens, case-insensitive, highlighted, stepped
// through with next / previous (wrapping); Esc clears the search, then closes the session.
import { ALL_IDS, expect, test } from '../support/test';

test.use({ sessionFiles: ['all-entry-types.jsonl'], sharedServer: true });

// Rows whose searchable text holds both "reader" and "stream" (default filter), in outline order.
const MATCHES = [ALL_IDS.firstUser, ALL_IDS.branchSummary, ALL_IDS.writeCall, ALL_IDS.done];

test.beforeEach(async ({ app }) => {
  await app.openSession('all-entry-types.jsonl');
  await app.focusTree();
});

test('typing two tokens keeps only the rows that contain both, in any case, with the tokens highlighted', async ({
  app,
  page,
}) => {
  await page.keyboard.type('READER Stream');
  await expect(app.search).toHaveValue('READER Stream');
  await expect(app.searchCount).toHaveText('4 matches');
  expect(await app.outlineIds()).toEqual(MATCHES);
  for (const id of MATCHES) {
    const marked = await app
      .row(id)
      .locator('mark')
      .evaluateAll((marks) => [...new Set(marks.map((m) => (m.textContent ?? '').toLowerCase()))].sort());
    expect(marked, `highlights in ${id}`).toEqual(['reader', 'stream']);
  }
  // The graph marks the same entries; two of them sit in a compressed straight run, which is marked
  // as a whole until it is expanded.
  await page.getByTestId('graph.fit').click();
  const run = app.graph.locator('[data-testid="graph.run"][data-match]');
  await expect(run).toHaveCount(1);
  await run.click();
  await page.getByTestId('graph.fit').click();
  const graphMatches = await app.graph
    .locator('[data-testid="graph.node"][data-match]')
    .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-entry-id')).sort());
  expect(graphMatches).toEqual([...MATCHES].sort());
});

test('next and previous step through the matches and wrap around', async ({ app, page }) => {
  await page.keyboard.type('reader stream');
  await expect(app.searchCount).toHaveText('4 matches');
  // The selection starts on the nearest match above the leaf branchAnswer: the branch summary.
  await expect(app.selectedRow()).toHaveAttribute('data-entry-id', ALL_IDS.branchSummary);
  await app.searchNext.click();
  await expect(app.selectedRow()).toHaveAttribute('data-entry-id', ALL_IDS.writeCall);
  await app.searchNext.click();
  await expect(app.selectedRow()).toHaveAttribute('data-entry-id', ALL_IDS.done);
  await app.searchNext.click();
  await expect(app.selectedRow()).toHaveAttribute('data-entry-id', ALL_IDS.firstUser);
  await app.searchPrev.click();
  await expect(app.selectedRow()).toHaveAttribute('data-entry-id', ALL_IDS.done);
  await app.searchPrev.click();
  await expect(app.selectedRow()).toHaveAttribute('data-entry-id', ALL_IDS.writeCall);
});

test('a search that matches nothing says so, and Backspace widens it again', async ({ app, page }) => {
  await page.keyboard.type('bench zebra');
  await expect(app.rows).toHaveCount(0);
  await expect(page.getByTestId('tree.empty')).toContainText('No entries match');
  for (let i = 0; i < ' zebra'.length; i++) await page.keyboard.press('Backspace');
  await expect(app.search).toHaveValue('bench');
  // The label "bench" on thirdUser (whose text says "benchmark") and "Added bench/log-reader.bench.ts."
  // of benchAnswer.
  await expect(app.rows).toHaveCount(2);
  expect(await app.outlineIds()).toEqual([ALL_IDS.thirdUser, ALL_IDS.benchAnswer]);
});

test('Esc clears the search first, then closes the session', async ({ app, page }) => {
  await page.keyboard.type('reader stream');
  await expect(app.rows).toHaveCount(4);
  await page.keyboard.press('Escape');
  await expect(app.search).toHaveValue('');
  await expect(app.rows).toHaveCount(20); // every row of the default filter
  await expect(app.outline).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('tree.none')).toBeVisible();
  await expect(page).not.toHaveURL(/session=/);
});
