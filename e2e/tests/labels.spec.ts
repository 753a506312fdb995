// Labels with Shift+L inline on seed-example.jsonl: set, clear (empty), cancel; each save is one
// label entry appended to the file under the leaf, and the leaf moves onto it.
import { expect, SEED_IDS, sessionPath, test } from '../support/test';
import { fileBytes, readLines } from '../support/sessionFile';

test.use({ sessionFiles: ['seed-example.jsonl'] });

test.beforeEach(async ({ app }) => {
  await app.openSession('seed-example.jsonl');
});

test('Shift+L sets a label and an empty label clears it, each appending one label entry', async ({
  app,
  canopy,
  page,
}) => {
  const file = sessionPath(canopy, 'seed-example.jsonl');
  await app.row(SEED_IDS.tryB).click();
  await page.keyboard.press('Shift+L');
  await expect(app.labelEditor).toBeFocused();
  await expect(app.labelEditor).toHaveValue('');
  await page.keyboard.type('plan B');
  await page.keyboard.press('Enter');

  await expect(app.row(SEED_IDS.tryB).getByTestId('tree.label')).toHaveText('[plan B]');
  await expect.poll(() => readLines(file).length).toBe(10);
  const set = readLines(file)[9]!;
  expect(set).toMatchObject({
    type: 'label',
    targetId: SEED_IDS.tryB,
    label: 'plan B',
    parentId: SEED_IDS.milestoneLabel,
  });

  await page.keyboard.press('Shift+L');
  await expect(app.labelEditor).toHaveValue('plan B');
  await app.labelEditor.fill('');
  await page.keyboard.press('Enter');

  await expect(app.row(SEED_IDS.tryB).getByTestId('tree.label')).toHaveCount(0);
  await expect.poll(() => readLines(file).length).toBe(11);
  const cleared = readLines(file)[10]!;
  expect(cleared).toMatchObject({ type: 'label', targetId: SEED_IDS.tryB, parentId: set.id });
  expect(cleared.label ?? undefined).toBeUndefined();
  // The leaf is now the clearing label entry.
  await app.filterButton('all').click();
  await expect(app.row(cleared.id!)).toHaveAttribute('data-leaf', 'true');
  await expect(app.row(cleared.id!).locator('.row-text')).toHaveText('[label: (cleared)]');
});

test('Esc in the label editor cancels and writes nothing', async ({ app, canopy, page }) => {
  const file = sessionPath(canopy, 'seed-example.jsonl');
  const before = fileBytes(file);
  await app.row(SEED_IDS.continueA).click();
  await page.keyboard.press('Shift+L');
  await expect(app.labelEditor).toHaveValue('milestone');
  await page.keyboard.type(' two');
  await page.keyboard.press('Escape');
  await expect(app.labelEditor).toHaveCount(0);
  await expect(app.row(SEED_IDS.continueA).getByTestId('tree.label')).toHaveText('[milestone]');
  // The session stays open: Esc was the editor's, not the tree's.
  await expect(app.outline).toBeVisible();
  expect(fileBytes(file).equals(before)).toBe(true);
});

test('the labeled-only filter lists the labelled entries', async ({ app, page }) => {
  await app.row(SEED_IDS.startTask).click();
  await page.keyboard.press('Shift+L');
  await page.keyboard.type('start');
  await page.keyboard.press('Enter');
  await expect(app.row(SEED_IDS.startTask).getByTestId('tree.label')).toHaveText('[start]');
  await page.keyboard.press('Alt+L');
  await expect(app.rows).toHaveCount(2);
  expect((await app.outlineLines()).map((row) => row.line)).toEqual([
    '• [start] user: Start task',
    '• [milestone] user: Continue A',
  ]);
});
