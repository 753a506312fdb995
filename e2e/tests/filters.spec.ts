// Filter modes and their keys on all-entry-types.jsonl. The scenes are data (xyflow's style): each
// mode's visible rows, in outline order, derived by hand from the file and docs/tree-and-context.md#filters.
import type { Page } from '@playwright/test';
import type { CanopyApp, FilterMode } from '../pages/CanopyApp';
import { ALL_IDS, expect, test } from '../support/test';

test.use({ sessionFiles: ['all-entry-types.jsonl'], sharedServer: true });

// Every entry but the tool-only assistants (readCall thinking + read call, toolOnly bash call), which
// are hidden in every mode; in outline order.
const ALL_ROWS = [
  ALL_IDS.modelChange,
  ALL_IDS.thinkingHigh,
  ALL_IDS.sessionInfo,
  ALL_IDS.firstUser,
  ALL_IDS.branchSummary, // the branch summary's branch holds the leaf, so it comes first at the fork
  ALL_IDS.branchUser,
  ALL_IDS.branchAnswer,
  ALL_IDS.readResult,
  ALL_IDS.editCall,
  ALL_IDS.editError,
  ALL_IDS.bashResult,
  ALL_IDS.aborted, // aborted
  ALL_IDS.errored, // error
  ALL_IDS.bashExecution,
  ALL_IDS.custom,
  ALL_IDS.customShown,
  ALL_IDS.customHidden,
  ALL_IDS.secondUser,
  ALL_IDS.writeCall,
  ALL_IDS.writeResult,
  ALL_IDS.done,
  ALL_IDS.compaction,
  ALL_IDS.thirdUser,
  ALL_IDS.benchAnswer,
  ALL_IDS.benchLabel,
  ALL_IDS.startLabel,
  ALL_IDS.startCleared,
  ALL_IDS.codexChange,
  ALL_IDS.thinkingLow,
];
// The default mode hides the model and thinking level changes, the labels and the extension's custom
// entry. The session_info entry
// sessionInfo is hidden by default too, as the reference package 0.73.1 does.
const HIDDEN_BY_DEFAULT = new Set([
  ALL_IDS.modelChange,
  ALL_IDS.thinkingHigh,
  ALL_IDS.sessionInfo,
  ALL_IDS.custom,
  ALL_IDS.benchLabel,
  ALL_IDS.startLabel,
  ALL_IDS.startCleared,
  ALL_IDS.codexChange,
  ALL_IDS.thinkingLow,
]);
const DEFAULT_ROWS = ALL_ROWS.filter((id) => !HIDDEN_BY_DEFAULT.has(id));
const TOOL_RESULTS = new Set([
  ALL_IDS.readResult,
  ALL_IDS.editError,
  ALL_IDS.bashResult,
  ALL_IDS.writeResult,
]);

const SCENES: { mode: FilterMode; key: string; tag: string; rows: string[] }[] = [
  { mode: 'default', key: 'Alt+D', tag: '', rows: DEFAULT_ROWS },
  {
    mode: 'no-tools',
    key: 'Alt+T',
    tag: ' [no-tools]',
    rows: DEFAULT_ROWS.filter((id) => !TOOL_RESULTS.has(id)),
  },
  {
    mode: 'user-only',
    key: 'Alt+U',
    tag: ' [user]',
    rows: [ALL_IDS.firstUser, ALL_IDS.branchUser, ALL_IDS.secondUser, ALL_IDS.thirdUser],
  },
  // firstUser's label "start" was cleared by a later label entry; only "bench" resolves.
  { mode: 'labeled-only', key: 'Alt+L', tag: ' [labeled]', rows: [ALL_IDS.thirdUser] },
  { mode: 'all', key: 'Alt+A', tag: ' [all]', rows: ALL_ROWS },
];
const sceneOf = (mode: FilterMode) => SCENES.find((scene) => scene.mode === mode)!;

/** The filter is `mode` and the outline shows exactly its scene's rows, in order. */
async function expectScene(app: CanopyApp, mode: FilterMode): Promise<void> {
  const { rows } = sceneOf(mode);
  await expect(app.filterGroup).toHaveAttribute('data-mode', mode);
  // The count first: it waits for the outline to render the mode's rows.
  await expect(app.rows).toHaveCount(rows.length);
  expect(await app.outlineIds()).toEqual(rows);
}

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
    await expectScene(app, scene.mode);
    await expect(app.position).toContainText(`/${scene.rows.length})${scene.tag}`);
  });
}

test('Alt+D/T/U/L/A set each filter directly and the browser default is prevented', async ({ app, page }) => {
  await recordPrevented(page);
  await app.focusTree();
  for (const key of ['Alt+T', 'Alt+U', 'Alt+L', 'Alt+A', 'Alt+D', 'Alt+U', 'Alt+U']) {
    const scene = SCENES.find((s) => s.key === key)!;
    await page.keyboard.press(key);
    await expectScene(app, scene.mode);
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
    await expectScene(app, mode);
  }
  const backward: FilterMode[] = ['all', 'labeled-only', 'user-only', 'no-tools', 'default'];
  for (const mode of backward) {
    await page.keyboard.press('Shift+Control+O');
    await expectScene(app, mode);
  }
  const presses = (await preventedKeys(page)).filter((k) => k.key === 'o' || k.key === 'O');
  expect(presses).toHaveLength(10);
  expect(presses.every((k) => k.prevented)).toBe(true);
});

test('a filter that hides the selection moves it to the nearest visible ancestor', async ({ app, page }) => {
  await app.filterButton('all').click();
  await app.row(ALL_IDS.readResult).click(); // a tool result under the hidden tool-only assistant readCall
  await page.keyboard.press('Alt+U');
  await expect(app.row(ALL_IDS.firstUser)).toHaveAttribute('aria-selected', 'true');
  await expect(app.detail.getByTestId('detail.id')).toHaveText(ALL_IDS.firstUser);

  await page.keyboard.press('Alt+A');
  await app.row(ALL_IDS.thinkingLow).click(); // a thinking level change: hidden by default, as are the labels above it
  await page.keyboard.press('Alt+D');
  await expect(app.row(ALL_IDS.benchAnswer)).toHaveAttribute('aria-selected', 'true');
});
