// What a new user needs from the graph at a glance: the leaf has its own mark, the minimap only
// shows up when the tree is bigger than the view and never covers what the view was asked to
// show, and Fit / Follow leaf keep the whole tree (extra roots included) and live appends in sight.
import { appendFileSync } from 'node:fs';
import { assistantMessageLine, userMessageLine } from '../support/sessionFile';
import { damaged, fan, smallBranched } from '../support/shapes';
import { expect, onGeneratedSession, sessionPath, test } from '../support/test';

const small = smallBranched();
const broken = damaged();
const wide = fan(30);
const smallIds = Object.values(small.ids);

test.describe('on a small branched session', () => {
  onGeneratedSession('small.jsonl', () => small.text);

  test('the leaf card carries a "leaf" badge, also while it is the selected node, and only the leaf has one', async ({
    graph,
  }) => {
    const leaf = graph.node(small.ids.doneB!);
    await expect(leaf).toHaveAttribute('data-selected', 'true');
    await expect(leaf.getByTestId('graph.leaf')).toBeVisible();
    await expect(leaf.getByTestId('graph.leaf')).toHaveText('leaf');
    await expect(graph.view.getByTestId('graph.leaf')).toHaveCount(1);

    await graph.node(small.ids.tryA!).click();
    await expect(leaf).not.toHaveAttribute('data-selected', 'true');
    await expect(leaf.getByTestId('graph.leaf')).toBeVisible();
    await expect(graph.view.getByTestId('graph.leaf')).toHaveCount(1);
  });

  test('a tree that fits has no minimap; zoomed in past the view it gets one; Fit shows it whole and the minimap goes', async ({
    page,
    graph,
  }) => {
    await graph.expectAllSeen(smallIds);
    await expect(graph.minimap).toHaveCount(0);

    for (let i = 0; i < 5; i++) await page.getByTestId('graph.zoom-in').click();
    await expect(graph.minimap).toBeVisible();

    await graph.fitButton.click();
    await expect(graph.minimap).toHaveCount(0);
    await graph.expectAllSeen(smallIds);
  });

  test('after a pan and a switch to the graph-only view, Fit brings the whole tree back', async ({
    app,
    page,
    graph,
  }) => {
    await graph.expectAllSeen(smallIds);
    await graph.pan(700, 500);
    await expect.poll(() => graph.canSee(small.ids.root!)).toBe(false);
    await page.getByTestId('view.graph').click();
    await expect(app.outline).toHaveCount(0);
    await graph.fitButton.click();
    await graph.expectAllSeen(smallIds);

    await graph.pan(-700, -500);
    await page.getByTestId('view.outline').click();
    await expect(graph.view).toHaveCount(0);
    await page.getByTestId('view.split').click();
    await expect(app.outline).toBeVisible();
    await graph.fitButton.click();
    await graph.expectAllSeen(smallIds);
  });
});

test.describe('on a damaged session', () => {
  onGeneratedSession('damaged.jsonl', () => broken.text);

  test('Fit and Follow leaf keep the extra roots of a damaged file in view', async ({ graph }) => {
    // The main tree, the orphan and the cycle (the leaf is in it).
    const roots = [...broken.mainIds, broken.orphanId, 'cyc1e00a', broken.leafId];
    await graph.fitButton.click();
    await graph.expectAllSeen(roots);

    await graph.pan(-600, 300);
    await expect.poll(() => graph.canSee(broken.orphanId)).toBe(false);
    // Follow leaf is on from the start: off, then on again re-centres.
    await graph.followButton.click();
    await expect(graph.followButton).toHaveAttribute('aria-pressed', 'false');
    await graph.followButton.click();
    await expect(graph.followButton).toHaveAttribute('aria-pressed', 'true');
    await graph.expectAllSeen(roots);
  });
});

test.describe('on a wide fan of branches', () => {
  onGeneratedSession('fan.jsonl', () => wide.text);

  test('a tree larger than the view has a minimap that does not cover the leaf it opened on', async ({
    graph,
  }) => {
    await expect(graph.minimap).toBeVisible();
    await graph.expectAllSeen([wide.leafId]);
  });

  test('a node appended live far from the view while following the leaf is brought into view', async ({
    app,
    page,
    canopy,
    graph,
  }) => {
    await graph.expectAllSeen([wide.leafId]);
    // Zoomed in, with the leaf near the bottom of the view: what grows below it is off screen.
    for (let i = 0; i < 5; i++) await page.getByTestId('graph.zoom-in').click();
    await graph.pan(0, 230);
    await graph.expectAllSeen([wide.leafId]);

    // Another process goes on under the leaf: three entries in one write.
    const at = new Date();
    const lines = [
      userMessageLine('11ve0001', wide.leafId, 'Next request', at),
      assistantMessageLine('11ve0002', '11ve0001', 'Next answer', at),
      userMessageLine('11ve0003', '11ve0002', 'Appended by another process', at),
    ];
    appendFileSync(
      sessionPath(canopy, 'fan.jsonl'),
      lines.map((line) => `${JSON.stringify(line)}\n`).join(''),
    );
    await expect(app.row('11ve0003')).toHaveAttribute('data-leaf', 'true');
    await graph.expectAllSeen(['11ve0003']);
  });
});
