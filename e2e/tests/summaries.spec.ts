// Summaries in the browser, as a user meets them: the settings, the summary dialog after a jump
// (each choice, the custom prompt, the editable preview, aborting with Esc) and drag-select on both
// views leading to a written summary. The session is written here through session-core.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SessionManager, type AssistantContentBlock } from '@canopy/session-core';
import type { CanopyApp } from '../pages/CanopyApp';
import type { Summaries } from '../pages/Summaries';
import { assistantReplyOf, readLines, type FileLine, type WatchedFile } from '../support/sessionFile';
import { expect, onGeneratedSession, test } from '../support/test';

const FILE = 'summaries.jsonl';

const reply = (content: AssistantContentBlock[]) => assistantReplyOf(content, 0);

/** start → plan; then approach A (reads src/parser.ts) and approach B (the leaf), B written last. */
function makeSession() {
  const sm = SessionManager.inMemory('/home/dev/projects/parser');
  const user = (text: string) => sm.appendMessage({ role: 'user', content: text, timestamp: 0 });
  const start = user('Make the parser faster');
  const plan = sm.appendMessage(reply([{ type: 'text', text: 'Two approaches: A or B.' }]));
  const tryA = user('Try approach A: a regex');
  const readA = sm.appendMessage(
    reply([
      { type: 'text', text: 'Reading the parser first.' },
      { type: 'toolCall', id: 'call-1', name: 'read', arguments: { path: 'src/parser.ts' } },
    ]),
  );
  const resultA = sm.appendMessage({
    role: 'toolResult',
    toolCallId: 'call-1',
    toolName: 'read',
    content: [{ type: 'text', text: 'export function parse() {}' }],
    isError: false,
    timestamp: 0,
  });
  const doneA = sm.appendMessage(reply([{ type: 'text', text: 'Regex approach is 2x slower.' }]));
  sm.branch(plan);
  const tryB = user('Try approach B: a hand-written scanner');
  const doneB = sm.appendMessage(reply([{ type: 'text', text: 'Scanner approach is 3x faster.' }]));
  return { jsonl: sm.toJsonl(), ids: { start, plan, tryA, readA, resultA, doneA, tryB, doneB } };
}

const session = makeSession();
const { ids } = session;

onGeneratedSession(FILE, () => session.jsonl);

test.beforeEach(async ({ app }) => {
  await expect(app.row(ids.doneB)).toHaveAttribute('data-leaf', 'true');
});

/** Selects the entry and presses Enter: a jump (the summary dialog comes first when summaries are on). */
async function jumpTo(app: CanopyApp, entryId: string): Promise<void> {
  await app.row(entryId).click();
  await app.page.keyboard.press('Enter');
}

/** Clicks `first`, Shift-clicks `last` (the rows between join in) and Ctrl-clicks `more` (added). */
async function selectAcross(app: CanopyApp, first: string, last: string, more: string): Promise<void> {
  await app.row(first).click();
  await app.row(last).click({ modifiers: ['Shift'] });
  await app.row(more).click({ modifiers: ['Control'] });
}

/**
 * Applies the previewed summary and returns the file's last line: the one written. The dialog of a
 * jump closes as the jump starts, before the server has written (the tree shows the summary when
 * its session_changed arrives), so the file is waited for, not the dialog.
 */
async function applySummary(summaries: Summaries, file: WatchedFile): Promise<FileLine> {
  const linesBefore = readLines(file.path).length;
  await summaries.button('apply').click();
  await expect(summaries.dialog).toHaveCount(0);
  await expect.poll(() => readLines(file.path).length).toBeGreaterThan(linesBefore);
  return readLines(file.path).at(-1)!;
}

