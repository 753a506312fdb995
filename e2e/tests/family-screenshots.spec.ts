// Screenshots of the family in the graph (docs/archive-and-family.md#in-the-page) at 1280×720 and
// 1920×1080 in both themes, to be looked at, not compared: an oh-my-pi parent with two agents
// started by one tool call (chips stacked on it, AuthScan's lane unfolded) and a fork grafted at
// its first message. Attached to the test and copied to e2e/artifacts/ux/ (git-ignored).
import { test as base, expect } from '@playwright/test';
import type { CanopyApp } from '../pages/CanopyApp';
import { PARENT, writeSubagentFamily, type SubagentFamily } from '../support/familySessions';
import { SCREENS, shooter } from '../support/screens';
import type { RunningCanopy } from '../support/server';
import { useApp, useOwnCanopy } from '../support/test';

const test = base.extend<{ canopy: RunningCanopy; files: SubagentFamily; app: CanopyApp }>({
  files: [{ callEntry: '', agentEntries: [], forkEntry: null }, { option: true }],
  canopy: ({ files }, use) =>
    useOwnCanopy(
      {
        prepare: (dir) =>
          Object.assign(
            files,
            writeSubagentFamily(dir, { moreAgents: ['DocsCheck'], agentSteps: 6, fork: true }),
          ),
      },
      use,
    ),
  app: ({ page, canopy }, use) => useApp(page, canopy, use),
});

for (const { viewport, colorScheme, tag } of SCREENS) {
  test.describe(tag, () => {
    test.use({ viewport, colorScheme });

    test(`screenshots of grafted files and a subagent lane, ${tag}`, async ({
      app,
      page,
      files,
    }, testInfo) => {
      test.setTimeout(120_000);
      const shoot = shooter(page, testInfo, 'family-', tag);
      await expect(page.locator('html')).toHaveAttribute('data-theme', colorScheme);
      await app.openSession(`${PARENT}.jsonl`);
      await page.getByTestId('graph.fit').click();
      await expect(app.graph.getByTestId('graph.graft')).toHaveCount(3);
      const agent = app.graph
        .locator('[data-testid="graph.graft"][data-kind="subagent"]')
        .filter({ hasText: 'AuthScan' });
      await agent.getByTestId('graph.lane-toggle').click();
      await expect(app.graph.getByTestId('graph.lane')).toHaveAttribute('data-status', 'ready');
      await app.row(files.callEntry).click({ position: { x: 40, y: 8 } });
      await shoot('split');
      await page.getByTestId('view.graph').click();
      await page.getByTestId('graph.fit').click();
      await expect(app.graph.getByTestId('graph.lane-dot')).toHaveCount(files.agentEntries.length);
      await shoot('graph');
    });
  });
}
