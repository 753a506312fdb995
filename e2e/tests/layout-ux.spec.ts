// What the page says and how it holds together: issue counts agree between the list and the open
// session (and are counted in good English), every button has a name in words, and a long session
// name is cut short instead of widening the page.
import { damaged, namedByFirstMessage, oneBadLine, smallBranched } from '../support/shapes';
import { expect, test } from '../support/test';

const broken = damaged();
const long = namedByFirstMessage(
  `Please refactor the whole parser module ${'so that every function handles cut-off lines, '.repeat(12)}and tell me when you are done`,
);

test.describe('issue counts', () => {
  test.use({
    sessionFiles: [],
    generatedSessions: { 'damaged.jsonl': () => broken.text, 'one-bad-line.jsonl': () => oneBadLine() },
  });

  test('the session list and the open session report the same number of issues', async ({ app, page }) => {
    await app.openSession('damaged.jsonl');
    const status = page.getByTestId('tree.status');
    await expect(status).toContainText(/\d+ issues while loading/);
    const count = Number(/(\d+) issues while loading/.exec((await status.textContent()) ?? '')![1]);
    // The file has an unreadable line, an orphan, a two-entry cycle and a duplicate id.
    expect(count).toBeGreaterThanOrEqual(4);
    await expect(page.getByTestId('session.issues').locator('summary')).toContainText(
      `${count} issues while loading this file`,
    );
    await page.getByTestId('sidebar.toggle').click();
    await expect(app.sessionItem('damaged.jsonl').getByTestId('session.issues-count')).toHaveText(
      `${count} issues`,
    );
    // Still so after the list is fetched again from the server.
    await page.getByTestId('session.refresh').click();
    await expect(app.sessionItem('damaged.jsonl').getByTestId('session.issues-count')).toHaveText(
      `${count} issues`,
    );
  });

  test('a single issue reads "1 issue" in the list and in the open session', async ({ app, page }) => {
    await expect(app.sessionItem('one-bad-line.jsonl').getByTestId('session.issues-count')).toHaveText(
      '1 issue',
    );
    await app.openSession('one-bad-line.jsonl');
    await expect(page.getByTestId('tree.status')).toContainText('1 issue while loading');
    await expect(page.getByTestId('session.issues').locator('summary')).toContainText(
      '1 issue while loading this file',
    );
  });
});

test.describe('names', () => {
  const small = smallBranched();
  test.use({ sessionFiles: [], generatedSessions: { 'small.jsonl': () => small.text } });

  test('every button has a name in words, and the icon buttons say what they do', async ({ app, page }) => {
    await app.openSession('small.jsonl');
    await page.getByTestId('sidebar.toggle').click();
    await expect(app.sessionList).toBeVisible();

    for (const name of [
      'Hide the session list',
      'Reload the session list',
      'Keep the session list open',
      'Previous match',
      'Next match',
      'Zoom in',
      'Zoom out',
    ]) {
      const button = page.getByRole('button', { name, exact: true });
      await expect(button, name).toHaveCount(1);
      await expect(button, name).toHaveAttribute('title', /\w/);
    }
    await expect(page.getByTestId('sidebar.pin')).toHaveText('Keep open');

    // No button is named by a glyph alone (☰, ⟳, ↑, ↓, +, −).
    const unnamed = await page
      .getByRole('button')
      .evaluateAll((buttons) =>
        buttons
          .map((b) => (b.getAttribute('aria-label') ?? b.textContent ?? '').trim())
          .filter((name) => !/[A-Za-z]{2}/.test(name)),
      );
    expect(unnamed).toEqual([]);
  });
});

test.describe('a long first message at 1440 px', () => {
  test.use({
    viewport: { width: 1440, height: 900 },
    sessionFiles: [],
    generatedSessions: { 'long.jsonl': () => long.text },
  });

  test('the session name is cut short with an ellipsis and never widens the page', async ({ app, page }) => {
    await app.openSession('long.jsonl');
    const title = page.getByTestId('session.title');
    await expect(title).toContainText('Please refactor the whole parser module');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1440);
    const bar = (await page.locator('header.topbar').boundingBox())!;
    expect(bar.width).toBeLessThanOrEqual(1440);
    const cut = await title.evaluate((el) => ({
      overflow: el.scrollWidth > el.clientWidth,
      ellipsis: getComputedStyle(el).textOverflow,
    }));
    expect(cut).toEqual({ overflow: true, ellipsis: 'ellipsis' });
    await expect(app.detail.getByTestId('detail.jump')).toBeInViewport({ ratio: 1 });

    // The list's entry is cut the same way, the list keeps its width.
    await page.getByTestId('sidebar.toggle').click();
    const item = app.sessionItem('long.jsonl');
    await expect(item).toBeVisible();
    expect((await page.locator('nav.sidebar').boundingBox())!.width).toBeLessThanOrEqual(301);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1440);
  });
});
