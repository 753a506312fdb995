// Jumping (navigateTree from the browser) and the composer, on seed-example.jsonl: the leaf moves,
// the session file is not written by a jump, the leaf persists, and the composer appends under it.
import type { CanopyApp } from '../pages/CanopyApp';
import { fileBytes, readLines } from '../support/sessionFile';
import { expect, SEED_IDS, test } from '../support/test';

test.use({ sessionFiles: ['seed-example.jsonl'] });

test.beforeEach(async ({ app }) => {
  await app.openSession('seed-example.jsonl');
});

/** Selects the user message "Try approach B" and jumps to it from the detail pane. */
async function jumpToTryB(app: CanopyApp): Promise<void> {
  await app.row(SEED_IDS.tryB).click();
  await app.detail.getByTestId('detail.jump').click();
}

test('jumping to a user message moves the leaf to its parent, prefills the composer, writes nothing and survives a reload', async ({
  app,
  sessionFile,
}) => {
  await jumpToTryB(app);

  await expect(app.row(SEED_IDS.plan)).toHaveAttribute('data-leaf', 'true');
  await expect(app.composer).toHaveValue('Try approach B');
  await expect(
    app.toast('Leaf is now the parent; the message is in the composer to edit and resend'),
  ).toBeVisible();
  const active = (await app.outlineLines()).filter((row) => row.active).map((row) => row.id);
  expect(active).toEqual([SEED_IDS.startTask, SEED_IDS.plan]);
  // The jump lives in Canopy's state folder, never in the session file.
  expect(sessionFile.unchanged()).toBe(true);

  await app.page.reload();
  await expect(app.row(SEED_IDS.plan)).toHaveAttribute('data-leaf', 'true', { timeout: 30_000 });
  expect((await app.outlineLines()).filter((row) => row.leaf).map((row) => row.id)).toEqual([SEED_IDS.plan]);
  expect(sessionFile.unchanged()).toBe(true);
});

test('Enter on an assistant message makes it the leaf without prefilling the composer', async ({
  app,
  sessionFile,
}) => {
  await app.row(SEED_IDS.bResult).click();
  await app.page.keyboard.press('Enter');

  await expect(app.row(SEED_IDS.bResult)).toHaveAttribute('data-leaf', 'true');
  await expect(app.composer).toHaveValue('');
  const lines = await app.outlineLines();
  expect(lines.filter((row) => row.active).map((row) => row.id)).toEqual([
    SEED_IDS.startTask,
    SEED_IDS.plan,
    SEED_IDS.tryB,
    SEED_IDS.bResult,
  ]);
  // The active branch is drawn first at the fork.
  expect(lines.map((row) => row.line)).toEqual([
    '• user: Start task',
    '• assistant: Plan',
    '├⊟ • user: Try approach B',
    '│     • assistant: B result',
    '└⊟ user: Try approach A',
    '      assistant: A result',
    '      [milestone] user: Continue A',
  ]);
  expect(sessionFile.unchanged()).toBe(true);
});

test('double-clicking the current leaf says "Already at this point" and changes nothing', async ({
  app,
  sessionFile,
}) => {
  await app.filterButton('all').click();
  const linesBefore = await app.outlineLines();
  await app.row(SEED_IDS.milestoneLabel).dblclick();

  await expect(app.toast('Already at this point')).toBeVisible();
  await expect(app.row(SEED_IDS.milestoneLabel)).toHaveAttribute('data-leaf', 'true');
  await expect(app.composer).toHaveValue('');
  expect(
    (await app.outlineLines()).map(({ id, line, active, leaf }) => ({ id, line, active, leaf })),
  ).toEqual(linesBefore.map(({ id, line, active, leaf }) => ({ id, line, active, leaf })));
  expect(sessionFile.unchanged()).toBe(true);
});

test('the composer appends the prefilled text as a new user message whose parent is the leaf', async ({
  app,
  sessionFile,
}) => {
  await jumpToTryB(app);
  await expect(app.composer).toHaveValue('Try approach B');
  await app.composer.fill('Try approach B, but faster');
  await app.composerSend.click();

  await expect(app.composer).toHaveValue('');
  await expect.poll(() => readLines(sessionFile.path).length).toBe(10);
  const { before } = sessionFile;
  const after = fileBytes(sessionFile.path);
  // Appended only: the old bytes are untouched and the new line is complete.
  expect(after.subarray(0, before.length).equals(before)).toBe(true);
  expect(after.at(-1)).toBe(0x0a);
  const added = readLines(sessionFile.path)[9]!;
  expect(added.type).toBe('message');
  expect(added.parentId).toBe(SEED_IDS.plan);
  expect(added.message).toMatchObject({
    role: 'user',
    content: [{ type: 'text', text: 'Try approach B, but faster' }],
  });

  const row = app.row(added.id!);
  await expect(row).toHaveAttribute('data-leaf', 'true');
  await expect(row).toHaveAttribute('aria-selected', 'true');
  await expect(row.locator('.row-text')).toHaveText('user: Try approach B, but faster');
});
