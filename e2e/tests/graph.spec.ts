// The graph view: present beside the outline, the active path and leaf highlighted, one selection
// shared with the outline in both directions, fit and zoom.
import { expect, SEED_IDS, test } from '../support/test';

test.describe('on seed-example.jsonl', () => {
  test.use({ sessionFiles: ['seed-example.jsonl'], sharedServer: true });

  test.beforeEach(async ({ app }) => {
    await app.openSession('seed-example.jsonl');
  });

  test('the graph draws a node per visible entry with the active path highlighted and the selection on the same entry', async ({
    app,
  }) => {
    await expect(app.graph).toBeVisible();
    // Only nodes on screen are rendered: fit the tree first so that all seven are.
    await app.page.getByTestId('graph.fit').click();
    await expect(app.graphNodes).toHaveCount(7);
    const active = await app.graph
      .locator('[data-testid="graph.node"][data-active]')
      .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-entry-id')).sort());
    expect(active).toEqual(
      [SEED_IDS.startTask, SEED_IDS.plan, SEED_IDS.tryA, SEED_IDS.aResult, SEED_IDS.continueA].sort(),
    );
    await expect(app.graphNode(SEED_IDS.continueA)).toHaveAttribute('data-selected', 'true');
    await expect(app.graphNode(SEED_IDS.continueA)).toContainText('[milestone]');
    await expect(app.graphNode(SEED_IDS.tryB)).toContainText('Try approach B');
  });

  test('selecting in the outline selects the graph node and clicking a graph node selects the outline row', async ({
    app,
  }) => {
    await app.page.getByTestId('graph.fit').click();
    await app.row(SEED_IDS.bResult).click();
    await expect(app.graphNode(SEED_IDS.bResult)).toHaveAttribute('data-selected', 'true');
    await expect(app.graph.locator('[data-testid="graph.node"][data-selected]')).toHaveCount(1);

    await app.graphNode(SEED_IDS.startTask).click();
    await expect(app.row(SEED_IDS.startTask)).toHaveAttribute('aria-selected', 'true');
    await expect(app.selectedRow()).toHaveCount(1);
    await expect(app.detail.getByTestId('detail.id')).toHaveText(SEED_IDS.startTask);
  });

  test('the leaf node is marked in the graph when the "all" filter shows it', async ({ app }) => {
    await app.filterButton('all').click();
    await app.page.getByTestId('graph.fit').click();
    await expect(app.graphNodes).toHaveCount(8);
    await expect(app.graph.locator('[data-testid="graph.node"][data-leaf]')).toHaveCount(1);
    await expect(app.graphNode(SEED_IDS.milestoneLabel)).toHaveAttribute('data-leaf', 'true');
  });

  test('zooming in and fitting keeps every node in the view, and the minimap goes with nothing left to navigate', async ({
    app,
  }) => {
    await app.page.getByTestId('graph.zoom-in').click();
    await app.page.getByTestId('graph.zoom-in').click();
    await app.page.getByTestId('graph.fit').click();
    const box = (await app.graph.boundingBox())!;
    for (const id of [SEED_IDS.startTask, SEED_IDS.continueA, SEED_IDS.bResult]) {
      const node = (await app.graphNode(id).boundingBox())!;
      expect(node.x).toBeGreaterThanOrEqual(box.x);
      expect(node.y).toBeGreaterThanOrEqual(box.y);
      expect(node.x + node.width).toBeLessThanOrEqual(box.x + box.width);
      expect(node.y + node.height).toBeLessThanOrEqual(box.y + box.height);
    }
    // The whole tree is in view: the minimap shows only while the tree is larger than the view.
    await expect(app.page.getByTestId('graph.minimap')).toHaveCount(0);
  });
});

test.describe('long straight runs', () => {
  test.use({ sessionFiles: ['all-entry-types.jsonl'], sharedServer: true });

  test('a long straight run is one compressed node that expands on click and collapses again', async ({
    app,
  }) => {
    await app.openSession('all-entry-types.jsonl');
    await app.page.getByTestId('graph.fit').click();
    const run = app.graph.getByTestId('graph.run');
    await expect(run).toHaveCount(1);
    await expect(run).toHaveAttribute('title', /^13 entries in a straight line/);
    // 20 visible rows: 13 inside the run, 7 drawn as cards.
    await expect(app.graphNodes).toHaveCount(7);

    await run.click();
    await app.page.getByTestId('graph.fit').click();
    await expect(run).toHaveCount(0);
    await expect(app.graphNodes).toHaveCount(20);

    await app.page.getByTestId('graph.collapse-runs').click();
    await app.page.getByTestId('graph.fit').click();
    await expect(run).toHaveCount(1);
    await expect(app.graphNodes).toHaveCount(7);
  });
});
