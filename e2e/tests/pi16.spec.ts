// A session written by pi 1.6.0 (packages/fixtures' pi16-session.jsonl) opened as a new user opens it:
// no "unknown entry type" notice, pi's rows and filters (the dim [system] row shown, context edits among
// the hidden bookkeeping, the usage entry never drawn), and the detail of what pi 1.x added: a context
// edit linking to its target, the system prompt's sections and tools, a tool's nested calls and own
// usage, the leaf a branch summary left, a reply's thinking level, and the totals counting every usage.
import { expect, fixtureFacts, fixtureIds, test } from '../support/test';

const FILE = 'pi16-session.jsonl';
const ids = fixtureIds(FILE);

test.use({ sessionFiles: [FILE], sharedServer: true });

test.beforeEach(async ({ app }) => {
  await app.openSession(FILE);
});

test('a pi 1.6 session shows pi’s rows and filters, without an unknown-type notice', async ({
  app,
  page,
}) => {
  await expect(app.row(ids.branchAnswer)).toBeVisible();
  await expect(page.getByText(/unknown entry type/i)).toHaveCount(0);
  await expect(page.getByTestId('session.issues')).toHaveCount(0);

  // Default filter: the leaf is a label entry, so the outline shows the branch the label sits on.
  await app.row(ids.branchAnswer).click();
  await app.filterButton('all').click();
  await expect(app.row(ids.system)).toContainText('[system]');
  await expect(app.row(ids.omitAnswer)).toContainText(`[context omit: ${ids.done}]`);
  // pi 1.6 never draws a usage entry, not even in "all".
  await expect(app.row(ids.cacheWarm)).toHaveCount(0);

  await app.filterButton('default').click();
  await expect(app.row(ids.system)).toBeVisible();
  await expect(app.row(ids.omitAnswer)).toHaveCount(0);
  await expect(app.row(ids.cacheWarm)).toHaveCount(0);
});

test('the detail shows what pi 1.x added, and links a context edit to its target', async ({ app }) => {
  await app.filterButton('all').click();
  await app.row(ids.replaceUser).click();
  const content = app.detail.getByTestId('detail.content');
  await expect(content.getByTestId('detail.context-edit')).toContainText('Replaces what the model is sent');
  await expect(content).toContainText('Add a retry budget (3 per minute) to src/http.ts.');
  const target = content.getByTestId('detail.edit-target');
  await target.getByRole('button', { name: ids.firstUser }).click();
  await expect(app.detail.getByTestId('detail.id')).toHaveText(ids.firstUser);

  await app.row(ids.system).click();
  const system = app.detail.getByTestId('detail.system');
  await expect(system).toContainText('preamble');
  await expect(system.getByTestId('detail.tools-added')).toContainText('code');

  await app.row(ids.patch).click();
  await expect(app.detail.getByTestId('detail.tools-removed')).toContainText('code');

  await app.row(ids.codeResult).click();
  await expect(app.detail.getByTestId('detail.nested-calls')).toContainText('incomplete record');
  await expect(app.detail.getByTestId('detail.nested-calls')).toContainText('70,000 bytes');
  await expect(app.detail.getByTestId('detail.tool-usage')).toBeVisible();

  await app.row(ids.envAnswer).click();
  await expect(app.detail.getByTestId('detail.thinking-level')).toHaveText('thinking: medium');
  await expect(app.detail.getByTestId('detail.response-model')).toContainText('claude-sonnet-4-5-20261101');

  await app.row(ids.branchSummary).click();
  const from = app.detail.getByTestId('detail.summary-from');
  await expect(from).toContainText('summarises the branch left at');
  await expect(from).toContainText(String(fixtureFacts(FILE).summaryLeftLeaf));
  await expect(app.detail.getByTestId('detail.summary-usage')).toBeVisible();

  await app.row(ids.deferred).click();
  await expect(app.detail.getByTestId('detail.deferred')).toBeVisible();
});

test('what the model sees leaves the omitted reply out and sends the replaced texts', async ({ app }) => {
  await app.filterButton('all').click();
  await app.row(ids.replaceNote).click();
  await app.detail.getByTestId('detail.context-show').click();
  const context = app.detail.getByTestId('detail.context');
  await expect(context).toContainText('system');
  await expect(context).not.toContainText('tests pass');
  await expect(context).toContainText('API frozen.');
});
