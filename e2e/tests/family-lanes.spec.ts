// A subagent run as a lane in the graph (docs/archive-and-family.md#in-the-page): an oh-my-pi parent
// whose assistant started the `AuthScan` agent with a `task` tool call, and the agent's transcript
// in the parent's folder (`<stamp>_<id>/AuthScan.jsonl`, opening with `session_init`), as oh-my-pi
// lays them out. The tool-call node carries the agent's chip; unfolding it draws the run as a
// lane, and a row of the lane opens the agent's file at that entry.
import { test as base, expect } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CanopyApp } from '../pages/CanopyApp';
import type { RunningCanopy } from '../support/server';
import { useApp, useOwnCanopy } from '../support/test';
import { OmpSessionBuilder } from '../../packages/session-core/test/omp-builder';

const STAMP = '2026-09-01T10-00-00-000Z';
const PARENT_ID = '0199a000-0000-7000-8000-0000000000a1';
const PARENT = `${STAMP}_${PARENT_ID}`;

interface LaneFiles {
  /** The parent's assistant entry holding the `task` tool call. */
  callEntry: string;
  /** The agent's entries, root to leaf. */
  agentEntries: string[];
}

function writeSubagentFamily(sessionsDir: string): LaneFiles {
  const parent = new OmpSessionBuilder({ title: 'Harden the login', id: PARENT_ID });
  parent.user('Check the login flow for auth bugs');
  const callEntry = parent.assistant(
    [
      { type: 'text', text: 'I will start a scout for this.' },
      parent.toolCall('call-auth', 'task', {
        agent: 'scout',
        tasks: [{ id: 'AuthScan', description: 'Scan the auth code', assignment: 'Find auth bugs' }],
      }),
    ],
    { stopReason: 'toolUse' },
  );
  parent.message({
    role: 'toolResult',
    toolCallId: 'call-auth',
    toolName: 'task',
    content: [{ type: 'text', text: 'AuthScan: found one missing check' }],
    details: {
      results: [{ id: 'AuthScan', agent: 'scout', exitCode: 0, output: 'found one missing check' }],
    },
    isError: false,
  });
  parent.assistant('The scout found one missing check; fixing it.');
  writeFileSync(join(sessionsDir, `${PARENT}.jsonl`), parent.text());

  const folder = join(sessionsDir, PARENT);
  mkdirSync(folder, { recursive: true });
  const agent = new OmpSessionBuilder({
    title: 'AuthScan',
    id: '0199a000-0000-7000-8000-0000000000a2',
    start: Date.UTC(2026, 8, 1, 10, 0, 5),
  });
  const agentEntries = [
    agent.add('session_init', { systemPrompt: 'You are a scout.', task: 'Find auth bugs', tools: ['read'] }),
    agent.user('Find auth bugs'),
    agent.assistant('Reading src/auth.ts'),
    agent.assistant('Found it: the token expiry is never checked.'),
  ];
  writeFileSync(join(folder, 'AuthScan.jsonl'), agent.text());
  return { callEntry, agentEntries };
}

const test = base.extend<{ canopy: RunningCanopy; files: LaneFiles; app: CanopyApp }>({
  files: [{ callEntry: '', agentEntries: [] }, { option: true }],
  canopy: ({ files }, use) =>
    useOwnCanopy({ prepare: (dir) => Object.assign(files, writeSubagentFamily(dir)) }, use),
  app: ({ page, canopy }, use) => useApp(page, canopy, use),
});

test('a subagent shows as a chip on its tool call; its lane unfolds, and a lane row opens the agent there', async ({
  app,
  files,
}) => {
  const { page } = app;
  await app.openSession(`${PARENT}.jsonl`);
  const parentId = await app.sessionIdFromUrl();
  await page.getByTestId('graph.fit').click();

  // The chip sits on the assistant entry whose `task` call started the agent.
  const chip = app.graph.locator('[data-testid="graph.graft"][data-kind="subagent"]');
  await expect(chip).toHaveCount(1);
  await expect(chip.getByTestId('graph.graft-open')).toContainText('AuthScan');
  const node = await app.graphNode(files.callEntry).boundingBox();
  const chipBox = await chip.boundingBox();
  expect(node && chipBox).toBeTruthy();
  expect(Math.abs(chipBox!.y - node!.y)).toBeLessThan(node!.height);
  expect(chipBox!.x).toBeGreaterThan(node!.x + node!.width - 1);

  // The outline's tool-call row offers the agent's file too.
  await expect(app.row(files.callEntry).getByTestId('tree.graft')).toContainText('AuthScan');

  // Unfold: the run is fetched and drawn as a lane of dots, one per entry of its path.
  const toggle = chip.getByTestId('graph.lane-toggle');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  const lane = app.graph.getByTestId('graph.lane');
  await expect(lane).toHaveAttribute('data-status', 'ready');
  const dots = lane.getByTestId('graph.lane-dot');
  await expect(dots).toHaveCount(files.agentEntries.length);
  const last = files.agentEntries[files.agentEntries.length - 1]!;
  await expect(lane.locator(`[data-entry-id="${last}"]`)).toHaveAttribute('title', /token expiry/);

  // Fold again: the lane is gone; unfold once more: it is back without asking the server again.
  await toggle.click();
  await expect(app.graph.getByTestId('graph.lane')).toHaveCount(0);
  await toggle.click();
  await expect(dots).toHaveCount(files.agentEntries.length);

  // A lane row opens the agent's own file with that entry selected; the family stays in the top bar.
  await lane.locator(`[data-entry-id="${last}"]`).click();
  await expect.poll(() => app.sessionIdFromUrl()).not.toBe(parentId);
  await expect(app.row(last)).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('session.family')).toContainText('subagent of');
  await expect(app.graph.locator('[data-testid="graph.graft"][data-role="origin"]')).toContainText('from');
});
