// Bringing entries of an abandoned approach into the branch the user continues on (docs/bring-back.md):
// each form from a two-branch selection, previewed, edited and written as one entry that becomes the
// leaf; its provenance (dashed graph edges, "brought from" links) and its undo in a pi 1.x file.
import { SessionManager, type AssistantContentBlock } from '@canopy/session-core';
import { assistantReplyOf, readLines } from '../support/sessionFile';
import { expect, onGeneratedSession, test } from '../support/test';

const FILE = 'bring-back.jsonl';

const reply = (content: AssistantContentBlock[]) => assistantReplyOf(content, 0);

/** start → plan; approach A (reads src/parser.ts, finds the fix), approach B (the leaf), B written last. */
function makeSession() {
  const sm = SessionManager.inMemory('/home/dev/projects/parser');
  const user = (text: string) => sm.appendMessage({ role: 'user', content: text, timestamp: 0 });
  const start = user('Make the parser faster');
  const plan = sm.appendMessage(reply([{ type: 'text', text: 'Two approaches: A or B.' }]));
  const tryA = user('Try approach A: a lookup table');
  const readA = sm.appendMessage(
    reply([
      { type: 'thinking', thinking: 'private reasoning', thinkingSignature: 'sig' },
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
  const doneA = sm.appendMessage(reply([{ type: 'text', text: 'The lookup table made it 3x faster.' }]));
  sm.branch(plan);
  const tryB = user('Try approach B: a regex');
  const doneB = sm.appendMessage(reply([{ type: 'text', text: 'Regex is 2x slower.' }]));
  // pi 1.x's hand in the file (a usage entry), so that undo by context_edit is possible.
  sm.appendUsage('cache_warm', 'anthropic', 'claude', {
    input: 1,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 1,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  });
  return { jsonl: sm.toJsonl(), ids: { start, plan, tryA, readA, resultA, doneA, tryB, doneB } };
}

const session = makeSession();
const { ids } = session;

onGeneratedSession(FILE, () => session.jsonl);

for (const form of ['excerpt', 'condensed', 'summary'] as const) {
  test(`${form}: a two-branch selection previewed, edited and brought in as one entry that becomes the leaf`, async ({
    app,
    page,
    sessionFile,
  }) => {
    await app.row(ids.resultA).click({ modifiers: ['Control'] });
    await app.row(ids.tryB).click({ modifiers: ['Control'] });
    await page.getByTestId('selection.bring-back').click();
    const dialog = page.getByTestId('dialog.bringback');
    await expect(dialog).toBeVisible();
    if (form !== 'excerpt') {
      await page.getByTestId(`bringback.form-${form}`).click();
      if (form === 'condensed') await page.getByTestId('bringback.budget').fill('400');
      await page.getByTestId('bringback.preview').click();
    }
    const text = page.getByTestId('bringback.text');
    await expect(text).not.toHaveValue('');
    const previewed = await text.inputValue();
    if (form === 'excerpt') {
      // The result brought its call; thinking left out; both branches marked.
      expect(previewed).toContain('[Tool call]: read(path="src/parser.ts")');
      expect(previewed).toContain('[Tool result of read]: export function parse() {}');
      expect(previewed).not.toContain('private reasoning');
      expect(previewed).toContain('[Selection: branch 2 of 2');
      await expect(page.getByTestId('bringback.facts')).toContainText(
        '1 added to keep tool calls with their results',
      );
    }
    if (form === 'summary') expect(previewed).toContain('<read-files>\nsrc/parser.ts\n</read-files>');
    await expect(page.getByTestId('bringback.tokens')).toHaveText(
      `≈ ${Math.ceil(previewed.length / 4)} tokens`,
    );
    const edited = `${previewed}\n\nNote: use the lookup table.`;
    await text.fill(edited);
    const before = readLines(sessionFile.path).length;
    await page.getByTestId('bringback.write').click();
    await expect(dialog).toHaveCount(0);
    await expect.poll(() => readLines(sessionFile.path).length).toBe(before + 1);
    const written = readLines(sessionFile.path).at(-1)!;
    expect(written).toMatchObject({
      type: 'custom_message',
      customType: 'canopy.bring-back',
      display: true,
      content: edited,
      details: { form },
    });
    const sources = (written.details as { sourceEntryIds: string[] }).sourceEntryIds;
    expect(sources).toEqual(expect.arrayContaining([ids.readA, ids.resultA, ids.tryB]));
    const entryId = String(written.id);
    await expect(app.row(entryId)).toHaveAttribute('data-leaf', 'true');
    await expect(app.row(entryId)).toHaveAttribute('aria-selected', 'true');
  });
}

test('provenance: dashed edges in the graph, "brought from" links that select the source, and undo', async ({
  app,
  page,
  sessionFile,
}) => {
  await app.row(ids.doneA).click({ modifiers: ['Control'] });
  await app.row(ids.tryA).click({ modifiers: ['Control'] });
  await page.getByTestId('selection.bring-back').click();
  await expect(page.getByTestId('bringback.text')).not.toHaveValue('');
  await page.getByTestId('bringback.write').click();
  await expect.poll(() => readLines(sessionFile.path).at(-1)?.type).toBe('custom_message');
  const entryId = String(readLines(sessionFile.path).at(-1)!.id);
  await expect(app.row(entryId)).toHaveAttribute('aria-selected', 'true');

  // The graph (beside the outline) draws one dashed edge per source entry shown.
  await page.getByTestId('view.split').click();
  await expect(page.getByTestId('tree.graph')).toHaveAttribute('data-provenance-edges', '2');

  const panel = page.getByTestId('detail.bringback');
  await expect(panel).toContainText('Brought from');
  await expect(panel.getByTestId('detail.bringback-source')).toHaveCount(2);
  await panel.locator(`[data-entry-id="${ids.doneA}"]`).click();
  await expect(app.row(ids.doneA)).toHaveAttribute('aria-selected', 'true');

  await app.row(entryId).click();
  const before = readLines(sessionFile.path).length;
  await page.getByTestId('detail.bringback-undo').click();
  await expect.poll(() => readLines(sessionFile.path).length).toBe(before + 1);
  expect(readLines(sessionFile.path).at(-1)).toMatchObject({
    type: 'context_edit',
    targetId: entryId,
    replacement: null,
  });
  await app.row(entryId).click();
  await expect(page.getByTestId('detail.bringback-no-undo')).toContainText('Undone');
});
