// The graph view: present beside the outline, the active path and leaf highlighted, one selection
// shared with the outline in both directions, fit and zoom.
import { expect, requireSharedFixtures, test } from '../support/test';

requireSharedFixtures();

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
    expect(active).toEqual(['132d1404', '4bfd19d5', '86b5f0a8', 'e352b96f', 'fad116c3']);
    await expect(app.graphNode('e352b96f')).toHaveAttribute('data-selected', 'true');
    await expect(app.graphNode('e352b96f')).toContainText('[milestone]');
    await expect(app.graphNode('bf9e008c')).toContainText('Try approach B');
  });

  test('selecting in the outline selects the graph node and clicking a graph node selects the outline row', async ({
    app,
  }) => {
    await app.page.getByTestId('graph.fit').click();
    await app.row('bfb570e3').click();
    await expect(app.graphNode('bfb570e3')).toHaveAttribute('data-selected', 'true');
    await expect(app.graph.locator('[data-testid="graph.node"][data-selected]')).toHaveCount(1);

    await app.graphNode('4bfd19d5').click();
    await expect(app.row('4bfd19d5')).toHaveAttribute('aria-selected', 'true');
    await expect(app.selectedRow()).toHaveCount(1);
    await expect(app.detail.getByTestId('detail.id')).toHaveText('4bfd19d5');
  });

  test('the leaf node is marked in the graph when the "all" filter shows it', async ({ app }) => {
    await app.filterButton('all').click();
    await app.page.getByTestId('graph.fit').click();
    await expect(app.graphNodes).toHaveCount(8);
    await expect(app.graph.locator('[data-testid="graph.node"][data-leaf]')).toHaveCount(1);
    await expect(app.graphNode('1890bfab')).toHaveAttribute('data-leaf', 'true');
  });

  test('zooming in and fitting keeps every node in the view, and the minimap goes with nothing left to navigate', async ({
    app,
  }) => {
    await app.page.getByTestId('graph.zoom-in').click();
    await app.page.getByTestId('graph.zoom-in').click();
    await app.page.getByTestId('graph.fit').click();
    const box = (await app.graph.boundingBox())!;
    for (const id of ['4bfd19d5', 'e352b96f', 'bfb570e3']) {
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
