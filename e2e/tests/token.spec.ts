// The access token without a cookie (docs/safety.md#access): the page keeps the token of the printed
// URL in memory and this tab's session storage and sends it with every request and on its WebSocket.
// No cookie is ever set, so no other local server can receive it.
import { appendFileSync } from 'node:fs';
import { expect, SEED_IDS, sessionPath, test } from '../support/test';
import { userMessageLine } from '../support/sessionFile';

test.use({ sessionFiles: ['seed-example.jsonl'] });

test('no cookie is set; the page works after a reload and in a new tab from the printed URL, not without the token', async ({
  app,
  canopy,
  context,
  page,
}) => {
  await expect(app.sessionItem('seed-example.jsonl')).toBeVisible();
  expect(new URL(page.url()).searchParams.has('token')).toBe(false);
  expect(await context.cookies()).toEqual([]);

  // A reload keeps the token (this tab's session storage): the session opens and its socket is live.
  await page.reload();
  await app.openSession('seed-example.jsonl');
  await expect(page.getByTestId('connection.state')).toHaveAttribute('data-state', 'open');
  const line = userMessageLine('f00d0001', SEED_IDS.milestoneLabel, 'appended after the reload', new Date());
  appendFileSync(sessionPath(canopy, 'seed-example.jsonl'), `${JSON.stringify(line)}\n`);
  await expect(app.row('f00d0001')).toBeVisible();

  // A new tab from the printed URL works on its own.
  const tab = await context.newPage();
  await tab.goto(canopy.url);
  await expect(tab.locator('[data-testid="session.item"]')).toHaveCount(1);
  expect(new URL(tab.url()).searchParams.has('token')).toBe(false);
  await tab.close();

  // The address without the token is just the app's shell: nothing authorises it.
  const bare = await context.newPage();
  await bare.goto(`${canopy.origin}/`);
  await expect(bare.getByTestId('auth.required')).toBeVisible();
  await expect(bare.locator('[data-testid="session.item"]')).toHaveCount(0);
  await bare.close();
  expect(await context.cookies()).toEqual([]);
});
