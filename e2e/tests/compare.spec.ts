// The compare view (docs/branches.md#the-compare-view): two approaches of one session compared from
// where they split — lanes, which cost more, the final answers' diff, the Files tab with the file both
// touched marked, a file lens, a hunk followed to its tool call, the URL surviving a reload, and
// bring-back from a lane (docs/bring-back.md).
import { makeCompareSession } from '../support/compareSession';
import { expect, onGeneratedSession, test } from '../support/test';

const FILE = 'compare.jsonl';

const session = makeCompareSession();
const { ids } = session;

onGeneratedSession(FILE, () => session.jsonl);

test('two approaches compared: lanes, which cost more, the answers’ diff, files, a file lens, a hunk’s tool call, a reload', async ({
  app,
  page,
}) => {
  // A's end compared with the leaf (B's end), from the entry menu.
  await app.row(ids.doneA).click({ button: 'right' });
  await page.getByTestId('entry-menu.compare-leaf').click();
  const compare = page.getByTestId('compare');
  await expect(compare).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`[?&]compare=${ids.doneA}%2C${ids.doneB}`));

  // The shared path is collapsed, and names where the lanes split.
  await expect(page.getByTestId('compare.shared')).toContainText('Shared path: 2 entries');
  await expect(page.getByTestId('compare.shared')).not.toHaveAttribute('open', '');
  // Lanes aligned on user turns, each entry clickable.
  await expect(page.getByTestId('compare.row')).toHaveCount(1);
  await expect(page.getByTestId('compare.stat-a-tool calls')).toHaveText('2');
  await expect(page.getByTestId('compare.stat-b-tool calls')).toHaveText('2');
  // B cost more: said in words and marked.
  await expect(page.getByTestId('compare.verdict')).toHaveText('Lane B cost $0.70 more.');
  await expect(page.getByTestId('compare.cost-b')).toContainText('costlier');
  await expect(page.getByTestId('compare.cost-a')).toContainText('cheaper');
  // The final answers as a line diff.
  const diff = page.getByTestId('compare.answer-diff');
  await expect(diff.locator('.diff-del')).toContainText([
    'Done with A.',
    'The app says hello.',
    'One file changed.',
  ]);
  await expect(diff.locator('.diff-add')).toContainText([
    'Done with B.',
    'The app says hey.',
    'Two files changed.',
  ]);
  // A click on a lane entry selects it and the detail panel shows it; a reply holding only tool calls
  // (no row in any filter, as in pi) is shown by its call's result.
  await compare.locator(`[data-testid="compare.entry"][data-entry-id="${ids.doneA}"]`).click();
  await expect(app.detail.getByTestId('detail.id')).toHaveText(ids.doneA);
  await compare.locator(`[data-testid="compare.entry"][data-entry-id="${ids.writeA}"]`).click();
  await expect(app.detail.getByTestId('detail.id')).toHaveText(ids.writeAResult);

  // Files: app.ts touched by both lanes, extra.ts only by B; the base is said.
  await page.getByTestId('compare.tab-files').click();
  const filesA = page.getByTestId('compare.files-a');
  const filesB = page.getByTestId('compare.files-b');
  await expect(page.getByTestId('compare.files')).toContainText(
    'relative to the first content the session saw',
  );
  await expect(
    filesA.locator('[data-testid="files.file"][data-path="src/app.ts"] [data-testid="files.both"]'),
  ).toBeVisible();
  await expect(
    filesB.locator('[data-testid="files.file"][data-path="src/app.ts"] [data-testid="files.both"]'),
  ).toBeVisible();
  await expect(
    filesB.locator('[data-testid="files.file"][data-path="src/extra.ts"] [data-testid="files.both"]'),
  ).toHaveCount(0);

  // A hunk followed to the tool call that made it (B's two writes are one assistant reply).
  const extraB = filesB.locator('[data-testid="files.file"][data-path="src/extra.ts"]');
  await extraB.locator('summary').click({ position: { x: 2, y: 6 } });
  const hunk = extraB.getByTestId('files.hunk').first();
  await expect(hunk).toContainText('export const word = "hey";');
  const link = hunk.getByTestId('files.entry-link').first();
  await expect(link).toHaveAttribute('data-entry-id', ids.writeB);
  await link.click();
  // A reply holding only tool calls has no row: its first call's result stands for it.
  await expect(app.detail.getByTestId('detail.id')).toHaveText(ids.writeBResult);
  await expect(app.detail).toContainText('src/app.ts');

  const appA = filesA.locator('[data-testid="files.file"][data-path="src/app.ts"]');
  // The file lens: every branch that touched src/app.ts, side by side.
  await appA.getByTestId('files.open-lens').click();
  const lens = page.getByTestId('file-lens');
  await expect(lens).toBeVisible();
  await expect(lens.getByTestId('file-lens.branch')).toHaveCount(2);
  await expect(page).toHaveURL(/[?&]file=src%2Fapp\.ts/);

  // A reload gets the same view back: the lens over the compare.
  await page.reload();
  await expect(page.getByTestId('file-lens')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('file-lens.branch')).toHaveCount(2);
  // Esc closes the lens, then the compare; the tree comes back.
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('compare.verdict')).toHaveText('Lane B cost $0.70 more.');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('compare')).toHaveCount(0);
  await expect(app.row(ids.doneA)).toBeVisible();
  await expect(page).not.toHaveURL(/compare=/);
});

