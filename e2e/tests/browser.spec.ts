// The session browser: open from the printed URL, every session listed with its facts and lineage,
// search, one-click open, and the access token required.
import { ALL_ENTRY_TYPES_TEXTS, expect, test } from '../support/test';

test.use({
  sessionFiles: ['seed-example.jsonl', 'branched-from-seed-example.jsonl', 'all-entry-types.jsonl'],
  sharedServer: true,
});

test('the printed URL opens the app and lists every session with its title, cwd, entry count and lineage', async ({
  app,
}) => {
  await expect(app.page.getByTestId('session.item')).toHaveCount(3);
  await expect(app.sessionSearch).toHaveAttribute('placeholder', 'Search 3 sessions…');
  const seed = app.sessionItem('seed-example.jsonl');
  await expect(seed.locator('.s-title')).toHaveText('Start task');
  await expect(seed.locator('.s-cwd')).toHaveText('/home/dev/projects/demo');
  await expect(seed).toContainText('8 entries');
  // all-entry-types.jsonl is named by its session_info entry, not its first message.
  await expect(app.sessionItem('all-entry-types.jsonl').locator('.s-title')).toHaveText(
    ALL_ENTRY_TYPES_TEXTS.sessionName,
  );
  await expect(app.sessionItem('all-entry-types.jsonl')).toContainText('31 entries');
  // The branched file's header parentSession names seed-example.jsonl: it is shown as its child.
  const branched = app.sessionItem('branched-from-seed-example.jsonl');
  await expect(branched.getByTestId('session.lineage')).toHaveText('from Start task');
  await expect(branched.locator('.s-lineage').first()).toHaveText('↳ ');
  // The token is dropped from the address bar once the page has kept it.
  expect(new URL(app.page.url()).searchParams.has('token')).toBe(false);
});

test('typing in the session search keeps only the sessions that match', async ({ app }) => {
  await app.sessionSearch.fill('readlog');
  await expect(app.page.getByTestId('session.item')).toHaveCount(1);
  await expect(app.sessionItem('all-entry-types.jsonl')).toBeVisible();
  await app.sessionSearch.fill('');
  await expect(app.page.getByTestId('session.item')).toHaveCount(3);
});

test('one click on a session opens its tree and puts it in the address bar', async ({ app }) => {
  await expect(app.page.getByTestId('tree.none')).toHaveText('Pick a session on the left to see its tree.');
  await app.openSession('seed-example.jsonl');
  await expect(app.sessionTitle).toContainText('Start task');
  await expect(app.rows).toHaveCount(7);
  expect(await app.sessionIdFromUrl()).toMatch(/^[A-Za-z0-9_-]+$/);
});

test('the app without the access token shows how to get in and no session data', async ({
  browser,
  canopy,
}) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(canopy.origin + '/');
  await expect(page.getByTestId('auth.required')).toBeVisible();
  await expect(page.getByTestId('session.item')).toHaveCount(0);
  await context.close();
});
