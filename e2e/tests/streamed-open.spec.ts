// A session the server is still reading shows its first rows: the server's read is held after its
// first piece (CANOPY_TEST_HOLD_LOAD, a test-only switch of the server's environment) until the
// test creates the gate file; then the rest arrives and the outline goes to the leaf.
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '../support/test';
import { largeSessionJsonl } from '../support/sessionFile';

const large = largeSessionJsonl(1500);
const gate = join(tmpdir(), `canopy-e2e-hold-${process.pid}-${Date.now()}`);

test.use({
  sessionFiles: [],
  generatedSessions: { 'large.jsonl': () => large.text },
  serverEnv: { CANOPY_TEST_HOLD_LOAD: gate, CANOPY_TEST_PIECE_BYTES: '65536' },
  // Narrow enough that the status bar is full while the load runs.
  viewport: { width: 1024, height: 720 },
});

test('rows show while the server still reads the session; the leaf is selected once it has read it all', async ({
  app,
  page,
}) => {
  expect(existsSync(gate)).toBe(false);
  await app.openSession('large.jsonl');
  await expect(app.rows.first()).toBeVisible();
  await expect(page.getByTestId('tree.area')).toHaveAttribute('aria-busy', 'true');
  await expect(page.getByTestId('tree.loading-progress')).toContainText('% of the file read');
  // The status bar is full: the key hints give way inside it (an ellipsis), not past its edge.
  const bar = (await page.getByTestId('tree.status').boundingBox())!;
  const keys = (await page.getByTestId('tree.keys').boundingBox())!;
  expect(keys.x + keys.width).toBeLessThanOrEqual(bar.x + bar.width);
  // Held after the first piece: the last entries (the leaf among them) have not been read.
  await expect(app.row(large.leafId)).toHaveCount(0);
  // Nothing can be appended under a leaf the page does not know yet.
  await expect(page.getByTestId('composer.leaf')).toHaveText(
    'Appends under the leaf, known once the session has loaded',
  );
  await page.getByTestId('composer.input').fill('not yet');
  await expect(page.getByTestId('composer.send')).toBeDisabled();
  // The server answers an entry once it has read the file: meanwhile the detail panel shows the
  // row's text and says when the rest comes, instead of an endless "Loading…".
  const row = app.rows.first();
  const rowText = (await row.locator('.row-text').textContent())!;
  expect(rowText).toMatch(/^(user|assistant): \S/);
  await row.click();
  const waiting = page.getByTestId('detail.waiting');
  await expect(waiting).toContainText(rowText);
  await expect(waiting).toContainText('The whole entry is shown once the session has loaded');
  await expect(page.getByTestId('detail.content')).toHaveCount(0);
  writeFileSync(gate, '');
  await expect(page.getByTestId('tree.area')).toHaveAttribute('aria-busy', 'false', { timeout: 30_000 });
  await expect(page.getByTestId('tree.loading-progress')).toHaveCount(0);
  await expect(app.row(large.leafId)).toHaveAttribute('data-leaf', 'true');
  await expect(app.selectedRow()).toHaveAttribute('data-entry-id', large.leafId);
  await expect(page.getByTestId('composer.leaf')).toHaveText(`Appends under the leaf ${large.leafId}`);
  await expect(page.getByTestId('composer.send')).toBeEnabled();
  await expect(waiting).toHaveCount(0);
  await expect(page.getByTestId('detail.content')).toBeVisible();
  await expect(page.getByTestId('tree.status')).toContainText(
    `${large.entries.toLocaleString('en-US')} entries`,
  );
});
