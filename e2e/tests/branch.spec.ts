// /branch and /fork from the browser on seed-example.jsonl: a new session file next to the
// original, its header naming its parent, the original untouched, and the lineage shown.
import type { CanopyApp } from '../pages/CanopyApp';
import { expect, SEED_IDS, sessionPath, test } from '../support/test';
import { fileBytes, readLines } from '../support/sessionFile';
import { listSessionFiles, type RunningCanopy } from '../support/server';

test.use({ sessionFiles: ['seed-example.jsonl'] });

test.beforeEach(async ({ app }) => {
  await app.openSession('seed-example.jsonl');
});

/**
 * The file /branch or fork created, once the page has opened it. The file shows in the folder the
 * moment it is created, before its lines are in; the page opens it only after the server answered,
 * when the file is whole.
 */
async function openedNewSession(app: CanopyApp, canopy: RunningCanopy): Promise<string> {
  await expect.poll(() => listSessionFiles(canopy.sessionsDir).length).toBe(2);
  const created = listSessionFiles(canopy.sessionsDir).find((name) => name !== 'seed-example.jsonl')!;
  await expect(app.sessionItem(created)).toHaveAttribute('aria-current', 'true');
  return created;
}

test('/branch from a selected user message writes a new file with the path to its parent and opens it', async ({
  app,
  canopy,
}) => {
  const original = sessionPath(canopy, 'seed-example.jsonl');
  const before = fileBytes(original);
  const firstId = await app.sessionIdFromUrl();
  await app.row(SEED_IDS.tryB).click();
  // doubleEscapeAction is "tree" by default: Branch… works on the selection in the tree.
  await app.page.getByTestId('action.branch').click();
  await app.page.getByTestId('branch.confirm').click();

  const created = await openedNewSession(app, canopy);
  const lines = readLines(sessionPath(canopy, created));
  expect(lines[0]).toMatchObject({ type: 'session', version: 3, parentSession: original });
  expect(lines.slice(1).map((line) => line.id)).toEqual([SEED_IDS.startTask, SEED_IDS.plan]);
  expect(fileBytes(original).equals(before)).toBe(true);

  // The new session is open (openedNewSession), the message text is in the composer, and the
  // lineage is shown.
  await expect.poll(() => app.sessionIdFromUrl()).not.toBe(firstId);
  await expect(app.rows).toHaveCount(2);
  await expect(app.composer).toHaveValue('Try approach B');
  await expect(app.page.getByTestId('session.lineage-chain')).toContainText('Start task');
  await expect(app.sessionItem(created).getByTestId('session.lineage')).toHaveText('from Start task');
});

test('/branch from the user-message list branches from the chosen message', async ({ app, canopy, page }) => {
  await page.getByTestId('action.branch-list').click();
  const dialog = page.getByTestId('dialog.branch');
  await expect(dialog).toBeVisible();
  // Every user message in file order, the most recent selected.
  await expect(dialog.getByTestId('branch.item')).toHaveText([
    'Start task',
    'Try approach A',
    'Try approach B',
    'Continue A',
  ]);
  await expect(dialog.locator('[aria-selected="true"]')).toHaveText('Continue A');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await expect(dialog.locator('[aria-selected="true"]')).toHaveText('Try approach A');
  await page.keyboard.press('Enter');
  // The confirmation has the focus on "Create branch".
  await expect(page.getByTestId('branch.confirm')).toBeFocused();
  await page.keyboard.press('Enter');

  const created = await openedNewSession(app, canopy);
  const lines = readLines(sessionPath(canopy, created));
  expect(lines[0]?.parentSession).toBe(sessionPath(canopy, 'seed-example.jsonl'));
  expect(lines.slice(1).map((line) => line.id)).toEqual([SEED_IDS.startTask, SEED_IDS.plan]);
  await expect(app.composer).toHaveValue('Try approach A');
});

test('/branch from a root user message starts an empty session whose header names the parent', async ({
  app,
  canopy,
}) => {
  await app.row(SEED_IDS.startTask).click();
  await app.page.getByTestId('action.branch').click();
  await app.page.getByTestId('branch.confirm').click();
  const created = await openedNewSession(app, canopy);
  const lines = readLines(sessionPath(canopy, created));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({
    type: 'session',
    parentSession: sessionPath(canopy, 'seed-example.jsonl'),
  });
  await expect(app.composer).toHaveValue('Start task');
});

test('fork copies the whole session into a new file and opens it', async ({ app, canopy }) => {
  const original = sessionPath(canopy, 'seed-example.jsonl');
  const before = fileBytes(original);
  await app.page.getByTestId('action.fork').click();

  const created = await openedNewSession(app, canopy);
  const lines = readLines(sessionPath(canopy, created));
  const originalLines = readLines(original);
  expect(lines[0]?.type).toBe('session');
  expect(lines[0]?.id).not.toBe(originalLines[0]?.id);
  expect(lines.slice(1)).toEqual(originalLines.slice(1));
  expect(fileBytes(original).equals(before)).toBe(true);
  await expect(app.rows).toHaveCount(7);
});
