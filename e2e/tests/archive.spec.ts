// Archiving branches (docs/archive-and-family.md) on seed-example.jsonl, written by pi 0.73.1: the
// abandoned "approach B" branch archived with Shift+A (one appended line), folded to its stub in the
// outline and the graph, revealed dimmed with Alt+R, found by search, restored from the row's button;
// the branch that holds the leaf is refused; the graph's menu and the Tidy list archive too.
import { expect, SEED_IDS, sessionPath, test } from '../support/test';
import { fileBytes, readLines } from '../support/sessionFile';

test.use({ sessionFiles: ['seed-example.jsonl'] });

test.beforeEach(async ({ app }) => {
  await app.openSession('seed-example.jsonl');
});

test('archive, reveal and restore a branch, each write one appended line', async ({ app, canopy, page }) => {
  const file = sessionPath(canopy, 'seed-example.jsonl');
  const lines = readLines(file).length;

  await app.row(SEED_IDS.tryB).click();
  await page.keyboard.press('Shift+A');
  const stub = app.row(SEED_IDS.tryB);
  await expect(stub.getByTestId('tree.archive-stub')).toContainText('▸ 2 archived entries');
  await expect(app.row(SEED_IDS.bResult)).toHaveCount(0);
  await expect.poll(() => readLines(file).length).toBe(lines + 1);
  expect(readLines(file)[lines]).toMatchObject({
    type: 'custom',
    customType: 'canopy.archive',
    data: { targetId: SEED_IDS.tryB, archived: true },
  });
  await expect(app.page.getByTestId('archive.reveal')).toHaveText('2 entries archived');

  // The graph folds it to one node too.
  await app.page.getByTestId('graph.fit').click();
  await expect(app.graphNode(SEED_IDS.tryB)).toContainText('▸ 2 archived entries');
  await expect(app.graphNode(SEED_IDS.bResult)).toHaveCount(0);

  // Search says what the folded branch holds.
  await app.search.fill('approach B');
  await expect(page.getByTestId('search.archived-count')).toHaveText('+1 in archived branches');
  await app.search.fill('');
  await app.focusTree();

  // Alt+R shows it dimmed, and folds it again.
  await page.keyboard.press('Alt+R');
  await expect(app.row(SEED_IDS.bResult)).toHaveAttribute('data-archived', 'true');
  await expect(app.row(SEED_IDS.tryB).locator('.row-text')).toHaveText('user: Try approach B');
  await expect(app.page.getByTestId('archive.reveal')).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('Alt+R');
  await expect(app.row(SEED_IDS.bResult)).toHaveCount(0);

  // The branch holding the leaf is refused, with the reason, and nothing is written.
  const before = fileBytes(file);
  await app.row(SEED_IDS.plan).click();
  await page.keyboard.press('Shift+A');
  await expect(app.toast(/holds the current leaf/)).toBeVisible();
  expect(fileBytes(file).equals(before)).toBe(true);

  // Restore from the stub's own button.
  await app.row(SEED_IDS.tryB).click();
  await app.row(SEED_IDS.tryB).getByTestId('tree.restore').click();
  await expect(app.row(SEED_IDS.bResult)).toBeVisible();
  await expect(app.row(SEED_IDS.bResult)).not.toHaveAttribute('data-archived', 'true');
  await expect.poll(() => readLines(file).length).toBe(lines + 2);
  expect(readLines(file)[lines + 1]).toMatchObject({ data: { targetId: SEED_IDS.tryB, archived: false } });
  await expect(app.page.getByTestId('archive.reveal')).toHaveCount(0);
});

test('the graph menu archives a branch, and the Tidy list offers only what is off the path', async ({
  app,
  canopy,
  page,
}) => {
  const file = sessionPath(canopy, 'seed-example.jsonl');
  await app.page.getByTestId('graph.fit').click();
  await app.graphNode(SEED_IDS.bResult).click({ button: 'right' });
  await page.getByTestId('entry-menu.archive').click();
  await expect(app.graphNode(SEED_IDS.bResult)).toContainText('▸ 1 archived entry');
  await expect
    .poll(() => readLines(file).at(-1)?.data)
    .toEqual({ targetId: SEED_IDS.bResult, archived: true });

  await app.graphNode(SEED_IDS.bResult).click({ button: 'right' });
  await expect(page.getByTestId('entry-menu.restore')).toBeVisible();
  await page.keyboard.press('Escape');

  // Every branch off the path is answered in this file: nothing to tidy.
  await page.getByTestId('action.tidy').click();
  await expect(page.getByTestId('tidy.empty')).toBeVisible();
  await page.getByTestId('tidy.close').click();
});
