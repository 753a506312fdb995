// Deep links `?session=…&entry=…`: kept current while selecting, and surviving a reload or a new tab.
import { ALL_IDS, expect, SEED_IDS, test } from '../support/test';

test.use({ sessionFiles: ['seed-example.jsonl', 'all-entry-types.jsonl'], sharedServer: true });

test('the address bar names the session and selected entry, and a reload reopens exactly that', async ({
  app,
  page,
}) => {
  await app.openSession('all-entry-types.jsonl');
  const sessionId = await app.sessionIdFromUrl();
  await app.row(ALL_IDS.editError).click();
  await expect(page).toHaveURL(new RegExp(`[?&]entry=${ALL_IDS.editError}`));
  expect(new URL(page.url()).searchParams.get('session')).toBe(sessionId);

  await page.reload();
  await expect(app.sessionItem('all-entry-types.jsonl')).toHaveAttribute('aria-current', 'true', {
    timeout: 30_000,
  });
  await expect(app.row(ALL_IDS.editError)).toHaveAttribute('aria-selected', 'true');
  await expect(app.detail.getByTestId('detail.id')).toHaveText(ALL_IDS.editError);
  expect(new URL(page.url()).searchParams.get('entry')).toBe(ALL_IDS.editError);
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
  // A new tab has no token of its own: the deep link goes with the printed URL's token.
  await tab.goto(`${app.canopy.url}&session=${encodeURIComponent(seedId)}&entry=${SEED_IDS.tryB}`);
  await expect(tab.locator(`[data-testid="tree.node"][data-entry-id="${SEED_IDS.tryB}"]`)).toHaveAttribute(
    'aria-selected',
    'true',
    { timeout: 30_000 },
  );
  await tab.close();

  await page.goBack();
  await expect(app.sessionItem('seed-example.jsonl')).toHaveAttribute('aria-current', 'true');
  expect(new URL(page.url()).searchParams.get('session')).toBe(seedId);
});
