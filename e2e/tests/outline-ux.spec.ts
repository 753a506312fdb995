// The outline under the pointer: a jump that puts the new active branch first keeps the clicked
// row where it was on screen, and a deep tree keeps its rows readable (capped indentation, the
// depth shown as a number past the cap).
import {
  computeRows,
  foldMark,
  NO_FOLDS,
  rowPrefix,
  SessionManager,
  toViewEntries,
  ViewTree,
} from '@canopy/session-core';
import { deepBranches, forkInFork, trunkWithTwoBranches } from '../support/shapes';
import { expect, test } from '../support/test';

const branches = trunkWithTwoBranches(30, 4);
const deep = deepBranches(30);
const nested = forkInFork();

/**
 * The tree prefix of each row of `text` for `leafId`, as session-core draws it (no filter, nothing
 * folded: a foldable branch start shows pi's ⊟ in its connector).
 */
function expectedPrefixes(text: string, leafId: string): Record<string, string> {
  const session = SessionManager.fromJsonl(text);
  const tree = new ViewTree(toViewEntries(session.getEntries(), (id) => session.getLabel(id)));
  const { rows } = computeRows(tree, { leafId });
  const indexById = new Map(rows.map((row, index) => [row.id, index]));
  return Object.fromEntries(
    rows.map((row, index) => [row.id, rowPrefix(row, foldMark(rows, indexById, index, NO_FOLDS))]),
  );
}

test.describe('a jump that reorders the rows', () => {
  test.use({ sessionFiles: [], generatedSessions: { 'branches.jsonl': () => branches.text } });

  test('double-clicking a row of the other branch keeps that row at the same place on screen, selected', async ({
    app,
    page,
  }) => {
    await app.openSession('branches.jsonl');
    await page.getByTestId('view.outline').click();
    await expect(app.graph).toHaveCount(0);
    // The short branch is listed after the active one, at the bottom.
    await app.outline.evaluate((el) => (el.scrollTop = el.scrollHeight));
    const row = app.row(branches.shortReplyId);
    await expect(row).toBeInViewport();
    const ids = await app.outlineIds();
    expect(ids.indexOf(branches.shortUserId)).toBeGreaterThan(ids.indexOf(branches.leafId));
    const before = (await row.boundingBox())!.y;

    await row.dblclick();
    await expect(row).toHaveAttribute('data-leaf', 'true');
    // The rows were reordered (the new active branch first)…
    await expect
      .poll(async () => {
        const now = await app.outlineIds();
        return (
          now.indexOf(branches.shortUserId) < now.indexOf(branches.leafId) || !now.includes(branches.leafId)
        );
      })
      .toBe(true);
    // …and the clicked row did not move under the pointer.
    await expect.poll(async () => Math.round((await row.boundingBox())!.y)).toBe(Math.round(before));
    await expect(row).toHaveAttribute('aria-selected', 'true');
  });
});

test.describe('a jump that makes a branch with a fork of its own the last one', () => {
  test.use({ sessionFiles: [], generatedSessions: { 'nested.jsonl': () => nested.text } });

  test('redraws the gutters of every row below that branch, those whose own marks stay included', async ({
    app,
    page,
  }) => {
    await app.openSession('nested.jsonl');
    await page.getByTestId('view.outline').click();
    const drawn = () =>
      app.rows.evaluateAll((rows) =>
        Object.fromEntries(
          rows.map((row) => [
            row.getAttribute('data-entry-id'),
            row.querySelector('.row-prefix')?.textContent,
          ]),
        ),
      );
    await expect.poll(drawn).toEqual(expectedPrefixes(nested.text, nested.ids.leaf));
    await app.row(nested.ids.b).click();
    await page.keyboard.press('Enter');
    await expect(app.row(nested.ids.b)).toHaveAttribute('data-leaf', 'true');
    const after = expectedPrefixes(nested.text, nested.ids.b);
    // The side answer's row keeps its marks; only the line of A, now the last answer, goes.
    expect(after[nested.ids.sideAnswer]).not.toEqual(
      expectedPrefixes(nested.text, nested.ids.leaf)[nested.ids.sideAnswer],
    );
    await expect.poll(drawn).toEqual(after);
  });
});

test.describe('a deep tree in the split view at 1440 px', () => {
  test.use({
    viewport: { width: 1440, height: 900 },
    sessionFiles: [],
    generatedSessions: { 'deep.jsonl': () => deep.text },
  });

  test('indentation stops at 6 levels and the levels past it are shown as a number', async ({
    app,
    page,
  }) => {
    await app.openSession('deep.jsonl');
    await page.getByTestId('view.split').click();
    const row = app.row(deep.deepestId);
    await expect(row).toBeVisible();
    const level = Number(await row.getAttribute('aria-level'));
    const prefix = await row.locator('.row-prefix').evaluate((el) => {
      const marker = el.querySelector('[data-testid="tree.depth"]');
      return {
        marker: marker?.textContent ?? '',
        text: (el.textContent ?? '').slice(marker?.textContent?.length ?? 0),
      };
    });
    // 6 levels of 3 columns drawn; the outer ones counted in the marker.
    expect(prefix.text.length).toBe(18);
    expect(prefix.marker).toBe(`+${level - 1 - 6}`);
    // The row's text gets most of the row.
    const rowWidth = (await row.boundingBox())!.width;
    const textWidth = await row.locator('.row-text').evaluate((el) => el.clientWidth);
    expect(textWidth).toBeGreaterThan(rowWidth / 2);
  });
});
