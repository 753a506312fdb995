// The outline and graph at parity with pi 1.6's /tree (docs/tree-and-context.md#folding): folding
// the segment at the selection and jumping between segment starts (Ctrl/Alt+←→), label times
// (Shift+T), copying the selected message (Ctrl+X and "Copy text"), and issue 45's small items: the
// graph's hidden-leaf mark, partly selected folds drawn as partial, the floating selection bar and
// the legacy status after the first write.
import { expect, SEED_IDS, test } from '../support/test';

test.use({ sessionFiles: ['seed-example.jsonl', 'legacy-v2-hookmessage.jsonl'] });

test.describe('on seed-example.jsonl', () => {
  test.beforeEach(async ({ app }) => {
    await app.openSession('seed-example.jsonl');
    await expect(app.rows).toHaveCount(7);
  });

  test('Ctrl+← folds the segment at the selection (⊞, its rows hidden, the leaf mark on it), Ctrl+→ unfolds it', async ({
    app,
    page,
  }) => {
    // Foldable segment starts carry pi's ⊟ in their connector.
    await expect(app.row(SEED_IDS.tryA)).toHaveAttribute('data-fold', 'foldable');
    await app.row(SEED_IDS.tryA).click();
    await app.focusTree();
    await page.keyboard.press('Control+ArrowLeft');
    await expect(app.row(SEED_IDS.tryA)).toHaveAttribute('data-fold', 'folded');
    await expect(app.rows).toHaveCount(5);
    await expect(app.row(SEED_IDS.aResult)).toHaveCount(0);
    await expect(app.row(SEED_IDS.tryA).getByTestId('tree.folded')).toHaveText('⊞2');
    // The leaf is inside the fold: the folded row says so, in the outline and in the graph.
    await expect(app.row(SEED_IDS.tryA).getByTestId('tree.leaf-hidden')).toBeVisible();
    await expect(app.graphNode(SEED_IDS.tryA).getByTestId('graph.fold')).toHaveText('⊞2');
    await expect(app.graphNode(SEED_IDS.tryA).getByTestId('graph.leaf-hidden')).toBeVisible();
    await expect(app.graphNode(SEED_IDS.aResult)).toHaveCount(0);
    expect((await app.outlineLines()).map((row) => row.line)[2]).toBe('├⊞ • user: Try approach A');
    await page.keyboard.press('Control+ArrowRight');
    await expect(app.rows).toHaveCount(7);
    await expect(app.row(SEED_IDS.tryA)).toHaveAttribute('data-fold', 'foldable');
    // Alt+← and Alt+→ do the same (pi's terminal keys), and the page stays where it is.
    const url = page.url();
    await page.keyboard.press('Alt+ArrowLeft');
    await expect(app.rows).toHaveCount(5);
    await page.keyboard.press('Alt+ArrowRight');
    await expect(app.rows).toHaveCount(7);
    expect(page.url()).toBe(url);
    // A filter change drops the folds, as pi does.
    await page.keyboard.press('Control+ArrowLeft');
    await expect(app.rows).toHaveCount(5);
    await app.filterButton('all').click();
    await expect(app.row(SEED_IDS.aResult)).toBeVisible();
  });

  test('Ctrl+← and Ctrl+→ jump between segment starts where there is nothing to fold', async ({
    app,
    page,
  }) => {
    await app.row(SEED_IDS.continueA).click();
    await app.focusTree();
    // Up to the start of its segment (the first child of the fork at "Plan").
    await page.keyboard.press('Control+ArrowLeft');
    await expect(app.selectedRow()).toHaveAttribute('data-entry-id', SEED_IDS.tryA);
    // Down from there: along the chain to its end.
    await page.keyboard.press('Control+ArrowRight');
    await expect(app.selectedRow()).toHaveAttribute('data-entry-id', SEED_IDS.continueA);
    // From the root, down to the first child of the next fork.
    await app.row(SEED_IDS.startTask).click();
    await app.focusTree();
    await page.keyboard.press('Control+ArrowRight');
    await expect(app.selectedRow()).toHaveAttribute('data-entry-id', SEED_IDS.tryA);
    await expect(app.rows).toHaveCount(7);
  });

  test('Shift+T shows and hides the label’s time beside its chip', async ({ app, page }) => {
    const chip = app.row(SEED_IDS.continueA);
    await expect(chip.getByTestId('tree.label')).toHaveText('[milestone]');
    await expect(chip.getByTestId('tree.label-time')).toHaveCount(0);
    await app.focusTree();
    await page.keyboard.press('Shift+T');
    await expect(chip.getByTestId('tree.label-time')).toHaveText(
      /^(\d\d:\d\d|\d{1,2}\/\d{1,2} \d\d:\d\d|\d\d\/\d{1,2}\/\d{1,2} \d\d:\d\d)$/,
    );
    await expect(page.getByTestId('tree.status')).toContainText('[+label time]');
    // The search stays empty: Shift+T is a key, not a letter typed.
    await expect(app.search).toHaveValue('');
    await page.keyboard.press('Shift+T');
    await expect(chip.getByTestId('tree.label-time')).toHaveCount(0);
  });

  test('Ctrl+X and "Copy text" copy the selected message’s text as pi copies it', async ({
    app,
    page,
    context,
  }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await app.row(SEED_IDS.tryB).click();
    await app.focusTree();
    await page.keyboard.press('Control+x');
    await expect(app.toast(/^Copied/)).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('Try approach B');
    await app.row(SEED_IDS.bResult).click();
    await page.getByTestId('detail.copy-text').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe('B result');
  });

  test('the keys panel lists every tree key', async ({ page }) => {
    const panel = page.getByTestId('tree.keys-panel');
    await panel.locator('summary').click();
    for (const key of [
      'Ctrl+← · Alt+←',
      'Ctrl+→ · Alt+→',
      'Shift+T',
      'Ctrl+X',
      'Shift+L',
      'Ctrl+O · Shift+Ctrl+O',
      'Shift+A',
      'Alt+R',
      'Shift+C',
    ])
      await expect(panel.getByText(key, { exact: true })).toBeVisible();
  });

  test('when the filter hides the leaf, the graph marks its nearest visible ancestor as the outline does', async ({
    app,
  }) => {
    await expect(app.row(SEED_IDS.continueA).getByTestId('tree.leaf-hidden')).toBeVisible();
    await expect(app.graphNode(SEED_IDS.continueA).getByTestId('graph.leaf-hidden')).toBeVisible();
    await expect(app.graph.getByTestId('graph.leaf-hidden')).toHaveCount(1);
    await app.filterButton('all').click();
    await expect(app.graph.getByTestId('graph.leaf-hidden')).toHaveCount(0);
    await expect(app.graphNode(SEED_IDS.milestoneLabel).getByTestId('graph.leaf')).toBeVisible();
  });

  test('a fold partly in the selection of entries is drawn as partial; the selection bar floats over the views', async ({
    app,
    page,
  }) => {
    const outlineTop = (await app.outline.boundingBox())!.y;
    const graphTop = (await app.graph.boundingBox())!.y;
    await app.row(SEED_IDS.tryA).click();
    await app.focusTree();
    await page.keyboard.press('Control+ArrowLeft');
    await expect(app.rows).toHaveCount(5);
    await app.row(SEED_IDS.tryA).click({ modifiers: ['Control'] });
    await expect(page.getByTestId('selection.bar')).toBeVisible();
    // Only the folded row, not the two it hides: partial, in both views.
    await expect(app.row(SEED_IDS.tryA)).toHaveAttribute('data-multi', 'partial');
    await expect(app.graphNode(SEED_IDS.tryA)).toHaveAttribute('data-multi', 'partial');
    // The bar appeared without pushing the outline or the graph down.
    expect((await app.outline.boundingBox())!.y).toBe(outlineTop);
    expect((await app.graph.boundingBox())!.y).toBe(graphTop);
    // Unfolded, the selected row alone is wholly selected.
    await page.keyboard.press('Control+ArrowRight');
    await expect(app.row(SEED_IDS.tryA)).toHaveAttribute('data-multi', 'true');
  });
});

test('a legacy file’s status stops saying the first write migrates it once a write did, without a reopen', async ({
  app,
  page,
}) => {
  await app.openSession('legacy-v2-hookmessage.jsonl');
  const status = page.getByTestId('tree.status');
  await expect(status).toContainText('legacy format: the first write migrates it');
  const first = app.rows.first();
  await first.click();
  await app.focusTree();
  await page.keyboard.press('Shift+L');
  await app.labelEditor.fill('migrated here');
  await app.labelEditor.press('Enter');
  await expect(app.toast('Label set: migrated here')).toBeVisible();
  await expect(status).not.toContainText('legacy format');
});
