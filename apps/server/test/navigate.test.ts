import fs from 'node:fs';
import { SessionManager } from '@canopy/session-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BeforeTreeEvent } from '../src/extensions/types';
import type { Summarizer } from '../src/summarizer';
import { AUTH, SEED_IDS, sessionIdOf, setup, type TestEnv, waitFor } from './helpers';

const SEED = 'seed-example.jsonl';

function linesAfter(before: string, after: string): Array<Record<string, unknown>> {
  expect(after.startsWith(before)).toBe(true);
  const tail = after.slice(before.length).trimEnd();
  return tail === '' ? [] : tail.split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('navigateTree', () => {
  let env: TestEnv;
  afterEach(async () => env.close());

  async function navigate(body: Record<string, unknown>) {
    const id = await sessionIdOf(env.app, SEED);
    return env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/navigate`,
      headers: AUTH,
      payload: body,
    });
  }

  it('to a user message: the leaf moves to its parent, its text is returned, nothing is written', async () => {
    env = await setup([SEED]);
    const before = fs.readFileSync(env.file(SEED), 'utf8');
    const response = await navigate({ targetId: SEED_IDS.tryB });
    expect(response.json()).toEqual({
      alreadyAtTarget: false,
      cancelled: false,
      oldLeafId: SEED_IDS.milestoneLabel,
      newLeafId: SEED_IDS.plan,
      editorText: 'Try approach B',
    });
    expect(fs.readFileSync(env.file(SEED), 'utf8')).toBe(before);
  });

  it('a plain jump walks no path of the tree; one that asks for a summary walks the paths by their shapes', async () => {
    env = await setup([SEED]);
    const getBranch = vi.spyOn(SessionManager.prototype, 'getBranch');
    const getBranchShapes = vi.spyOn(SessionManager.prototype, 'getBranchShapes');
    try {
      const plain = await navigate({ targetId: SEED_IDS.bResult });
      expect(plain.json()).toMatchObject({ cancelled: false, newLeafId: SEED_IDS.bResult });
      expect(getBranchShapes).not.toHaveBeenCalled();
      const summarized = await navigate({ targetId: SEED_IDS.tryB, summary: { text: 'B was tried' } });
      expect(summarized.statusCode).toBe(200);
      expect(getBranchShapes).toHaveBeenCalled();
      // Only the abandoned entries are read back (getEntry), never both paths from the root.
      expect(getBranch).not.toHaveBeenCalled();
    } finally {
      getBranch.mockRestore();
      getBranchShapes.mockRestore();
    }
  });

  it('to a root user message: the leaf becomes null', async () => {
    env = await setup([SEED]);
    const response = await navigate({ targetId: SEED_IDS.startTask });
    expect(response.json()).toMatchObject({ newLeafId: null, editorText: 'Start task' });
  });

  it('to an assistant message: the leaf is the entry itself and there is no editor text', async () => {
    env = await setup([SEED]);
    const body = (await navigate({ targetId: SEED_IDS.bResult })).json() as Record<string, unknown>;
    expect(body.newLeafId).toBe(SEED_IDS.bResult);
    expect(body).not.toHaveProperty('editorText');
  });

  it('with a label and no summary: a label entry on the target, appended under the new leaf, becomes the leaf', async () => {
    env = await setup([SEED]);
    const before = fs.readFileSync(env.file(SEED), 'utf8');
    const body = (await navigate({ targetId: SEED_IDS.bResult, label: 'picked B' })).json() as {
      newLeafId: string;
    };
    const added = linesAfter(before, fs.readFileSync(env.file(SEED), 'utf8'));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({
      type: 'label',
      targetId: SEED_IDS.bResult,
      label: 'picked B',
      parentId: SEED_IDS.bResult,
    });
    expect(body.newLeafId).toBe(added[0]!.id);
  });

  it('an unknown target is ENTRY_NOT_FOUND, a bad body BAD_REQUEST, and neither writes', async () => {
    env = await setup([SEED]);
    const before = fs.readFileSync(env.file(SEED));
    const missing = await navigate({ targetId: 'nothere' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({
      error: { code: 'ENTRY_NOT_FOUND', message: 'Entry nothere not found.' },
    });
    const bad = await navigate({ targetId: SEED_IDS.bResult, summarize: 'yes' });
    expect(bad.statusCode).toBe(400);
    expect((bad.json() as { error: { code: string } }).error.code).toBe('BAD_REQUEST');
    const extra = await navigate({ targetId: SEED_IDS.bResult, bogus: 1 });
    expect(extra.statusCode).toBe(400);
    expect(fs.readFileSync(env.file(SEED)).equals(before)).toBe(true);
  });

  it('an extension cancel leaves the leaf and the file untouched', async () => {
    const seen: BeforeTreeEvent[] = [];
    env = await setup([SEED], {
      extensions: [
        {
          name: 'canceller',
          extension: (api) =>
            api.on('session_before_tree', (event) => {
              seen.push(event);
              return { cancel: true };
            }),
        },
      ],
    });
    const before = fs.readFileSync(env.file(SEED));
    const body = (await navigate({ targetId: SEED_IDS.bResult, summarize: true })).json();
    expect(body).toMatchObject({ cancelled: true, newLeafId: SEED_IDS.milestoneLabel });
    expect(seen[0]!.preparation).toMatchObject({
      targetId: SEED_IDS.bResult,
      oldLeafId: SEED_IDS.milestoneLabel,
      commonAncestorId: SEED_IDS.plan,
      userWantsSummary: true,
    });
    expect(seen[0]!.preparation.entriesToSummarize.map((entry) => entry.id)).toEqual([
      SEED_IDS.tryA,
      SEED_IDS.aResult,
      SEED_IDS.continueA,
      SEED_IDS.milestoneLabel,
    ]);
    expect(seen[0]!.signal).toBeInstanceOf(AbortSignal);
    expect(fs.readFileSync(env.file(SEED)).equals(before)).toBe(true);
  });

  it('an extension summary is written as a branch_summary under the new leaf, flagged fromHook, and session_tree reaches extensions', async () => {
    const trees: unknown[] = [];
    env = await setup([SEED], {
      extensions: [
        {
          name: 'summariser',
          extension: (api) => {
            api.on('session_before_tree', () => ({
              summary: { summary: 'Explored A', details: { readFiles: [], modifiedFiles: [] } },
            }));
            api.on('session_tree', (event) => {
              trees.push(event);
            });
          },
        },
      ],
    });
    const before = fs.readFileSync(env.file(SEED), 'utf8');
    const body = (await navigate({ targetId: SEED_IDS.tryB, summarize: true })).json() as {
      newLeafId: string;
      editorText: string;
      summaryEntry: Record<string, unknown>;
    };
    const added = linesAfter(before, fs.readFileSync(env.file(SEED), 'utf8'));
    expect(added).toHaveLength(1);
    // pi 1.6's fromId: the leaf that was left (docs/format.md#branch-summary-fromid).
    expect(added[0]).toMatchObject({
      type: 'branch_summary',
      parentId: SEED_IDS.plan,
      fromId: SEED_IDS.milestoneLabel,
      summary: 'Explored A',
      fromHook: true,
    });
    expect(body.newLeafId).toBe(added[0]!.id);
    expect(body.editorText).toBe('Try approach B');
    expect(body.summaryEntry.id).toBe(added[0]!.id);
    expect(trees).toEqual([
      expect.objectContaining({
        newLeafId: added[0]!.id,
        oldLeafId: SEED_IDS.milestoneLabel,
        fromExtension: true,
      }),
    ]);
  });

  it('an extension summary is ignored when the user did not ask for one', async () => {
    env = await setup([SEED], {
      extensions: [
        {
          name: 's',
          extension: (api) => api.on('session_before_tree', () => ({ summary: { summary: 'unused' } })),
        },
      ],
    });
    const before = fs.readFileSync(env.file(SEED), 'utf8');
    const body = (await navigate({ targetId: SEED_IDS.bResult })).json() as { newLeafId: string };
    expect(body.newLeafId).toBe(SEED_IDS.bResult);
    expect(fs.readFileSync(env.file(SEED), 'utf8')).toBe(before);
  });

  it('a throwing extension is contained and navigation goes on', async () => {
    env = await setup([SEED], {
      extensions: [
        {
          name: 'broken',
          extension: (api) =>
            api.on('session_before_tree', () => {
              throw new Error('boom');
            }),
        },
      ],
    });
    const body = (await navigate({ targetId: SEED_IDS.bResult })).json() as { newLeafId: string };
    expect(body.newLeafId).toBe(SEED_IDS.bResult);
  });

  it('summarize with nothing to summarise navigates without a summary entry', async () => {
    env = await setup([SEED]);
    // Move to the root assistant "Plan" first (an ancestor of everything), then forward to a descendant.
    await navigate({ targetId: SEED_IDS.plan });
    const before = fs.readFileSync(env.file(SEED), 'utf8');
    const body = (await navigate({ targetId: SEED_IDS.bResult, summarize: true })).json() as {
      newLeafId: string;
      summaryEntry?: unknown;
    };
    expect(body.newLeafId).toBe(SEED_IDS.bResult);
    expect(body.summaryEntry).toBeUndefined();
    expect(fs.readFileSync(env.file(SEED), 'utf8')).toBe(before);
  });

  it('the injected summariser writes its summary; an abort cancels with nothing written', async () => {
    let release: (() => void) | undefined;
    const summarizer: Summarizer = {
      id: 'held',
      label: 'Held until released',
      summarize: (entries, { signal, onProgress }) =>
        new Promise((resolve, reject) => {
          onProgress?.({ phase: 'generating', delta: `${entries.length} entries`, tokens: 3 });
          signal.addEventListener('abort', () => reject(new Error('aborted')));
          release = () =>
            resolve({
              summary: `summary of ${entries.length}`,
              details: { readFiles: [], modifiedFiles: [] },
            });
        }),
    };
    env = await setup([SEED], { summarizers: [summarizer] });
    const id = await sessionIdOf(env.app, SEED);
    const before = fs.readFileSync(env.file(SEED), 'utf8');

    const aborted = env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/navigate`,
      headers: AUTH,
      payload: { targetId: SEED_IDS.bResult, summarize: true },
    });
    await waitFor(() => release);
    const abort = await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/navigate/abort`,
      headers: AUTH,
    });
    expect(abort.json(), abort.body).toEqual({ aborted: true });
    expect((await aborted).json()).toMatchObject({
      cancelled: true,
      aborted: true,
      newLeafId: SEED_IDS.milestoneLabel,
    });
    expect(fs.readFileSync(env.file(SEED), 'utf8')).toBe(before);

    const noneRunning = await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/navigate/abort`,
      headers: AUTH,
    });
    expect((noneRunning.json() as { error: { code: string } }).error.code).toBe('NO_SUMMARY_RUNNING');

    release = undefined;
    const done = env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/navigate`,
      headers: AUTH,
      payload: { targetId: SEED_IDS.bResult, summarize: true },
    });
    await waitFor(() => release);
    (release as (() => void) | undefined)?.();
    const body = (await done).json() as { newLeafId: string };
    const added = linesAfter(before, fs.readFileSync(env.file(SEED), 'utf8'));
    expect(added).toHaveLength(1);
    // As the reference writes it: the flag is present and false for the built-in summariser.
    expect(added[0]).toMatchObject({
      type: 'branch_summary',
      parentId: SEED_IDS.bResult,
      summary: 'summary of 4',
      fromHook: false,
    });
    expect(body.newLeafId).toBe(added[0]!.id);
  });
});
