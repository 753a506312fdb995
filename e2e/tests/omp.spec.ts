// An oh-my-pi 18.3.4 session as a new user opens it: the title its title line holds, an image kept as
// a blob in the agent folder, a tool output saved as an artifact, and a subagent transcript listed
// under its parent. Everything is written here by the project's oh-my-pi-shaped builder.
import { test as base, expect } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CanopyApp } from '../pages/CanopyApp';
import type { RunningCanopy } from '../support/server';
import { useApp, useOwnCanopy } from '../support/test';
import { OmpSessionBuilder } from '../../packages/session-core/test/omp-builder';

// A 2×2 red PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);
const HASH = 'f'.repeat(64);

interface OmpFiles {
  imageEntry: string;
  resultEntry: string;
}

function writeOmpSessions(sessionsDir: string): OmpFiles {
  // The server's root is <base>/sessions, so <base>/blobs is the agent folder's blobs.
  const blobs = join(dirname(sessionsDir), 'blobs');
  mkdirSync(blobs, { recursive: true });
  writeFileSync(join(blobs, HASH), PNG);

  const main = new OmpSessionBuilder({ title: 'Chart the build times', headerTitle: 'stale header title' });
  main.modelChange('anthropic/claude-sonnet-4-5');
  main.user('Plot the build times and run the full build');
  const imageEntry = main.assistant([
    { type: 'text', text: 'Here is the chart of build times.' },
    { type: 'image', data: `blob:sha256:${HASH}`, mimeType: 'image/png' },
  ]);
  main.assistant([main.toolCall('call-1', 'bash', { command: 'make all' })], { stopReason: 'toolUse' });
  const resultEntry = main.toolResult('call-1', 'bash', 'Output truncated. Full output: artifact://0');
  main.rename('Build times, charted');
  writeFileSync(join(sessionsDir, 'main.jsonl'), main.text());

  const folder = join(sessionsDir, 'main');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, '0.bash.log'), 'compiling 1/3\ncompiling 2/3\ncompiling 3/3\nBUILD OK\n');
  const scout = new OmpSessionBuilder({
    title: 'Scout: find slow targets',
    id: '0199a000-0000-7000-8000-000000000002',
  });
  scout.add('session_init', { systemPrompt: 'You are a scout.', task: 'Find slow targets', tools: ['read'] });
  scout.user('Find slow targets');
  scout.assistant('The slowest target is docs.');
  writeFileSync(join(folder, 'Scout.jsonl'), scout.text());
  return { imageEntry, resultEntry };
}

const test = base.extend<{ canopy: RunningCanopy; files: OmpFiles; app: CanopyApp }>({
  files: [{ imageEntry: '', resultEntry: '' }, { option: true }],
  canopy: ({ files }, use) =>
    useOwnCanopy({ prepare: (dir) => Object.assign(files, writeOmpSessions(dir)) }, use),
  app: ({ page, canopy }, use) => useApp(page, canopy, use),
});

test('an oh-my-pi session shows its title, a blob image, an artifact and its subagent', async ({
  app,
  files,
}) => {
  const { page } = app;
  // The name is the rewritten title line, not the header's stale title.
  const main = app.sessionItem('main.jsonl');
  await expect(main).toContainText('Build times, charted');
  await expect(page.getByText('stale header title')).toHaveCount(0);

  // The subagent is listed right under its parent, marked as such.
  const scout = app.sessionItem('main/Scout.jsonl');
  await expect(scout).toContainText('Scout: find slow targets');
  await expect(scout.getByTestId('session.kind')).toHaveText('subagent');
  const items = app.sessionList.getByTestId('session.item');
  const titles = await items.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('title') ?? ''));
  const mainIndex = titles.findIndex((title) => title.endsWith('/main.jsonl'));
  expect(titles[mainIndex + 1]).toMatch(/\/main\/Scout\.jsonl$/);

  await app.openSession('main.jsonl');
  await expect(app.sessionTitle).toContainText('Build times, charted');

  // The image comes from the blob store, served by the server.
  await app.row(files.imageEntry).click();
  const image = app.detail.getByTestId('detail.image');
  await expect(image).toBeVisible();
  await expect.poll(() => image.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(2);
  // Fetched with the token's header and shown from an object URL: the <img> names no API URL.
  expect(await image.getAttribute('src')).toMatch(/^blob:/);

  // The tool result links its artifact; opening it shows the saved output.
  await app.row(files.resultEntry).click();
  const artifact = app.detail.getByTestId('detail.artifact');
  await expect(artifact).toContainText('artifact://0');
  await artifact.locator('summary').click();
  await expect(artifact).toContainText('BUILD OK');
  await expect(artifact).toContainText('0.bash.log');
  // "open" shows the saved output in a tab of its own (the text fetched with the token's header).
  const [opened] = await Promise.all([
    page.context().waitForEvent('page'),
    artifact.getByTestId('detail.artifact-link').click(),
  ]);
  await expect(opened.locator('body')).toContainText('BUILD OK');
  await opened.close();

  // The subagent opens like any other session.
  await app.openSession('main/Scout.jsonl');
  await expect(app.sessionTitle).toContainText('Scout: find slow targets');
  await expect(app.rows.filter({ hasText: 'The slowest target is docs.' })).toHaveCount(1);
});

test('an archived session opens read-only and says why', async ({ app }) => {
  const { page } = app;
  // Written after start: the list picks it up on its rescan.
  const archived = new OmpSessionBuilder({
    title: 'Old archived work',
    id: '0199a000-0000-7000-8000-000000000003',
  });
  const user = archived.user('An old question');
  const { gzipSync } = await import('node:zlib');
  writeFileSync(join(app.canopy.sessionsDir, 'old.jsonl.gz'), gzipSync(archived.text()));
  await page.getByTestId('session.refresh').click();
  await expect(app.sessionItem('old.jsonl.gz')).toContainText('Old archived work', { timeout: 15_000 });
  await expect(app.sessionItem('old.jsonl.gz').getByTestId('session.read-only')).toBeVisible();
  await app.openSession('old.jsonl.gz');
  await app.row(user).click();
  await expect(app.detail.getByTestId('detail.read-only')).toContainText('archived');
  await expect(app.detail.getByTestId('detail.label-edit')).toBeDisabled();
  await expect(app.composer).toBeDisabled();
});
