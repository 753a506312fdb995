// The family of a session across files (docs/archive-and-family.md#family-of-a-session): a parent and
// a fork written by pi 1.6 itself (createBranchedSession keeps the entry ids), the fork's
// `parentSession` made relative to its folder so the copy the server reads still names its parent.
// The list nests the fork under its parent; the top bar follows the fork into its file at its graft
// point and back.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '../support/test';
import { assistantMsg, userMsg } from '../../packages/session-core/test/messages';
import * as pi16 from '../../packages/session-core/test/pi16';

const PARENT = 'family-parent.jsonl';
const FORK = 'family-fork.jsonl';

/** Waits (a few microseconds' spin) until the clock's millisecond has moved on. */
function nextMillisecond(): void {
  const now = Date.now();
  while (Date.now() === now);
}

function writeFamily(): { parent: string; fork: string; graftId: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-family-e2e-'));
  try {
    const sm = pi16.SessionManager.create('/work', dir);
    const say = (role: 'user' | 'assistant', text: string) =>
      sm.appendMessage(
        role === 'user'
          ? { ...userMsg(text), timestamp: 1 }
          : assistantMsg(text, { model: 'claude', timestamp: 2 }),
      );
    say('user', 'Plan the family feature');
    const graftId = say('assistant', 'Here is the plan');
    say('user', 'Go on in the parent');
    say('assistant', 'Parent goes on');
    const parentFile = sm.getSessionFile() as string;
    // pi stamps entries and headers in milliseconds: the fork's header is newer than what it copies,
    // and its own entries are no older than its header, as when a person forks.
    nextMillisecond();
    const forkFile = sm.createBranchedSession(graftId) as string;
    nextMillisecond();
    say('user', 'Try it in the fork');
    say('assistant', 'Forked answer');
    const parent = fs.readFileSync(parentFile, 'utf8');
    const fork = fs
      .readFileSync(forkFile, 'utf8')
      .replace(JSON.stringify(parentFile), JSON.stringify(PARENT));
    return { parent, fork, graftId };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const family = writeFamily();
test.use({
  sessionFiles: [],
  generatedSessions: { [PARENT]: () => family.parent, [FORK]: () => family.fork },
});

test('the fork sits under its parent in the list; follow it from its graft point and back', async ({
  app,
  page,
}) => {
  // Grouped list: the fork (newer) is indented directly under its parent.
  const items = page.getByTestId('session.item');
  await expect(items).toHaveCount(2);
  await expect(items.nth(0)).toHaveAttribute('title', new RegExp(`${PARENT}$`));
  await expect(items.nth(1)).toHaveAttribute('title', new RegExp(`${FORK}$`));
  await expect(items.nth(1).locator('.s-lineage').first()).toHaveText('↳ ');

  await app.openSession(PARENT);
  const familyBar = page.getByTestId('session.family');
  // A fork's first message is its parent's (copied): it is named by the first one it wrote itself.
  await expect(familyBar.getByTestId('family.child')).toContainText('Try it in the fork (fork)');
  await expect(familyBar.getByTestId('family.child').getByRole('link')).toHaveAttribute(
    'title',
    new RegExp(FORK),
  );
  // ↳ selects, here, the entry the fork was grafted at.
  await familyBar.getByTestId('family.graft').click();
  await expect(app.row(family.graftId)).toHaveAttribute('aria-selected', 'true');

  // Into the fork: its own file opens at the graft point.
  await familyBar.getByTestId('family.child').getByRole('link').click();
  await expect.poll(() => app.sessionIdFromUrl()).not.toBe('');
  await expect(page.getByTestId('session.family')).toContainText('fork of');
  await expect(app.row(family.graftId)).toHaveAttribute('aria-selected', 'true');

  // And back to the parent, at the same entry.
  await page.getByTestId('family.parent').click();
  await expect(page.getByTestId('session.family').getByTestId('family.child')).toBeVisible();
  await expect(app.row(family.graftId)).toHaveAttribute('aria-selected', 'true');
});

test('the graph grafts the fork at its node: its chip opens the fork there, "from" leads back', async ({
  app,
  page,
}) => {
  await app.openSession(PARENT);
  await page.getByTestId('graph.fit').click();
  // The fork's chip sits beside the node it was grafted at, joined by a dashed edge.
  const chip = app.graph.locator('[data-testid="graph.graft"][data-role="child"]');
  await expect(chip).toHaveCount(1);
  await expect(chip).toHaveAttribute('data-kind', 'fork');
  await expect(chip.getByTestId('graph.graft-open')).toContainText('Try it in the fork');
  await expect(chip.getByTestId('graph.graft-open')).toHaveAttribute('title', /^Try it in the fork \(fork/);
  await expect(chip.getByTestId('graph.graft-open')).toHaveAttribute('title', /\(fork, \d+ entries/);
  const node = await app.graphNode(family.graftId).boundingBox();
  const chipBox = await chip.boundingBox();
  expect(node && chipBox).toBeTruthy();
  expect(chipBox!.x).toBeGreaterThan(node!.x + node!.width - 1);
  expect(Math.abs(chipBox!.y - node!.y)).toBeLessThan(node!.height);

  // The outline offers the same file on the graft row.
  await expect(app.row(family.graftId).getByTestId('tree.graft')).toContainText('Try it in the fork');

  // And the graft node's right-click menu names it too.
  await app.graphNode(family.graftId).click({ button: 'right' });
  await expect(page.getByTestId('entry-menu.open-graft')).toHaveText(
    /^Open Try it in the fork \(forked here\)$/,
  );
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('entry-menu')).toHaveCount(0);

  // Into the fork at its graft point; the family stays in the top bar.
  const parentId = await app.sessionIdFromUrl();
  await chip.getByTestId('graph.graft-open').click();
  await expect.poll(() => app.sessionIdFromUrl()).not.toBe(parentId);
  await expect(page.getByTestId('session.family')).toContainText('fork of');
  await expect(app.row(family.graftId)).toHaveAttribute('aria-selected', 'true');
  await expect(app.graphNode(family.graftId)).toHaveAttribute('data-selected', 'true');

  // The fork shows where it came from, at the same entry: back to the parent.
  const origin = app.graph.locator('[data-testid="graph.graft"][data-role="origin"]');
  await expect(origin).toContainText('from');
  await origin.getByTestId('graph.graft-open').click();
  await expect.poll(() => app.sessionIdFromUrl()).toBe(parentId);
  await expect(app.row(family.graftId)).toHaveAttribute('aria-selected', 'true');
  await expect(app.graph.locator('[data-testid="graph.graft"][data-role="child"]')).toHaveCount(1);
});
