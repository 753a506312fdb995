// Screenshots of the outline and graph views at 1440×900 on many-branches.jsonl, saved under
// e2e/artifacts/ (git-ignored) to be looked at, not compared.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, fixtureFacts, test } from '../support/test';
import { repoRoot } from '../support/server';

test.use({
  sessionFiles: ['many-branches.jsonl'],
  sharedServer: true,
  viewport: { width: 1440, height: 900 },
});

const artifacts = join(repoRoot, 'e2e', 'artifacts');

test('screenshots of the outline, graph and split views of many-branches.jsonl', async ({ app, page }) => {
  mkdirSync(artifacts, { recursive: true });
  await app.openSession('many-branches.jsonl');
  const entries = fixtureFacts('many-branches.jsonl').entries as number;
  await expect(page.getByTestId('tree.status')).toContainText(`${entries.toLocaleString('en-US')} entries`);

  await page.getByTestId('view.outline').click();
  await expect(app.graph).toHaveCount(0);
  await expect(app.rows.first()).toBeVisible();
  await page.screenshot({ path: join(artifacts, 'many-branches-outline.png') });

  await page.getByTestId('view.graph').click();
  await expect(app.outline).toHaveCount(0);
  await expect(app.graph).toBeVisible();
  await page.screenshot({ path: join(artifacts, 'many-branches-graph.png') });
  await page.getByTestId('graph.fit').click();
  await page.screenshot({ path: join(artifacts, 'many-branches-graph-fit.png') });

  await page.getByTestId('view.split').click();
  await expect(app.outline).toBeVisible();
  await expect(app.graph).toBeVisible();
  await page.screenshot({ path: join(artifacts, 'many-branches-split.png') });
});