test('two selected entries compared from the selection bar, closed with its button; the branch’s files', async ({
  app,
  page,
}) => {
  await app.row(ids.doneA).click({ modifiers: ['Control'] });
  await app.row(ids.tryB).click({ modifiers: ['Control'] });
  await page.getByTestId('selection.compare').click();
  await expect(page.getByTestId('compare.verdict')).toBeVisible();
  await expect(page.getByTestId('compare.stat-b-entries')).toHaveText('1');
  await page.getByTestId('compare.close').click();
  await expect(page.getByTestId('compare')).toHaveCount(0);

  // The current branch (B) changed two files.
  await page.getByTestId('action.files').click();
  const list = page.getByTestId('branch-files.list');
  await expect(list.getByTestId('files.file')).toHaveCount(2);
  await expect(list.locator('[data-path="src/extra.ts"]')).toContainText('+1');
  await page.getByTestId('branch-files.close').click();
  await expect(page.getByTestId('branch-files')).toHaveCount(0);
});

test('Shift+C compares the selected entry with the leaf; typed into a search, it is a letter', async ({
  app,
  page,
}) => {
  await app.row(ids.doneA).click();
  await page.keyboard.press('Shift+C');
  await expect(page.getByTestId('compare.verdict')).toHaveText('Lane B cost $0.70 more.');
  await expect(page).toHaveURL(new RegExp(`[?&]compare=${ids.doneA}%2C${ids.doneB}`));
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('compare')).toHaveCount(0);
  // In a search the capital C is part of the query, and no compare opens.
  await page.keyboard.type('done');
  await page.keyboard.press('Shift+C');
  await expect(page.locator('#tree-search')).toHaveValue('doneC');
  await expect(page.getByTestId('compare')).toHaveCount(0);
});

test('bring-back from a compare lane opens the dialog with that lane’s entries', async ({ app, page }) => {
  await app.row(ids.doneA).click({ button: 'right' });
  await page.getByTestId('entry-menu.compare-leaf').click();
  await page.getByTestId('compare.bring-back-a').click();
  const dialog = page.getByTestId('dialog.bringback');
  await expect(dialog).toBeVisible();
  // Lane A: its user message, two calls with their results and the answer.
  await expect(page.getByTestId('bringback.facts')).toContainText('6 entries from 1 branch');
  await expect(page.getByTestId('bringback.text')).toHaveValue(/Try approach A/);
});