test.describe('settings', () => {
  test('the settings dialog saves every setting in the state folder and they survive a reload', async ({
    app,
    page,
    canopy,
    summaries,
  }) => {
    await summaries.enableSummaries();
    await page.getByTestId('settings.open').click();
    await page.getByTestId('settings.summarizer').selectOption('offline');
    await page.getByTestId('settings.double-escape').selectOption('branch');
    await page.getByTestId('settings.default-filter').selectOption('user-only');
    await expect
      .poll(() => JSON.parse(readFileSync(join(canopy.stateDir, 'settings.json'), 'utf8')) as unknown)
      .toEqual({
        branchSummary: { enabled: true, summarizerId: 'offline' },
        doubleEscapeAction: 'branch',
        defaultFilter: 'user-only',
      });
    await page.keyboard.press('Escape');
    await expect(summaries.settings).toHaveCount(0);

    await page.reload();
    // The deep link reopens the session; the settings come from the server again.
    await expect(app.outline).toBeVisible({ timeout: 30_000 });
    await page.getByTestId('settings.open').click();
    await expect(page.getByTestId('settings.summaries')).toBeChecked();
    await expect(page.getByTestId('settings.summarizer')).toHaveValue('offline');
    await expect(page.getByTestId('settings.double-escape')).toHaveValue('branch');
    await expect(page.getByTestId('settings.default-filter')).toHaveValue('user-only');
  });

  test('with summaries off (the default) a jump navigates at once, without the dialog', async ({
    app,
    summaries,
  }) => {
    await jumpTo(app, ids.doneA);
    await expect(app.row(ids.doneA)).toHaveAttribute('data-leaf', 'true');
    await expect(summaries.dialog).toHaveCount(0);
  });
});

test.describe('the summary dialog after a jump', () => {
  test.beforeEach(async ({ summaries }) => {
    await summaries.enableSummaries();
  });

  test('Esc on the choice returns to the tree with nothing changed', async ({
    app,
    page,
    summaries,
    sessionFile,
  }) => {
    await jumpTo(app, ids.doneA);
    await summaries.expectStep('choice');
    await page.keyboard.press('Escape');
    await expect(summaries.dialog).toHaveCount(0);
    await expect(app.row(ids.doneB)).toHaveAttribute('data-leaf', 'true');
    expect(sessionFile.unchanged()).toBe(true);
  });

  test('No summary navigates and writes nothing', async ({ app, summaries, sessionFile }) => {
    await app.row(ids.doneA).dblclick();
    await summaries.button('none').click();
    await expect(summaries.dialog).toHaveCount(0);
    await expect(app.row(ids.doneA)).toHaveAttribute('data-leaf', 'true');
    expect(sessionFile.unchanged()).toBe(true);
  });

  test('Summarize shows an editable preview; the edited text is written at the target and selected in both views', async ({
    app,
    summaries,
    sessionFile,
  }) => {
    const linesBefore = readLines(sessionFile.path).length;
    await jumpTo(app, ids.doneA);
    await summaries.button('summarize').click();
    await summaries.expectStep('preview');
    // The offline summary of the abandoned branch B names its request.
    await expect(summaries.text).toHaveValue(/Try approach B: a hand-written scanner/);
    expect(readLines(sessionFile.path)).toHaveLength(linesBefore);

    await summaries.text.fill('B: the scanner was 3x faster. Keep it in mind.');
    await applySummary(summaries, sessionFile);

    const lines = readLines(sessionFile.path);
    expect(lines).toHaveLength(linesBefore + 1);
    const written = lines.at(-1)!;
    // Written as pi 1.6 writes it: fromId is the leaf that was left (docs/format.md#branch-summary-fromid).
    expect(written).toMatchObject({
      type: 'branch_summary',
      parentId: ids.doneA,
      fromId: ids.doneB,
      summary: 'B: the scanner was 3x faster. Keep it in mind.',
      details: { readFiles: [], modifiedFiles: [] },
      fromHook: false,
    });
    await expect(app.row(written.id!)).toHaveAttribute('data-leaf', 'true');
    await expect(app.row(written.id!)).toHaveAttribute('aria-selected', 'true');
    await expect(app.graphNode(written.id!)).toHaveAttribute('data-selected', 'true');
  });

  test('the custom prompt: cancelling returns to the choice; with replace it is sent and the preview can go back', async ({
    app,
    page,
    summaries,
    sessionFile,
  }) => {
    await jumpTo(app, ids.tryA);
    await summaries.button('custom').click();
    await summaries.expectStep('prompt');
    await summaries.button('prompt').fill('what was measured');
    await summaries.button('prompt-cancel').click();
    await summaries.expectStep('choice');

    await summaries.button('custom').click();
    await summaries.button('prompt').fill('faster');
    await summaries.button('replace').check();
    await summaries.button('prompt-submit').click();
    await summaries.expectStep('preview');
    // The offline summariser answers a custom prompt with an "Additional focus" section.
    await expect(summaries.text).toHaveValue(/Additional focus/);
    await page.keyboard.press('Escape');
    await summaries.expectStep('choice');
    await page.keyboard.press('Escape');
    await expect(summaries.dialog).toHaveCount(0);
    expect(sessionFile.unchanged()).toBe(true);
  });
});

