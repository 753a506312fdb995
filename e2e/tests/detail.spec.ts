// The detail panel of the selected entry on all-entry-types.jsonl: text, image, thinking, tool
// calls and results, usage and cost, the context the model sees and the branch totals.
import { SessionManager, type AssistantMessage } from '@canopy/session-core';
import { ALL_ENTRY_TYPES_TEXTS, ALL_IDS, expect, test } from '../support/test';

/** A session of one question and its reply (`content`, with `cost` dollars for 1,500 tokens), as pi writes it. */
function questionAndReply(
  project: string,
  question: string,
  content: AssistantMessage['content'],
  cost: number,
) {
  const manager = SessionManager.inMemory(`/home/dev/projects/${project}`);
  manager.appendMessage({ role: 'user', content: question, timestamp: Date.now() });
  manager.appendMessage({
    role: 'assistant',
    content,
    api: 'anthropic-messages',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    usage: {
      input: 1200,
      output: 300,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 1500,
      cost: { input: cost * (4 / 9), output: cost * (5 / 9), cacheRead: 0, cacheWrite: 0, total: cost },
    },
    stopReason: 'stop',
    timestamp: Date.now(),
  });
  return manager.toJsonl();
}

test.describe('with a written session holding thinking', () => {
  test.use({
    sessionFiles: [],
    generatedSessions: {
      'thinking.jsonl': () =>
        questionAndReply(
          'thinking',
          'Why is the build slow?',
          [
            { type: 'thinking', thinking: 'The bundler probably re-parses every file.' },
            { type: 'text', text: 'The bundler re-parses every file; cache the AST.' },
          ],
          0.0081,
        ),
    },
  });

  test('thinking is collapsed until opened, below the reply text', async ({ app }) => {
    await app.openSession('thinking.jsonl');
    await app.rows.nth(1).click();
    const content = app.detail.getByTestId('detail.content');
    await expect(content).toContainText('The bundler re-parses every file; cache the AST.');
    const thinking = content.getByTestId('detail.thinking');
    await expect(thinking).toHaveCount(1);
    await expect(thinking).not.toHaveAttribute('open', '');
    await expect(thinking.getByText('The bundler probably re-parses every file.')).toBeHidden();
    await thinking.locator('summary').click();
    await expect(thinking.getByText('The bundler probably re-parses every file.')).toBeVisible();
    await expect(content.getByTestId('detail.usage')).toContainText('$0.0081');
  });
});

test.describe('with a written session holding markdown and hostile HTML', () => {
  test.use({
    sessionFiles: [],
    generatedSessions: {
      'markdown.jsonl': () =>
        questionAndReply(
          'markdown',
          'Show me the fix.',
          [
            {
              type: 'text',
              text: [
                '## The fix',
                '',
                'Cache the **parsed AST** per file:',
                '',
                '```ts',
                'const cache = new Map<string, Ast>();',
                '```',
                '',
                '<img src="x" onerror="window.__canopyPwned = 1">',
                '<script>window.__canopyPwned = 2</script>',
                '[a link](javascript:window.__canopyPwned=3)',
              ].join('\n'),
            },
          ],
          0,
        ),
    },
  });

  test('a reply renders as markdown, with its HTML sanitised', async ({ app, page }) => {
    await app.openSession('markdown.jsonl');
    await app.rows.nth(1).click();
    const text = app.detail.getByTestId('detail.text');
    // The renderer loads in its own chunk; once it is in, the text is markdown.
    await expect(text).toHaveAttribute('aria-busy', 'false');
    await expect(text.locator('h2')).toHaveText('The fix');
    await expect(text.locator('strong')).toHaveText('parsed AST');
    await expect(text.locator('pre code')).toContainText('const cache = new Map<string, Ast>();');
    await expect(text.locator('script')).toHaveCount(0);
    await expect(text.locator('[onerror]')).toHaveCount(0);
    await expect(text.locator('a[href^="javascript:"]')).toHaveCount(0);
    await text.getByText('a link').click();
    expect(await page.evaluate(() => (window as { __canopyPwned?: number }).__canopyPwned)).toBeUndefined();
  });
});

test.describe('on all-entry-types.jsonl', () => {
  test.use({ sessionFiles: ['all-entry-types.jsonl'], sharedServer: true });

  test.beforeEach(async ({ app }) => {
    await app.openSession('all-entry-types.jsonl');
  });

  test('a user message shows its text and its image', async ({ app }) => {
    await app.row(ALL_IDS.firstUser).click();
    await expect(app.detail.getByTestId('detail.id')).toHaveText(ALL_IDS.firstUser);
    await expect(app.detail.getByTestId('detail.content')).toContainText(ALL_ENTRY_TYPES_TEXTS.firstUser);
    const image = app.detail.getByTestId('detail.image');
    await expect(image).toBeVisible();
    expect(
      await image.evaluate(
        (element) => element.querySelector('img')?.naturalWidth ?? (element as HTMLImageElement).naturalWidth,
      ),
    ).toBe(1);
  });

  test('an assistant message shows its tool call with arguments, its usage and its cost', async ({ app }) => {
    await app.row(ALL_IDS.editCall).click();
    const content = app.detail.getByTestId('detail.content');
    await expect(content).toContainText('First the split gets CRLF-tolerant.');
    const call = content.getByTestId('detail.toolcall');
    await expect(call).toContainText('edit');
    await expect(call).toContainText('src/log-reader.ts');
    await expect(call).toContainText('oldText');
    await expect(content.getByTestId('detail.usage')).toBeVisible();
    await expect(content.getByTestId('detail.usage')).toContainText('$');
  });

  test('a failed tool result is shown as an error with the call that produced it', async ({ app }) => {
    await app.row(ALL_IDS.editError).click();
    const result = app.detail.getByTestId('detail.toolresult');
    await expect(result).toContainText('Edit failed: oldText not found');
    await expect(result).toHaveClass(/error/);
  });

  test('"What the model sees here" lists the context at the entry with a token estimate', async ({ app }) => {
    await app.row(ALL_IDS.branchUser).click();
    await app.detail.getByTestId('detail.context-show').click();
    const context = app.detail.getByTestId('detail.context');
    // At branchUser the model sees: the first user message, the thinking/tool-call reply, the branch
    // summary (as a user-role message) and this message.
    await expect(context.locator('details')).toHaveCount(4);
    await expect(context.locator('details').nth(2)).toContainText(ALL_ENTRY_TYPES_TEXTS.branchSummary);
    await expect(context.locator('details').nth(3)).toContainText(ALL_ENTRY_TYPES_TEXTS.branchUser);
    await expect(app.detail.getByTestId('detail.context-tokens')).toHaveText(/^≈ \d[\d,.]*k? tokens$/);
  });

  test('branch totals count the entries and replies on the path from the root', async ({ app }) => {
    await app.row(ALL_IDS.branchAnswer).click();
    const totals = app.detail.getByTestId('detail.totals');
    // root → branchAnswer: model, thinking, session_info, user, assistant(readCall), branch summary, user, assistant.
    await expect(totals.locator('tbody tr').first().locator('td').nth(1)).toHaveText('8');
    await expect(totals.locator('tbody tr').first().locator('td').nth(2)).toHaveText('2');
    await expect(totals.locator('tbody tr').nth(2).locator('td').nth(1)).toHaveText('31');
  });
});
