// An abort is the truth (docs/summaries.md#abort): once "aborted" has been answered nothing is
// written, and once the write has started an abort is answered "too late", on every route that
// writes a summary (navigation with a summary, summarize-selection).
import fs from 'node:fs';
import path from 'node:path';
import type { Summarizer } from '@canopy/summarizer';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../src/live/open-session';
import { AUTH, sessionIdOf, waitFor } from './helpers';
import { makeSession, setupOwn, type OwnEnv } from './own-sessions';

/**
 * A clock whose sleeps wait for the test: a write waiting for oh-my-pi's lock sleeps here until
 * `release()`; `sleeping` tells the test that the write is waiting.
 */
function gatedClock(): Clock & { sleeping: () => boolean; release: () => void } {
  let now = Date.now();
  let waiters: Array<() => void> = [];
  return {
    now: () => now,
    sleep: (ms: number) =>
      new Promise<void>((resolve) => {
        waiters.push(() => {
          now += ms;
          resolve();
        });
      }),
    sleeping: () => waiters.length > 0,
    release: () => {
      const woken = waiters;
      waiters = [];
      for (const wake of woken) wake();
    },
  };
}

/** Resolves at once with a fixed summary of the entries it was given. */
const quickSummarizer: Summarizer = {
  id: 'quick',
  label: 'Quick',
  summarize: async (entries) => ({
    summary: `quick summary of ${entries.length}`,
    details: { readFiles: [], modifiedFiles: [] },
  }),
};

describe('an abort is the truth', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  const post = (url: string, payload: Record<string, unknown> = {}) =>
    env.app.inject({ method: 'POST', url, headers: AUTH, payload });

  async function bootLocked() {
    const session = makeSession(3);
    const clock = gatedClock();
    env = await setupOwn(
      { 'a.jsonl': session.text },
      { clock, quietWindowMs: 0, midWriteWaitMs: 60_000, summarizers: [quickSummarizer] },
    );
    const id = await sessionIdOf(env.app, 'a.jsonl');
    const lock = path.join(env.root, '.a.jsonl.lock');
    // oh-my-pi holds the session: a live process (this one) since now.
    fs.writeFileSync(lock, `${process.pid}:${clock.now()}`);
    return { session, clock, id, lock, before: fs.readFileSync(env.file('a.jsonl'), 'utf8') };
  }

  /** Each route that writes a summary: its request, and what it answers when aborted before writing. */
  const routes = [
    {
      name: 'navigation with a previewed summary',
      request: (id: string, ids: string[]) =>
        post(`/api/sessions/${id}/navigate`, {
          targetId: ids[1],
          summary: { text: 'the branch I leave', details: { readFiles: [], modifiedFiles: [] } },
        }),
      answer: { cancelled: true, aborted: true },
    },
    {
      name: 'navigation with a generated summary',
      request: (id: string, ids: string[]) =>
        post(`/api/sessions/${id}/navigate`, { targetId: ids[1], summarize: true }),
      answer: { cancelled: true, aborted: true },
    },
    {
      name: 'summarize-selection (before: "no summary running", and the write went ahead)',
      request: (id: string, ids: string[]) =>
        post(`/api/sessions/${id}/summary/selection`, { entryIds: ids.slice(0, 2) }),
      answer: { aborted: true },
    },
  ];

  for (const route of routes) {
    it(`${route.name}, aborted while its write waits for oh-my-pi's lock: "aborted", and nothing is written after the lock is released`, async () => {
      const { session, clock, id, lock, before } = await bootLocked();
      const pending = route.request(id, session.ids);
      await waitFor(() => clock.sleeping());

      const abort = await post(`/api/sessions/${id}/navigate/abort`);
      expect(abort.statusCode).toBe(200);
      expect(abort.json()).toEqual({ aborted: true });

      fs.rmSync(lock);
      clock.release();
      const response = await pending;
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ ...route.answer, newLeafId: session.ids.at(-1) });
      expect(fs.readFileSync(env.file('a.jsonl'), 'utf8')).toBe(before);
    });
  }

  it('an abort after the write started is answered "too late", and the summary is in the file', async () => {
    const session = makeSession(3);
    let treeSeen: (() => void) | undefined;
    let finishTree: (() => void) | undefined;
    env = await setupOwn(
      { 'a.jsonl': session.text },
      {
        quietWindowMs: 0,
        extensions: [
          {
            name: 'slow-tree',
            // Holds the navigation after its write, before it answers.
            extension: (api) =>
              api.on(
                'session_tree',
                () =>
                  new Promise<void>((resolve) => {
                    finishTree = resolve;
                    treeSeen?.();
                  }),
              ),
          },
        ],
      },
    );
    const id = await sessionIdOf(env.app, 'a.jsonl');
    const seen = new Promise<void>((resolve) => (treeSeen = resolve));
    const pending = post(`/api/sessions/${id}/navigate`, {
      targetId: session.ids[1],
      summary: { text: 'written before the abort', details: { readFiles: [], modifiedFiles: [] } },
    });
    await seen;

    const abort = await post(`/api/sessions/${id}/navigate/abort`);
    expect(abort.statusCode).toBe(409);
    expect(abort.json()).toMatchObject({ error: { code: 'SUMMARY_TOO_LATE' } });
    expect((abort.json() as { error: { message: string } }).error.message).toMatch(/^Too late to abort/);

    finishTree?.();
    const response = await pending;
    expect(response.json()).toMatchObject({
      cancelled: false,
      summaryEntry: { summary: 'written before the abort' },
    });
    expect(fs.readFileSync(env.file('a.jsonl'), 'utf8')).toContain('written before the abort');
  });
});