test.describe('aborting a summary', () => {
  test.use({ serverEnv: { CANOPY_TEST_SUMMARIZER: 'hold' } });

  test('Esc while generating aborts: the tree comes back with nothing written and the leaf where it was', async ({
    app,
    page,
    summaries,
    sessionFile,
  }) => {
    await summaries.enableSummaries();
    await jumpTo(app, ids.doneA);
    await summaries.button('summarizer').selectOption('test-hold');
    await summaries.button('summarize').click();
    await summaries.expectStep('generating');
    // The streamed text and the progress arrive over the WebSocket.
    await expect(summaries.stream).toHaveText('Summarising 2 entries; this one waits for Esc.');
    // Its tokens (characters / 4) and the elapsed time, beside the phase.
    await expect(page.getByTestId('summary.meter')).toHaveText(/^12 tokens · \d+ s$/);
    await page.keyboard.press('Escape');
    await expect(summaries.dialog).toHaveCount(0);
    await expect(app.toast('Summary aborted; nothing was written')).toBeVisible();
    await expect(app.row(ids.doneB)).toHaveAttribute('data-leaf', 'true');
    expect(sessionFile.unchanged()).toBe(true);
  });
});

test.describe('drag-select', () => {
  test('outline: click, Shift-click and Ctrl-click select across branches; Esc clears', async ({
    app,
    page,
    summaries,
  }) => {
    await selectAcross(app, ids.tryA, ids.doneA, ids.tryB);
    await expect(summaries.selectionCount).toHaveText('5 entries selected');
    for (const id of [ids.tryA, ids.readA, ids.resultA, ids.doneA, ids.tryB])
      await expect(app.row(id)).toHaveAttribute('data-multi', 'true');
    await expect(app.graphNode(ids.tryB)).toHaveAttribute('data-multi', 'true');
    await expect(page.getByTestId('selection.tokens')).toContainText('tokens');
    await app.row(ids.tryB).click({ modifiers: ['Control'] });
    await expect(summaries.selectionCount).toHaveText('4 entries selected');
    await page.keyboard.press('Escape');
    await expect(summaries.selectionBar).toHaveCount(0);
    await expect(app.outline.locator('[data-multi]')).toHaveCount(0);
  });

  test('outline Shift-click selection summarised: one summary under the leaf, fromId the newest entry, the ids in details', async ({
    app,
    page,
    summaries,
    sessionFile,
  }) => {
    await selectAcross(app, ids.doneA, ids.tryA, ids.doneB);
    await page.getByTestId('selection.summarize').click();
    await summaries.button('summarize').click();
    await summaries.expectStep('preview');
    await expect(page.getByTestId('summary.selected')).toHaveText('5 entries on 2 branches');
    await expect(page.getByTestId('summary.sent')).toContainText(
      /^5 entries, ≈ \d+ tokens \(read whole, no model\)$/,
    );
    await expect(summaries.text).toHaveValue(/src\/parser\.ts/);
    const written = await applySummary(summaries, sessionFile);
    expect(written).toMatchObject({
      type: 'branch_summary',
      parentId: ids.doneB,
      fromId: ids.doneB,
      details: {
        readFiles: ['src/parser.ts'],
        modifiedFiles: [],
        selectedEntryIds: [ids.tryA, ids.readA, ids.resultA, ids.doneA, ids.doneB],
      },
    });
    await expect(app.row(written.id!)).toHaveAttribute('data-leaf', 'true');
    await expect(app.row(written.id!)).toHaveAttribute('aria-selected', 'true');
    await expect(summaries.selectionBar).toHaveCount(0);
  });

  test('graph: a Shift-drag rectangle over both branches selects their nodes and its summary is written', async ({
    app,
    page,
    summaries,
    sessionFile,
  }) => {
    await page.getByTestId('graph.fit').click();
    const a = (await app.graphNode(ids.tryA).boundingBox())!;
    const b = (await app.graphNode(ids.tryB).boundingBox())!;
    const left = Math.min(a.x, b.x) - 4;
    const right = Math.max(a.x + a.width, b.x + b.width) + 4;
    const top = Math.min(a.y, b.y) - 4;
    const bottom = Math.max(a.y + a.height, b.y + b.height) + 4;
    // A plain drag pans; with Shift held it draws the rectangle.
    await page.keyboard.down('Shift');
    await page.mouse.move(left, top);
    await page.mouse.down();
    await page.mouse.move((left + right) / 2, (top + bottom) / 2, { steps: 4 });
    await expect(page.getByTestId('graph.select-rect')).toBeVisible();
    await page.mouse.move(right, bottom, { steps: 4 });
    await page.mouse.up();
    await page.keyboard.up('Shift');

    await expect(summaries.selectionCount).toHaveText('2 entries selected');
    await expect(app.graphNode(ids.tryA)).toHaveAttribute('data-multi', 'true');
    await expect(app.row(ids.tryB)).toHaveAttribute('data-multi', 'true');
    await page.getByTestId('selection.summarize').click();
    await summaries.button('custom').click();
    await summaries.button('prompt').fill('approaches');
    await summaries.button('prompt-submit').click();
    await summaries.expectStep('preview');
    const written = await applySummary(summaries, sessionFile);
    expect(written).toMatchObject({
      type: 'branch_summary',
      parentId: ids.doneB,
      fromId: ids.tryB,
      details: { selectedEntryIds: [ids.tryA, ids.tryB] },
    });
    await expect(app.graphNode(written.id!)).toHaveAttribute('data-selected', 'true');
  });

  test('graph: the Select tool makes a plain drag draw the rectangle', async ({ app, page, summaries }) => {
    await page.getByTestId('graph.fit').click();
    await page.getByTestId('graph.select-tool').click();
    await expect(page.getByTestId('graph.select-tool')).toHaveAttribute('aria-pressed', 'true');
    const node = (await app.graphNode(ids.doneB).boundingBox())!;
    await page.mouse.move(node.x - 6, node.y - 6);
    await page.mouse.down();
    await page.mouse.move(node.x + node.width + 6, node.y + node.height + 6, { steps: 5 });
    await page.mouse.up();
    await expect(summaries.selectionCount).toHaveText('1 entry selected');
    await expect(app.graphNode(ids.doneB)).toHaveAttribute('data-multi', 'true');
  });

  test('in the navigate dialog the selection narrows what the summary covers', async ({
    app,
    page,
    summaries,
    sessionFile,
  }) => {
    await summaries.enableSummaries();
    await app.row(ids.doneB).click({ modifiers: ['Control'] });
    await jumpTo(app, ids.doneA);
    await summaries.button('only-selection').check();
    await summaries.button('summarize').click();
    await summaries.expectStep('preview');
    await expect(page.getByTestId('summary.sent')).toContainText(/^1 entry, ≈ \d+ tokens/);
    expect(await applySummary(summaries, sessionFile)).toMatchObject({
      type: 'branch_summary',
      parentId: ids.doneA,
      details: { selectedEntryIds: [ids.doneB] },
    });
  });
});
