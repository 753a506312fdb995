// Everything by keyboard alone on seed-example.jsonl: reach and open the session, move (wrapping),
// page, jump, label, and search, without the mouse.
import type { Page } from '@playwright/test';
import { expect, SEED_IDS, sessionPath, test } from '../support/test';
import { readLines } from '../support/sessionFile';

test.use({ sessionFiles: ['seed-example.jsonl'] });

/**
 * Presses Tab until the predicate holds for the focused element (at most `limit` times). The limit is
 * a whole cycle of the page's tab order and more: when the session list closes under the focused
 * item, Chromium starts the next Tab from where that item was, which may be past the tree, so the
 * walk can go round the page once (banner, toolbars, graph controls, detail panel, composer).
 */
async function tabUntil(page: Page, predicate: string, limit = 100): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await page.evaluate(predicate)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached: ${predicate}`);
}

test('the session is opened, walked, jumped, labelled and searched with the keyboard only', async ({
  app,
  canopy,
  page,
}) => {
  await tabUntil(page, `document.activeElement?.getAttribute('data-testid') === 'session.item'`);
  await page.keyboard.press('Enter');
  await expect(app.rows).toHaveCount(7);
  await tabUntil(page, `document.activeElement?.id === 'tree-outline'`);
  const selected = () => app.selectedRow().getAttribute('data-entry-id');

  expect(await selected()).toBe(SEED_IDS.continueA);
  await page.keyboard.press('ArrowDown');
  expect(await selected()).toBe(SEED_IDS.tryB);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown'); // wraps to the top
  expect(await selected()).toBe(SEED_IDS.startTask);
  await page.keyboard.press('ArrowUp'); // wraps to the bottom
  expect(await selected()).toBe(SEED_IDS.bResult);
  await page.keyboard.press('ArrowLeft'); // a page up, clamped at the first row
  expect(await selected()).toBe(SEED_IDS.startTask);
  await page.keyboard.press('ArrowRight'); // a page down, clamped at the last row
  expect(await selected()).toBe(SEED_IDS.bResult);
  await page.keyboard.press('ArrowUp');
  expect(await selected()).toBe(SEED_IDS.tryB);

  await page.keyboard.press('Enter');
  await expect(app.row(SEED_IDS.plan)).toHaveAttribute('data-leaf', 'true');
  await expect(app.composer).toHaveValue('Try approach B');
  // The composer takes the focus to edit the message; Esc hands the keyboard back to the tree.
  await expect(app.composer).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(app.outline).toBeFocused();
  await expect(app.composer).toHaveValue('Try approach B');

  await page.keyboard.press('Shift+L');
  await expect(app.labelEditor).toBeFocused();
  await page.keyboard.type('fork point');
  await page.keyboard.press('Enter');
  await expect(app.row(SEED_IDS.tryB).getByTestId('tree.label')).toHaveText('[fork point]');
  await expect
    .poll(() => readLines(sessionPath(canopy, 'seed-example.jsonl')).at(-1)?.label)
    .toBe('fork point');

  // Focus is back on the tree: typing searches.
  await page.keyboard.type('result');
  await expect(app.search).toHaveValue('result');
  expect(await app.outlineIds()).toEqual([SEED_IDS.aResult, SEED_IDS.bResult]);
  await page.keyboard.press('Escape');
  await expect(app.search).toHaveValue('');
  await expect(app.rows).toHaveCount(7);
});
