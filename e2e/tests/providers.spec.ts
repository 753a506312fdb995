// Summary models in the browser, as a new user meets them: a local OpenAI-compatible endpoint added
// in the settings dialog, tested (an answer, a refused connection with its cause) and used without a
// restart; a long streamed summary that follows the newest text unless scrolled up, with tokens,
// elapsed time and the phase named; the honest preview; a selection across branches. The endpoint
// is a loopback server of this test process; the session is written here through session-core.
import { SessionManager, type AssistantContentBlock } from '@canopy/session-core';
import { startFakeOpenAi, type FakeOpenAi } from '@canopy/summarizer/test-server';
import type { Page } from '@playwright/test';
import type { CanopyApp } from '../pages/CanopyApp';
import { assistantReplyOf } from '../support/sessionFile';
import { expect, onGeneratedSession, test } from '../support/test';

const FILE = 'providers.jsonl';
const KEY = 'sk-e2e-local-key-0123456789';
const reply = (content: AssistantContentBlock[]) => assistantReplyOf(content, 0);

/** start → plan; approach A writes src/tail.ts (call and result); approach B is the leaf. */
function makeSession() {
  const sm = SessionManager.inMemory('/home/dev/projects/tail');
  const user = (text: string) => sm.appendMessage({ role: 'user', content: text, timestamp: 0 });
  const start = user('Make tail follow rotated files');
  const plan = sm.appendMessage(reply([{ type: 'text', text: 'Two ways: inotify or polling.' }]));
  const tryA = user('Try inotify');
  const writeA = sm.appendMessage(
    reply([
      { type: 'toolCall', id: 'call-w', name: 'write', arguments: { path: 'src/tail.ts', content: 'x' } },
    ]),
  );
  const resultA = sm.appendMessage({
    role: 'toolResult',
    toolCallId: 'call-w',
    toolName: 'write',
    content: [{ type: 'text', text: 'Wrote src/tail.ts' }],
    isError: false,
    timestamp: 0,
  });
  sm.branch(plan);
  const tryB = user('Try polling');
  const doneB = sm.appendMessage(reply([{ type: 'text', text: 'Polling works.' }]));
  return { jsonl: sm.toJsonl(), ids: { start, plan, tryA, writeA, resultA, tryB, doneB } };
}

const session = makeSession();
const { ids } = session;
onGeneratedSession(FILE, () => session.jsonl);

let fake: FakeOpenAi;
test.beforeAll(async () => {
  fake = await startFakeOpenAi();
});
test.afterAll(async () => fake.close());
test.beforeEach(() => {
  fake.requests.length = 0;
  fake.queue.length = 0;
  fake.reply = { kind: 'stream', chunks: ['ready'] };
});

/** Clicks `first`, Shift-clicks `last` (the rows between join in) and Ctrl-clicks `more`. */
async function selectRows(app: CanopyApp, first: string, last: string, ...more: string[]): Promise<void> {
  await app.row(first).click();
  await app.row(last).click({ modifiers: ['Shift'] });
  for (const id of more) await app.row(id).click({ modifiers: ['Control'] });
}

async function addLocalProvider(page: Page): Promise<void> {
  await page.getByTestId('settings.open').click();
  await page.getByTestId('providers.provider').fill('local');
  await page.getByTestId('providers.model').fill('qwen-small');
  await page.getByTestId('providers.base-url').fill(fake.baseUrl);
  await page.getByTestId('providers.context-window').fill('32000');
  await page.getByTestId('providers.key').fill(KEY);
}

/** Adds the loopback endpoint in the settings dialog, saves it and closes the dialog. */
async function saveLocalProvider(page: Page): Promise<void> {
  await addLocalProvider(page);
  await page.getByTestId('providers.save').click();
  await expect(page.getByTestId('providers.saved')).toHaveAttribute('data-usable', 'true');
  await page.getByTestId('settings.close').click();
}

test('a local endpoint is added in the settings dialog, tested, failing with its cause, and used without a restart', async ({
  app,
  page,
  summaries,
}) => {
  await expect(app.row(ids.doneB)).toHaveAttribute('data-leaf', 'true');
  await addLocalProvider(page);

  await page.getByTestId('providers.test').click();
  await expect(page.getByTestId('providers.test-result')).toHaveAttribute('data-ok', 'true');
  await expect(page.getByTestId('providers.test-result')).toContainText('local/qwen-small answered');
  await expect(page.getByTestId('providers.test-result')).toContainText('“ready”');

  // The same provider at a port where nothing listens: the cause, not "Connection error." alone.
  const closed = await startFakeOpenAi();
  await closed.close();
  await page.getByTestId('providers.base-url').fill(closed.baseUrl);
  await page.getByTestId('providers.test').click();
  await expect(page.getByTestId('providers.test-result')).toHaveAttribute('data-ok', 'false');
  await expect(page.getByTestId('providers.test-result')).toContainText(
    /nothing is listening at http:\/\/127\.0\.0\.1:\d+ \(connection refused\)/,
  );

  await page.getByTestId('providers.base-url').fill(fake.baseUrl);
  await page.getByTestId('providers.save').click();
  const saved = page.getByTestId('providers.saved');
  await expect(saved).toHaveAttribute('data-usable', 'true');
  await expect(saved).toContainText('key sk-…6789');
  await expect(page.getByTestId('dialog.settings')).not.toContainText(KEY);
  await page.getByTestId('settings.summaries').check();
  await page.getByTestId('settings.summarizer').selectOption('llm:local/qwen-small');
  await expect(page.getByTestId('settings.summarizer-source')).toContainText('local/qwen-small');
  await page.getByTestId('settings.close').click();

  // Used at once: a jump with a summary is generated by the endpoint just added.
  fake.reply = { kind: 'stream', chunks: ['## Goal\n', 'Follow rotated files.'] };
  await app.row(ids.tryA).click();
  await page.keyboard.press('Enter');
  await summaries.button('summarize').click();
  await summaries.expectStep('preview');
  await expect(summaries.text).toHaveValue(/Follow rotated files\./);
  expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
  await expect(page.locator('body')).not.toContainText(KEY);
});

