// Actions that must not surprise a new user: a jump to a user message says what happened and
// hands over to the composer, /branch asks before it writes a file, Esc closing the session can be
// undone, and messages never pile up over the views.
import { GraphPane, overlaps } from '../pages/GraphPane';
import { listSessionFiles } from '../support/server';
import { smallBranched } from '../support/shapes';
import { expect, test } from '../support/test';

const small = smallBranched();
const ids = small.ids as Record<'root' | 'answer' | 'tryA' | 'doneA' | 'tryB' | 'doneB', string>;

test.use({ sessionFiles: [], generatedSessions: { 'small.jsonl': () => small.text } });

test.describe('at 1280×720', () => {
  test.use({ viewport: { width: 1280, height: 720 } });

  test('jumping to a user message says the leaf is now its parent and brings the composer into view with focus', async ({
    app,
  }) => {
    await app.openSession('small.jsonl');
    await app.row(ids.tryB).click();
    await app.detail.getByTestId('detail.jump').click();

    await expect(app.row(ids.answer)).toHaveAttribute('data-leaf', 'true');
    await expect(app.toasts).toHaveText([
      'Leaf is now the parent; the message is in the composer to edit and resend',
    ]);
    await expect(app.composer).toHaveValue('Try approach B');
    await expect(app.composer).toBeFocused();
    await expect(app.composer).toBeInViewport({ ratio: 1 });
    // The caret is at the end, ready to edit.
    expect(await app.composer.evaluate((el: HTMLTextAreaElement) => el.selectionStart)).toBe(
      'Try approach B'.length,
    );
    // The row the user jumped to stays selected.
    await expect(app.row(ids.tryB)).toHaveAttribute('aria-selected', 'true');
    // Esc hands the keyboard back to the tree; the text stays for later.
    await app.page.keyboard.press('Escape');
    await expect(app.outline).toBeFocused();
    await expect(app.composer).toHaveValue('Try approach B');
  });
});

test('Branch… asks before it writes: Cancel and Esc write nothing, "Create branch" writes one new file', async ({
  app,
  page,
  canopy,
}) => {
  await app.openSession('small.jsonl');
  await app.row(ids.tryB).click();
  const dialog = page.getByTestId('dialog.branch-confirm');

  await page.getByTestId('action.branch').click();
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('Try approach B');
  await expect(page.getByTestId('branch.confirm')).toBeFocused();
  expect(listSessionFiles(canopy.sessionsDir)).toEqual(['small.jsonl']);
  await page.getByTestId('branch.cancel').click();
  await expect(dialog).toHaveCount(0);

  await page.getByTestId('action.branch').click();
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  // Esc closed the dialog only, not the session.
  await expect(app.outline).toBeVisible();
  expect(listSessionFiles(canopy.sessionsDir)).toEqual(['small.jsonl']);

  await page.getByTestId('action.branch').click();
  await page.getByTestId('branch.confirm').click();
  await expect.poll(() => listSessionFiles(canopy.sessionsDir).length).toBe(2);
  await expect(app.composer).toHaveValue('Try approach B');
});

test('Esc with an empty search closes the session recoverably: the list marks and focuses it, Back and Enter reopen it', async ({
  app,
  page,
}) => {
  await app.openSession('small.jsonl');
  await app.row(ids.tryA).click();
  await expect(page).toHaveURL(new RegExp(`entry=${ids.tryA}`));
  await app.focusTree();
  await page.keyboard.press('Escape');

  await expect(page.getByTestId('tree.none')).toBeVisible();
  const item = app.sessionItem('small.jsonl');
  await expect(item).toHaveAttribute('data-recent', 'true');
  await expect(item).toBeFocused();
  await expect(app.toasts).toHaveText(['Session closed: Enter or the browser’s Back opens it again']);
  // The address follows the closing a moment later (it is debounced); Back is only meaningful then.
  await expect(page).not.toHaveURL(/[?&]session=/);

  // Back returns to the session, on the entry that was selected.
  await page.goBack();
  await expect(app.outline).toBeVisible();
  await expect(app.row(ids.tryA)).toHaveAttribute('aria-selected', 'true');

  await app.focusTree();
  await page.keyboard.press('Escape');
  await expect(item).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(app.outline).toBeVisible();
  await expect(item).toHaveAttribute('aria-current', 'true');
});

test('one message at a time, in the top bar: toasts never pile up or cover the outline or the graph', async ({
  app,
  page,
}) => {
  const graph = new GraphPane(page);
  await app.openSession('small.jsonl');
  const covers = async () => {
    const toast = (await app.toasts.first().boundingBox())!;
    return overlaps(toast, (await app.outline.boundingBox())!) || overlaps(toast, await graph.box());
  };

  await app.focusTree();
  await page.keyboard.press('Enter');
  await expect(app.toasts).toHaveText(['Already at this point']);
  expect(await covers()).toBe(false);

  await app.row(ids.doneA).click();
  await page.keyboard.press('Enter');
  await expect(app.row(ids.doneA)).toHaveAttribute('data-leaf', 'true');
  await expect(app.toasts).toHaveText(['Navigated to selected point']);
  expect(await covers()).toBe(false);

  await page.keyboard.press('Shift+L');
  await page.getByTestId('label.editor').fill('checkpoint');
  await page.keyboard.press('Enter');
  await expect(app.toasts).toHaveText(['Label set: checkpoint']);
  expect(await covers()).toBe(false);
});

test.describe('under a long session title', () => {
  // An unnamed session is titled by its first message, often a whole paragraph.
  const longTitled = smallBranched(
    'Refactor the session loader so that it streams the file in pieces, keeps only the index of ' +
      'every entry, reads an entry back by its offset when the detail panel asks for it, and ' +
      'never holds the whole file as one string, then measure it on the largest sessions we have',
  );
  test.use({
    viewport: { width: 1280, height: 720 },
    generatedSessions: { 'long-title.jsonl': () => longTitled.text },
  });

  test('a message in the top bar is shown whole; the title gives up the room', async ({ app, page }) => {
    // (One session: the list's search says so in the singular.)
    await expect(app.sessionSearch).toHaveAttribute('placeholder', 'Search 1 session…');
    await app.openSession('long-title.jsonl');
    await app.row(longTitled.ids.doneA!).click();
    await app.focusTree();
    await page.keyboard.press('Enter');
    await expect(app.toasts).toHaveText(['Navigated to selected point']);
    // Not cut short: the text fits its box (before, the long title squeezed it to "Naviga…").
    const cut = await app.toasts.first().evaluate((toast) => toast.scrollWidth > toast.clientWidth);
    expect(cut).toBe(false);
    // The title keeps what is left, cut with an ellipsis, still readable.
    const title = (await page.getByTestId('session.title').boundingBox())!;
    expect(title.width).toBeGreaterThan(200);
  });
});
