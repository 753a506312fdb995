// Screenshots of the graph and the outline at 1280×720 and 1920×1080 in both themes, on a branched
// session with a label and a damaged one, to be looked at, not compared. They are attached to the
// test (Playwright's output folder) and copied to e2e/artifacts/ux/ (git-ignored), which survives
// the next run's cleanup of the output folder.
import { SCREENS, shooter } from '../support/screens';
import { damaged, deepBranches, trunkWithTwoBranches } from '../support/shapes';
import { expect, test } from '../support/test';

const branches = trunkWithTwoBranches(3, 3);
const broken = damaged();
const deep = deepBranches(12);

test.use({
  sessionFiles: [],
  generatedSessions: {
    'branches.jsonl': () => branches.text,
    'damaged.jsonl': () => broken.text,
    'deep.jsonl': () => deep.text,
  },
});

for (const { viewport, colorScheme, tag } of SCREENS) {
  test.describe(tag, () => {
    test.use({ viewport, colorScheme });

    test(`screenshots of the graph and the outline, ${tag}`, async ({ app, page }, testInfo) => {
      // Nine full-page screenshots at up to 1920×1080 on a busy machine: more than the default minute.
      test.setTimeout(180_000);
      const shoot = shooter(page, testInfo, '', tag);
      await expect(page.locator('html')).toHaveAttribute('data-theme', colorScheme);

      await app.openSession('branches.jsonl');
      await app.row(branches.shortUserId).click();
      await page.getByTestId('view.split').click();
      await expect(app.graph).toBeVisible();
      await shoot('branches-split');
      await page.getByTestId('view.graph').click();
      await expect(app.outline).toHaveCount(0);
      await page.getByTestId('graph.fit').click();
      await shoot('branches-graph');
      await page.getByTestId('view.outline').click();
      await expect(app.graph).toHaveCount(0);
      await shoot('branches-outline');

      // A jump to a user message: the toast in the top bar, the composer focused.
      await app.row(branches.shortUserId).dblclick();
      await expect(app.composer).toBeFocused();
      await shoot('jumped-to-user-message');
      // /branch asks first.
      await page.getByTestId('action.branch').click();
      await expect(page.getByTestId('dialog.branch-confirm')).toBeVisible();
      await shoot('branch-confirm');
      await page.keyboard.press('Escape');

      // Zoomed out far enough for the canvas: the leaf's dashed ring.
      await page.getByTestId('view.graph').click();
      for (let i = 0; i < 6; i++) await page.getByTestId('graph.zoom-out').click();
      await expect(app.graph.getByTestId('graph.node')).toHaveCount(0);
      await shoot('branches-graph-canvas');

      await page.getByTestId('view.split').click();
      await app.openSession('deep.jsonl');
      await expect(app.row(deep.deepestId)).toBeVisible();
      await shoot('deep-split');

      await app.openSession('damaged.jsonl');
      await page.getByTestId('view.split').click();
      await page.getByTestId('graph.fit').click();
      await shoot('damaged-split');
    });
  });
}
