// Screenshots of the compare view (lanes, files) and the file lens at 1280×720 and 1920×1080 in both
// themes, to be looked at, not compared: attached to the test and copied to e2e/artifacts/ux/
// (git-ignored), as ux-screenshots.spec.ts does.
import { makeCompareSession } from '../support/compareSession';
import { SCREENS, shooter } from '../support/screens';
import { expect, onGeneratedSession, test } from '../support/test';

const session = makeCompareSession();
const { ids } = session;

onGeneratedSession('compare.jsonl', () => session.jsonl);

for (const { viewport, colorScheme, tag } of SCREENS) {
  test.describe(tag, () => {
    test.use({ viewport, colorScheme });

    test(`screenshots of the compare view and the file lens, ${tag}`, async ({ app, page }, testInfo) => {
      test.setTimeout(120_000);
      const shoot = shooter(page, testInfo, 'compare-', tag);
      await expect(page.locator('html')).toHaveAttribute('data-theme', colorScheme);
      await app.row(ids.doneA).click({ button: 'right' });
      await page.getByTestId('entry-menu.compare-leaf').click();
      await expect(page.getByTestId('compare.verdict')).toBeVisible();
      await shoot('lanes');
      await page.getByTestId('compare.tab-files').click();
      const file = page.getByTestId('compare.files-a').locator('[data-path="src/app.ts"]');
      await file.locator('summary').click({ position: { x: 2, y: 6 } });
      await expect(file.getByTestId('files.hunk').first()).toBeVisible();
      await shoot('files');
      await file.getByTestId('files.open-lens').click();
      await expect(page.getByTestId('file-lens.branch')).toHaveCount(2);
      await shoot('lens');
    });
  });
}
