// Light and dark themes: the toggle switches the page's colours and the choice survives a reload.
import type { Page } from '@playwright/test';
import { expect, SEED_IDS, test } from '../support/test';

test.use({ sessionFiles: ['seed-example.jsonl'], sharedServer: true, colorScheme: 'light' });

function backgroundOf(page: Page): Promise<string> {
  return page.evaluate(() => getComputedStyle(document.body).backgroundColor);
}

/** Relative luminance of an `rgb(...)` colour, enough to tell light from dark. */
function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).map(Number);
  return (0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0)) / 255;
}

test('the theme toggle switches between light and dark and the choice survives a reload', async ({
  app,
  page,
}) => {
  await app.openSession('seed-example.jsonl');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  expect(luminance(await backgroundOf(page))).toBeGreaterThan(0.8);

  await app.themeToggle.click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  expect(luminance(await backgroundOf(page))).toBeLessThan(0.25);
  // Text stays readable on the dark background.
  const text = await app.row(SEED_IDS.startTask).evaluate((el) => getComputedStyle(el).color);
  expect(luminance(text)).toBeGreaterThan(0.5);

  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark', { timeout: 30_000 });
  await app.themeToggle.click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
});
