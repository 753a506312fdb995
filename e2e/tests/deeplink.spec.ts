// Deep links `?session=…&entry=…`: kept current while selecting, and surviving a reload or a new tab.
import { expect, requireSharedFixtures, test } from '../support/test';

requireSharedFixtures();
test.use({ sessionFiles: ['seed-example.jsonl', 'all-entry-types.jsonl'], sharedServer: true });

test('the address bar names the session and selected entry, and a reload reopens exactly that', async ({
  app,
  page,
}) => {
  await app.openSession('all-entry-types.jsonl');
  const sessionId = await app.sessionIdFromUrl();
  await app.row('f963ba0e').click();
  await expect(page).toHaveURL(new RegExp(`[?&]entry=f963ba0e`));
  expect(new URL(page.url()).searchParams.get('session')).toBe(sessionId);

  await page.reload();
  await expect(app.sessionItem('all-entry-types.jsonl')).toHaveAttribute('aria-current', 'true', {
    timeout: 30_000,
  });
  await expect(app.row('f963ba0e')).toHaveAttribute('aria-selected', 'true');
  await expect(app.detail.getByTestId('detail.id')).toHaveText('f963ba0e');
  expect(new URL(page.url()).searchParams.get('entry')).toBe('f963ba0e');
});

test('a deep link opened in a new tab selects the entry, and Back returns to the previous session', async ({
  app,
  context,
  page,
}) => {
  await app.openSession('seed-example.jsonl');
  const seedId = await app.sessionIdFromUrl();
  await app.openSession('all-entry-types.jsonl');
  const otherId = await app.sessionIdFromUrl();
  expect(otherId).not.toBe(seedId);

  const tab = await context.newPage();
  await tab.goto(`${app.canopy.origin}/?session=${encodeURIComponent(seedId)}&entry=bf9e008c`);
  await expect(tab.locator('[data-testid="tree.node"][data-entry-id="bf9e008c"]')).toHaveAttribute(
    'aria-selected',
    'true',
    { timeout: 30_000 },
  );
  await tab.close();

  await page.goBack();
  await expect(app.sessionItem('seed-example.jsonl')).toHaveAttribute('aria-current', 'true');
  expect(new URL(page.url()).searchParams.get('session')).toBe(seedId);
});
