// A subagent run as a lane in the graph (docs/archive-and-family.md#in-the-page): an oh-my-pi parent
// whose assistant started the `AuthScan` agent with a `task` tool call, and the agent's transcript
// in the parent's folder (`<stamp>_<id>/AuthScan.jsonl`, opening with `session_init`), as oh-my-pi
// lays them out. The tool-call node carries the agent's chip; unfolding it draws the run as a
// lane, and a row of the lane opens the agent's file at that entry.
import { test as base, expect } from '@playwright/test';
import type { CanopyApp } from '../pages/CanopyApp';
import { PARENT, writeSubagentFamily, type SubagentFamily } from '../support/familySessions';
import type { RunningCanopy } from '../support/server';
import { useApp, useOwnCanopy } from '../support/test';

const test = base.extend<{ canopy: RunningCanopy; files: SubagentFamily; app: CanopyApp }>({
  files: [{ callEntry: '', agentEntries: [], forkEntry: null }, { option: true }],
  canopy: ({ files }, use) =>
    useOwnCanopy({ prepare: (dir) => Object.assign(files, writeSubagentFamily(dir)) }, use),
  app: ({ page, canopy }, use) => useApp(page, canopy, use),
});

test('a subagent shows as a chip on its tool call; its lane unfolds, and a lane row opens the agent there', async ({
  app,
  files,
}) => {
  const { page } = app;
  await app.openSession(`${PARENT}.jsonl`);
  const parentId = await app.sessionIdFromUrl();
  await page.getByTestId('graph.fit').click();

  // The chip sits on the assistant entry whose `task` call started the agent.
  const chip = app.graph.locator('[data-testid="graph.graft"][data-kind="subagent"]');
  await expect(chip).toHaveCount(1);
  await expect(chip.getByTestId('graph.graft-open')).toContainText('AuthScan');
  // The call entry sits inside a run of single entries: the chip is on the run; expanded, on the call.
  await app.graph.getByTestId('graph.run').click();
  await expect(app.graphNode(files.callEntry)).toBeVisible();
  const node = await app.graphNode(files.callEntry).boundingBox();
  const chipBox = await chip.boundingBox();
  expect(node && chipBox).toBeTruthy();
  expect(Math.abs(chipBox!.y - node!.y)).toBeLessThan(node!.height);
  expect(chipBox!.x).toBeGreaterThan(node!.x + node!.width - 1);

  // The outline's tool-call row offers the agent's file too.
  await expect(app.row(files.callEntry).getByTestId('tree.graft')).toContainText('AuthScan');
  // Selected, the row's Archive button keeps clear of its chips: a click meant for a chip must not
  // archive. In a narrow window, where the row's text is cut and the chip sits at the row's end.
  const wide = page.viewportSize()!;
  await page.setViewportSize({ width: 900, height: wide.height });
  await app.row(files.callEntry).click({ position: { x: 12, y: 6 } });
  const archiveButton = await app.row(files.callEntry).getByTestId('tree.archive').boundingBox();
  const lastChip = await app.row(files.callEntry).getByTestId('tree.graft').last().boundingBox();
  expect(archiveButton!.x).toBeGreaterThanOrEqual(lastChip!.x + lastChip!.width);
  await page.setViewportSize(wide);
  await page.getByTestId('graph.fit').click();

  // Unfold: the run is fetched and drawn as a lane of dots, one per entry of its path.
  const toggle = chip.getByTestId('graph.lane-toggle');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  const lane = app.graph.getByTestId('graph.lane');
  await expect(lane).toHaveAttribute('data-status', 'ready');
  const dots = lane.getByTestId('graph.lane-dot');
  await expect(dots).toHaveCount(files.agentEntries.length);
  const last = files.agentEntries[files.agentEntries.length - 1]!;
  await expect(lane.locator(`[data-entry-id="${last}"]`)).toHaveAttribute('title', /token expiry/);

  // Fold again: the lane is gone; unfold once more: it is back without asking the server again.
  await toggle.click();
  await expect(app.graph.getByTestId('graph.lane')).toHaveCount(0);
  await toggle.click();
  await expect(dots).toHaveCount(files.agentEntries.length);

  // A lane row opens the agent's own file with that entry selected; the family stays in the top bar.
  const first = files.agentEntries[1]!;
  await lane.locator(`[data-entry-id="${first}"]`).click();
  await expect.poll(() => app.sessionIdFromUrl()).not.toBe(parentId);
  const agentId = await app.sessionIdFromUrl();
  await expect(app.row(first)).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('session.family')).toContainText('subagent of');

  // "from ‹parent›" leads back to the tool call that started the agent.
  const origin = app.graph.locator('[data-testid="graph.graft"][data-role="origin"]');
  await expect(origin).toContainText('from Harden the login');
  await origin.getByTestId('graph.graft-open').click();
  await expect.poll(() => app.sessionIdFromUrl()).toBe(parentId);
  await expect(app.row(files.callEntry)).toHaveAttribute('aria-selected', 'true');

  // The chip itself opens the agent at its own leaf (its graft is the parent's call, not its entry).
  await app.graph
    .locator('[data-testid="graph.graft"][data-kind="subagent"]')
    .getByTestId('graph.graft-open')
    .click();
  await expect.poll(() => app.sessionIdFromUrl()).toBe(agentId);
  await expect(app.row(last)).toHaveAttribute('aria-selected', 'true');
});

test('a lane unfolded at the bottom edge of the graph is brought into view', async ({ app, files }) => {
  const { page } = app;
  await app.openSession(`${PARENT}.jsonl`);
  await page.getByTestId('graph.fit').click();
  await app.graph.getByTestId('graph.run').click();
  const chip = app.graph.locator('[data-testid="graph.graft"][data-kind="subagent"]');
  await expect(app.graphNode(files.callEntry)).toBeVisible();
  // The graph panned (a plain drag on its background) until the chip sits at the pane's bottom edge.
  const pane = (await app.graph.boundingBox())!;
  const before = (await chip.boundingBox())!;
  const from = { x: pane.x + 12, y: pane.y + pane.height / 2 };
  const dy = pane.y + pane.height - 30 - before.y;
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x, from.y + dy / 2);
  await page.mouse.move(from.x, from.y + dy);
  await page.mouse.up();
  await expect.poll(async () => (await chip.boundingBox())!.y).toBeGreaterThan(pane.y + pane.height - 60);

  // Dispatched: at the very edge the minimap may cover the toggle, which a pointer click would wait on.
  await chip.getByTestId('graph.lane-toggle').dispatchEvent('click');
  const lane = app.graph.getByTestId('graph.lane');
  await expect(lane).toHaveAttribute('data-status', 'ready');
  await expect(lane.getByTestId('graph.lane-dot')).toHaveCount(files.agentEntries.length);
  // The whole lane is inside the pane now, at the same zoom.
  await expect
    .poll(async () => {
      const box = (await lane.boundingBox())!;
      return box.y >= pane.y && box.y + box.height <= pane.y + pane.height;
    })
    .toBe(true);
});
