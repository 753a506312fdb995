// Live updates on seed-example.jsonl: lines appended by another process show up without a reload,
// a leaf moved in another tab shows, and the page reconnects after a server restart.
import { appendFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, SEED_IDS, sessionPath, test } from '../support/test';
import { appendInPieces, assistantMessageLine, userMessageLine } from '../support/sessionFile';

test.use({ sessionFiles: ['seed-example.jsonl'] });

test.beforeEach(async ({ app }) => {
  await app.openSession('seed-example.jsonl');
});

/** Marks the document so that a reload (which would drop the mark) is detectable. */
async function markDocument(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { e2eMark: string }).e2eMark = 'still the same document';
  });
}

async function documentMark(page: Page): Promise<string | undefined> {
  return page.evaluate(() => (window as unknown as { e2eMark?: string }).e2eMark);
}

test('lines appended by another process in pieces appear without a reload and become the leaf', async ({
  app,
  canopy,
  page,
}) => {
  const file = sessionPath(canopy, 'seed-example.jsonl');
  await markDocument(page);
  const at = new Date('2026-03-01T09:01:10.000Z');
  // The first half of the line alone must not show anything (a partial line waits).
  const line = userMessageLine('a1b2c3d4', SEED_IDS.milestoneLabel, 'Continue with the tests', at);
  const text = `${JSON.stringify(line)}\n`;
  appendFileSync(file, text.slice(0, 40));
  // The writer shows as active once the server has read the partial line; that line shows nothing.
  await expect(page.getByTestId('writer.active')).toBeVisible();
  await expect(app.row('a1b2c3d4')).toHaveCount(0);
  appendFileSync(file, text.slice(40));

  const row = app.row('a1b2c3d4');
  await expect(row).toBeVisible();
  await expect(row.locator('.row-text')).toHaveText('user: Continue with the tests');
  await expect(row).toHaveAttribute('data-leaf', 'true');
  // It hangs under the hidden label leaf, so it follows "Continue A" on the active path.
  expect((await app.outlineLines()).map((r) => r.line).slice(4, 6)).toEqual([
    '│     • [milestone] user: Continue A',
    '│     • user: Continue with the tests',
  ]);

  await appendInPieces(file, assistantMessageLine('e5f6a7b8', 'a1b2c3d4', 'Tests written.', at), 3, 150);
  await expect(app.row('e5f6a7b8')).toHaveAttribute('data-leaf', 'true');
  await expect(app.row('a1b2c3d4')).not.toHaveAttribute('data-leaf', 'true');
  expect(await documentMark(page)).toBe('still the same document');
});

test('a leaf moved in another tab shows in this one', async ({ app, page, context }) => {
  const sessionId = await app.sessionIdFromUrl();
  const other = await context.newPage();
  // A new tab has no token of its own: it is opened from the printed URL (docs/safety.md#access).
  await other.goto(`${app.canopy.url}&session=${encodeURIComponent(sessionId)}`);
  const otherRow = other.locator(`[data-testid="tree.node"][data-entry-id="${SEED_IDS.bResult}"]`);
  await otherRow.click();
  await other.keyboard.press('Enter');
  await expect(otherRow).toHaveAttribute('data-leaf', 'true');

  await markDocument(page);
  await expect(app.row(SEED_IDS.bResult)).toHaveAttribute('data-leaf', 'true');
  expect((await app.outlineLines()).filter((row) => row.active).map((row) => row.id)).toEqual([
    SEED_IDS.startTask,
    SEED_IDS.plan,
    SEED_IDS.tryB,
    SEED_IDS.bResult,
  ]);
  expect(await documentMark(page)).toBe('still the same document');
  await other.close();
});

test('after a server restart the page reconnects, shows it, and receives live lines again', async ({
  app,
  canopy,
  page,
}) => {
  await expect(app.connection).toHaveAttribute('data-state', 'open');
  await expect(app.connection).toHaveText('Live');
  await markDocument(page);
  await canopy.stop();
  await expect(app.connection).not.toHaveAttribute('data-state', 'open');
  await expect(app.connection).toContainText('Reconnecting');

  await canopy.restart();
  // The backoff retries on its own; "Retry now" is for the impatient, not needed here.
  await expect(app.connection).toHaveAttribute('data-state', 'open', { timeout: 30_000 });
  await expect(app.connection).toHaveText('Live');

  const at = new Date('2026-03-01T09:01:20.000Z');
  await appendInPieces(
    sessionPath(canopy, 'seed-example.jsonl'),
    userMessageLine('c0ffee01', SEED_IDS.milestoneLabel, 'After the restart', at),
    2,
    100,
  );
  await expect(app.row('c0ffee01')).toHaveAttribute('data-leaf', 'true');
  expect(await documentMark(page)).toBe('still the same document');
});
