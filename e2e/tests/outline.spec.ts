// The outline view on seed-example.jsonl: the terminal's rows (connectors, `•` on the active path,
// `[label]` chips), the leaf mark, and the ARIA tree roles.
import { expect, SEED_IDS, test } from '../support/test';

test.use({ sessionFiles: ['seed-example.jsonl'], sharedServer: true });

test.beforeEach(async ({ app }) => {
  await app.openSession('seed-example.jsonl');
});

test('the default outline draws the reference rows with connectors, active-path bullets and the label chip', async ({
  app,
}) => {
  await expect(app.rows).toHaveCount(7);
  const lines = await app.outlineLines();
  expect(lines.map((row) => row.line)).toEqual([
    '• user: Start task',
    '• assistant: Plan',
    '├⊟ • user: Try approach A',
    '│     • assistant: A result',
    '│     • [milestone] user: Continue A',
    '└⊟ user: Try approach B',
    '      assistant: B result',
  ]);
  expect(lines.filter((row) => row.active).map((row) => row.id)).toEqual([
    SEED_IDS.startTask,
    SEED_IDS.plan,
    SEED_IDS.tryA,
    SEED_IDS.aResult,
    SEED_IDS.continueA,
  ]);
  await expect(app.row(SEED_IDS.continueA).getByTestId('tree.label')).toHaveText('[milestone]');
  // The status line counts the rows, with the selection on the leaf's nearest visible row.
  await expect(app.position).toHaveText('(5/7)');
});

test('the "all" filter shows the label entry that is the leaf, marked as the leaf', async ({ app }) => {
  await app.filterButton('all').click();
  await expect(app.rows).toHaveCount(8);
  const lines = await app.outlineLines();
  expect(lines[5]).toEqual({
    id: SEED_IDS.milestoneLabel,
    line: '│     • [label: milestone]',
    active: true,
    leaf: true,
    selected: false,
  });
  // A filter change keeps the selected entry when it stays visible.
  await expect(app.row(SEED_IDS.continueA)).toHaveAttribute('aria-selected', 'true');
  expect(lines.filter((row) => row.leaf).map((row) => row.id)).toEqual([SEED_IDS.milestoneLabel]);
  await expect(app.row(SEED_IDS.milestoneLabel).locator('.row-leaf')).toHaveText('leaf');
});

test('when the filter hides the leaf, its nearest visible ancestor carries the hidden-leaf mark', async ({
  app,
}) => {
  // The leaf of seed-example.jsonl is a label entry, hidden by the default filter (as it is after
  // every label set in Canopy). The user must still see where the next message goes.
  await expect(app.outline.getByTestId('tree.leaf-hidden')).toHaveCount(1);
  await expect(app.row(SEED_IDS.continueA).getByTestId('tree.leaf-hidden')).toBeVisible();
  // No visible row claims to be the leaf itself.
  expect((await app.outlineLines()).filter((row) => row.leaf)).toEqual([]);
  await app.filterButton('all').click();
  await expect(app.outline.getByTestId('tree.leaf-hidden')).toHaveCount(0);
});

test('the outline is an ARIA tree of treeitems with levels, selection and the leaf as current location', async ({
  app,
}) => {
  await expect(app.outline).toHaveAttribute('role', 'tree');
  await expect(app.rows.first()).toHaveAttribute('role', 'treeitem');
  await expect(app.row(SEED_IDS.startTask)).toHaveAttribute('aria-level', '1');
  await expect(app.row(SEED_IDS.tryA)).toHaveAttribute('aria-level', '2');
  await expect(app.row(SEED_IDS.aResult)).toHaveAttribute('aria-level', '3');
  await expect(app.row(SEED_IDS.continueA)).toHaveAttribute('aria-selected', 'true');
  await expect(app.outline).toHaveAttribute('aria-activedescendant', `row-${SEED_IDS.continueA}`);
  await app.filterButton('all').click();
  await expect(app.row(SEED_IDS.milestoneLabel)).toHaveAttribute('aria-current', 'location');
});
