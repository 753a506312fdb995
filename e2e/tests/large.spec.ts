// A large session (about 20,000 entries, written through session-core's SessionManager) opens and
// stays usable; only a bounded number of rows and graph cards are ever in the DOM.
import { expect, test } from '../support/test';
import { largeSessionJsonl } from '../support/sessionFile';

const TURNS = 9_900;
const large = largeSessionJsonl(TURNS);

test.use({ sessionFiles: [], generatedSessions: { 'large.jsonl': () => large.text } });

test('a 20,000-entry session opens with only the rows on screen in the DOM, and End/Home/search work', async ({
  app,
  page,
}) => {
  expect(large.entries).toBeGreaterThanOrEqual(20_000);
  await expect(app.sessionItem('large.jsonl')).toContainText(
    `${large.entries.toLocaleString('en-US')} entries`,
  );
  await app.openSession('large.jsonl');
  await expect(app.row(large.leafId)).toHaveAttribute('data-leaf', 'true', { timeout: 30_000 });
  // The first rows show before the last part of the snapshot; the tree area is busy until it is in.
  await expect(page.getByTestId('tree.area')).toHaveAttribute('aria-busy', 'false', { timeout: 30_000 });
  await expect(page.getByTestId('tree.loading-progress')).toHaveCount(0);
  await expect(page.getByTestId('tree.status')).toContainText(
    `${large.entries.toLocaleString('en-US')} entries`,
  );
  const position = await app.position.textContent();
  const total = Number(/\/(\d+)\)/.exec(position ?? '')?.[1]);
  expect(total).toBe(large.entries);

  const bounded = async () => {
    expect(await app.rows.count()).toBeLessThan(150);
    expect(await app.graphNodes.count()).toBeLessThan(700);
  };
  await bounded();

  await app.focusTree();
  await page.keyboard.press('Home');
  await expect(app.position).toHaveText(`(1/${total})`);
  await expect(app.rows.first()).toBeVisible();
  await bounded();
  await page.keyboard.press('End');
  await expect(app.position).toHaveText(`(${total}/${total})`);
  await expect(app.selectedRow()).toBeVisible();
  await bounded();

  await page.keyboard.type('side request 49');
  // "side request 49", "side request 499", "side request 4999", … : each holds the three tokens.
  await expect(app.searchCount).toHaveText(/^\d+ matches$/);
  const matches = Number((await app.searchCount.textContent())!.split(' ')[0]);
  const expected = [...Array(TURNS).keys()].filter(
    (turn) => turn % 50 === 49 && TURNS - turn > 1 && `${turn}`.includes('49'),
  ).length;
  expect(matches).toBe(expected);
  await bounded();

  // /branch's list of every user message keeps only the ones in view in the DOM too.
  await page.keyboard.press('Escape');
  await page.getByTestId('action.branch-list').click();
  const picker = page.getByTestId('dialog.branch');
  const users = large.entries / 2;
  await expect(picker).toContainText(`Message ${users.toLocaleString('en-US')} of`);
  await expect(picker.locator('[aria-selected="true"]')).toBeInViewport();
  expect(await picker.getByTestId('branch.item').count()).toBeLessThan(100);
  await page.keyboard.press('ArrowDown');
  // Down from the last message wraps to the first, scrolled into view.
  await expect(picker.locator('[aria-selected="true"]')).toHaveText('request number 0');
  await expect(picker.locator('[aria-selected="true"]')).toBeInViewport();
  await page.keyboard.press('Escape');

  // Thousands of matches are counted as the status bar counts entries (with separators).
  await app.search.fill('request');
  await expect(app.searchCount).toHaveText(/^\d{1,3}(,\d{3})+ matches$/);
  await bounded();
});
