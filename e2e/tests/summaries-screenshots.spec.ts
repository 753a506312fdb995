// Screenshots of the summary dialog (choice, generating, preview) and of a drag-selection at
// 1280×720 and 1920×1080 in both themes, saved under e2e/artifacts/ (git-ignored) to be looked at,
// not compared.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SessionManager } from '@canopy/session-core';
import { Summaries } from '../pages/Summaries';
import { repoRoot } from '../support/server';
import { assistantReplyOf } from '../support/sessionFile';
import { expect, test } from '../support/test';

const FILE = 'screens.jsonl';

function makeSession() {
  const sm = SessionManager.inMemory('/home/dev/projects/parser');
  const user = (text: string) => sm.appendMessage({ role: 'user', content: text, timestamp: 0 });
  const reply = (text: string) => sm.appendMessage(assistantReplyOf([{ type: 'text', text }], 0));
  user('Make the parser faster');
  const plan = reply('Two approaches: a regex, or a hand-written scanner.');
  const tryA = user('Try approach A: a regex');
  reply('The regex version is 2x slower on the benchmark.');
  const doneA = reply('Reverting the regex change.');
  sm.branch(plan);
  const tryB = user('Try approach B: a hand-written scanner');
  const doneB = reply('The scanner is 3x faster; all tests pass.');
  return { jsonl: sm.toJsonl(), ids: { tryA, doneA, tryB, doneB } };
}

const session = makeSession();
const artifacts = join(repoRoot, 'e2e', 'artifacts');

test.use({
  sessionFiles: [],
  generatedSessions: { [FILE]: () => session.jsonl },
  serverEnv: { CANOPY_TEST_SUMMARIZER: 'hold' },
});

test('screenshots of the summary dialog and a drag-selection, two sizes, both themes', async ({
  app,
  page,
}) => {
  test.setTimeout(240_000);
  mkdirSync(artifacts, { recursive: true });
  const summaries = new Summaries(page);
  await app.openSession(FILE);
  await summaries.enableSummaries();
  const { ids } = session;
  for (const [width, height] of [
    [1280, 720],
    [1920, 1080],
  ] as const) {
    await page.setViewportSize({ width, height });
    for (const theme of ['light', 'dark'] as const) {
      if ((await page.locator('html').getAttribute('data-theme')) !== theme) await app.themeToggle.click();
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      const shot = (name: string) =>
        page.screenshot({ path: join(artifacts, `summary-${name}-${width}-${theme}.png`) });

      await app.row(ids.tryA).click();
      await app.row(ids.doneA).click({ modifiers: ['Shift'] });
      await app.row(ids.tryB).click({ modifiers: ['Control'] });
      await expect(summaries.selectionCount).toHaveText('4 entries selected');
      await shot('selection');

      await app.row(ids.doneA).click();
      await page.keyboard.press('Escape');
      await expect(summaries.selectionBar).toHaveCount(0);
      await page.keyboard.press('Enter');
      await summaries.expectStep('choice');
      await shot('choice');

      await summaries.button('summarizer').selectOption('test-hold');
      await summaries.button('summarize').click();
      await expect(summaries.stream).toBeVisible();
      await shot('generating');
      await page.keyboard.press('Escape');
      await expect(summaries.dialog).toHaveCount(0);

      await page.keyboard.press('Enter');
      await summaries.button('summarizer').selectOption('offline');
      await summaries.button('summarize').click();
      await summaries.expectStep('preview');
      await shot('preview');
      await page.keyboard.press('Escape');
      await page.keyboard.press('Escape');
      await expect(summaries.dialog).toHaveCount(0);
    }
  }
});