test('a long streamed summary follows the newest text unless scrolled up, with tokens, elapsed time and the phase named', async ({
  app,
  page,
  summaries,
}) => {
  await expect(app.row(ids.doneB)).toHaveAttribute('data-leaf', 'true');
  await saveLocalProvider(page);

  fake.reply = { kind: 'manual' };
  await selectRows(app, ids.start, ids.plan);
  await page.getByTestId('selection.summarize').click();
  await page.getByTestId('summary.summarizer').selectOption('llm:local/qwen-small');
  await summaries.button('summarize').click();
  await expect(page.getByTestId('summary.phase')).toHaveText('Waiting for local/qwen-small…');
  await expect.poll(() => fake.manualOpen()).toBe(true);

  for (let line = 1; line <= 60; line++) fake.push(`Line ${line} of a long summary.\n`);
  const stream = summaries.stream;
  await expect(stream).toContainText('Line 60 of a long summary.');
  await expect(page.getByTestId('summary.phase')).toHaveText('Generating with local/qwen-small…');
  await expect(page.getByTestId('summary.meter')).toHaveText(/^\d+ tokens · \d+ s$/);
  const atBottom = () =>
    stream.evaluate((element) => element.scrollTop + element.clientHeight >= element.scrollHeight - 8);
  await expect.poll(atBottom).toBe(true);

  // Scrolled up to read: new text does not pull the view down.
  await stream.evaluate((element) => (element.scrollTop = 0));
  await stream.dispatchEvent('scroll');
  for (let line = 61; line <= 80; line++) fake.push(`Line ${line} of a long summary.\n`);
  await expect(stream).toContainText('Line 80 of a long summary.');
  expect(await stream.evaluate((element) => element.scrollTop)).toBe(0);

  // Back at the bottom: it follows again.
  await stream.evaluate((element) => (element.scrollTop = element.scrollHeight));
  await stream.dispatchEvent('scroll');
  for (let line = 81; line <= 100; line++) fake.push(`Line ${line} of a long summary.\n`);
  await expect(stream).toContainText('Line 100 of a long summary.');
  await expect.poll(atBottom).toBe(true);
  fake.finish();
  await summaries.expectStep('preview');
});

test('the preview of a selection across branches says what was selected, what was sent and what was left out', async ({
  app,
  page,
  summaries,
}) => {
  await expect(app.row(ids.doneB)).toHaveAttribute('data-leaf', 'true');
  await saveLocalProvider(page);

  fake.reply = { kind: 'stream', chunks: ['## Goal\n', 'Both approaches.'] };
  // The write's result only (its call is in the row above it), and approach B: two branches.
  await selectRows(app, ids.resultA, ids.resultA, ids.tryB);
  await page.getByTestId('selection.summarize').click();
  await page.getByTestId('summary.summarizer').selectOption('llm:local/qwen-small');
  await summaries.button('summarize').click();
  await summaries.expectStep('preview');
  await expect(page.getByTestId('summary.selected')).toHaveText('2 entries on 2 branches');
  await expect(page.getByTestId('summary.added')).toHaveText(
    '1 tool call of selected results, so each call is read with its result',
  );
  await expect(page.getByTestId('summary.sent')).toContainText(
    /^2 entries, ≈ \d+ tokens of a 15,616-token budget$/,
  );
  await expect(page.getByTestId('summary.left-out')).toContainText(
    '1 tool result: the calls that made them say what was done',
  );

  const prompt = JSON.stringify(fake.requests.at(-1)?.body.messages);
  expect(prompt).toContain('[Selection: branch 1 of 2 of the conversation]');
  expect(prompt).toContain('[Selection: branch 2 of 2;');
  expect(prompt).toContain('[Assistant tool calls]: write(path=');
  await expect(summaries.text).toHaveValue(
    /^The user selected entries from the path leading here and from other branches of this conversation to be summarized\./,
  );
  await expect(summaries.text).toHaveValue(/<modified-files>\nsrc\/tail\.ts\n<\/modified-files>$/);
});

test('a small window is shown as a problem with its fix where it applies, and fixed in the form without a restart', async ({
  app,
  page,
}) => {
  await expect(app.row(ids.doneB)).toHaveAttribute('data-leaf', 'true');
  await addLocalProvider(page);
  await page.getByTestId('providers.context-window').fill('8192');
  await page.getByTestId('providers.save').click();
  const saved = page.getByTestId('providers.saved');
  await expect(saved).toHaveAttribute('data-usable', 'false');
  await expect(saved.getByTestId('providers.problem')).toContainText(
    'leaves no room for the conversation after reserveTokens (16384)',
  );
  await expect(saved.getByTestId('providers.problem')).toContainText('Fix: Lower “Reserve tokens”');

  await saved.getByTestId('providers.edit').click();
  await page.getByTestId('providers.reserve-tokens').fill('2048');
  await page.getByTestId('providers.save').click();
  await expect(saved).toHaveAttribute('data-usable', 'true');
  await expect(saved.getByTestId('providers.problem')).toHaveCount(0);
});
