// Filter modes and their keys on all-entry-types.jsonl. The scenes are data (xyflow's style): each
// mode's visible rows, in outline order, derived by hand from the file and docs/tree-and-context.md#filters.
import type { Page } from '@playwright/test';
import type { FilterMode } from '../pages/CanopyApp';
import { expect, requireSharedFixtures, test } from '../support/test';

requireSharedFixtures();
test.use({ sessionFiles: ['all-entry-types.jsonl'], sharedServer: true });

// Tool-only assistants (48391bf4 thinking + read call, d2a6a269 bash call) are hidden in every mode.
// The session_info entry c506c8b6 is hidden by default, as the reference package 0.73.1 does.
const DEFAULT_ROWS = [
  '3d994d86',
  '090b1baf', // the branch summary's branch holds the leaf, so it comes first at the fork
  'b603dd1c',
  '26cbcded',
  '80e549b9',
  '2016ac74',
  'f963ba0e',
  '71e78ca0',
  '0cd487b1', // aborted
  '8e67c094', // error
  'a096c2fe',
  '826b2579',
  'ad4928ee',
  'eabb7b45',
  'eeb58c86',
  '786d3ed8',
  'ef581bfb',
  '9d231b4d',
  '99319d9a',
  '9e858485',
];
const TOOL_RESULTS = new Set(['80e549b9', 'f963ba0e', '71e78ca0', '786d3ed8']);

const SCENES: { mode: FilterMode; key: string; tag: string; rows: string[] }[] = [
  { mode: 'default', key: 'Alt+D', tag: '', rows: DEFAULT_ROWS },
  {
    mode: 'no-tools',
    key: 'Alt+T',
    tag: ' [no-tools]',
    rows: DEFAULT_ROWS.filter((id) => !TOOL_RESULTS.has(id)),
  },
  { mode: 'user-only', key: 'Alt+U', tag: ' [user]', rows: ['3d994d86', 'b603dd1c', 'eabb7b45', '99319d9a'] },
  // 3d994d86's label "start" was cleared by a later label entry; only "bench" resolves.
  { mode: 'labeled-only', key: 'Alt+L', tag: ' [labeled]', rows: ['99319d9a'] },
  {
    mode: 'all',
    key: 'Alt+A',
    tag: ' [all]',
    rows: [
      '166c9060',
      '62b47229',
      'c506c8b6',
      '3d994d86',
      '090b1baf',
      'b603dd1c',
      '26cbcded',
      '80e549b9',
      '2016ac74',
      'f963ba0e',
      '71e78ca0',
      '0cd487b1',
      '8e67c094',
      'a096c2fe',
      '766822f8',
      '826b2579',
      'ad4928ee',
      'eabb7b45',
      'eeb58c86',
      '786d3ed8',
      'ef581bfb',
      '9d231b4d',
      '99319d9a',
      '9e858485',
      '7886b18a',
      'bba26318',
      '3465528d',
      '4a78cde6',
      '9fbab3ce',
    ],
  },
];
const sceneOf = (mode: FilterMode) => SCENES.find((scene) => scene.mode === mode)!;

/** Records, for every keydown, whether the page prevented the browser's own action. */
async function recordPrevented(page: Page): Promise<void> {
  await page.evaluate(() => {
    const log: { key: string; prevented: boolean }[] = [];
    (window as unknown as { keyLog: typeof log }).keyLog = log;
    window.addEventListener('keydown', (event) => {
      // Read after every listener of this dispatch has run.
      setTimeout(() => log.push({ key: event.key, prevented: event.defaultPrevented }));
    });
  });
}

async function preventedKeys(page: Page): Promise<{ key: string; prevented: boolean }[]> {
  return page.evaluate(() => (window as unknown as { keyLog: { key: string; prevented: boolean }[] }).keyLog);
}

test.beforeEach(async ({ app }) => {
  await app.openSession('all-entry-types.jsonl');
  await expect(app.rows).toHaveCount(DEFAULT_ROWS.length);
});

for (const scene of SCENES) {
  test(`the ${scene.mode} filter button shows exactly its ${scene.rows.length} rows`, async ({ app }) => {
    await app.filterButton(scene.mode).click();
    await expect(app.filterGroup).toHaveAttribute('data-mode', scene.mode);
    await expect(app.rows).toHaveCount(scene.rows.length);
    expect(await app.outlineIds()).toEqual(scene.rows);
    await expect(app.position).toContainText(`/${scene.rows.length})${scene.tag}`);
  });
}

test('Alt+D/T/U/L/A set each filter directly and the browser default is prevented', async ({ app, page }) => {
  await recordPrevented(page);
  await app.focusTree();
  for (const key of ['Alt+T', 'Alt+U', 'Alt+L', 'Alt+A', 'Alt+D', 'Alt+U', 'Alt+U']) {
    const scene = SCENES.find((s) => s.key === key)!;
    await page.keyboard.press(key);
    await expect(app.filterGroup).toHaveAttribute('data-mode', scene.mode);
    await expect(app.rows).toHaveCount(scene.rows.length);
    expect(await app.outlineIds()).toEqual(scene.rows);
  }
  await expect.poll(async () => (await preventedKeys(page)).filter((k) => k.key !== 'Alt').length).toBe(7);
  expect((await preventedKeys(page)).filter((k) => k.key !== 'Alt').every((k) => k.prevented)).toBe(true);
});

test('Ctrl+O cycles forward and Shift+Ctrl+O backward through the five filters, browser default prevented', async ({
  app,
  page,
}) => {
  await recordPrevented(page);
  await app.focusTree();
  const forward: FilterMode[] = ['no-tools', 'user-only', 'labeled-only', 'all', 'default'];
  for (const mode of forward) {
    await page.keyboard.press('Control+O');
    await expect(app.filterGroup).toHaveAttribute('data-mode', mode);
    expect(await app.outlineIds()).toEqual(sceneOf(mode).rows);
  }
  const backward: FilterMode[] = ['all', 'labeled-only', 'user-only', 'no-tools', 'default'];
  for (const mode of backward) {
    await page.keyboard.press('Shift+Control+O');
    await expect(app.filterGroup).toHaveAttribute('data-mode', mode);
    expect(await app.outlineIds()).toEqual(sceneOf(mode).rows);
  }
  const presses = (await preventedKeys(page)).filter((k) => k.key === 'o' || k.key === 'O');
  expect(presses).toHaveLength(10);
  expect(presses.every((k) => k.prevented)).toBe(true);
});

test('a filter that hides the selection moves it to the nearest visible ancestor', async ({ app, page }) => {
  await app.filterButton('all').click();
  await app.row('80e549b9').click(); // a tool result under the hidden tool-only assistant 48391bf4
  await page.keyboard.press('Alt+U');
  await expect(app.row('3d994d86')).toHaveAttribute('aria-selected', 'true');
  await expect(app.detail.getByTestId('detail.id')).toHaveText('3d994d86');

  await page.keyboard.press('Alt+A');
  await app.row('9fbab3ce').click(); // a thinking level change: hidden by default, as are the labels above it
  await page.keyboard.press('Alt+D');
  await expect(app.row('9e858485')).toHaveAttribute('aria-selected', 'true');
});
