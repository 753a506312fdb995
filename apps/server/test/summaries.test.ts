// Summaries end to end through the routes: navigate with a summary (generated, previewed and
// edited, or an extension's), the preview, summarize-selection, aborts, bad input; then the file
// opens in the reference package with each summary where pi puts it.
import fs from 'node:fs';
import { assistantMessage } from '@canopy/fixtures';
import { SessionManager } from '@canopy/session-core';
import { createOfflineSummarizer } from '@canopy/summarizer';
import * as reference from '@mariozechner/pi-coding-agent';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppOptions } from '../src/app';
import type { Summarizer, SummarizeOptions } from '../src/summarizer';
import { AUTH, getSnapshot, sessionIdOf, setup, waitFor, type TestEnv } from './helpers';

type Json = Record<string, unknown>;
const FILE = 'branches.jsonl';

/** Says which entries it was given, in order, and what it was asked, so tests can assert both. */
function echoSummarizer(
  id = 'echo',
  calls: Array<{ ids: string[]; options: SummarizeOptions }> = [],
): Summarizer {
  return {
    id,
    label: `Echo ${id}`,
    summarize: async (entries, options) => {
      calls.push({ ids: entries.map((entry) => entry.id), options });
      options.onProgress?.({ phase: 'generating', delta: 'partial', tokens: 2 });
      return {
        summary: `${id}: ${entries.map((entry) => entry.id).join(',')}`,
        details: { readFiles: ['src/read.ts'], modifiedFiles: ['src/edit.ts'] },
      };
    },
  };
}

/** Streams a little text, then holds until aborted: abort tests wait on `started`, not on time. */
function heldSummarizer(): Summarizer & { started: () => boolean } {
  let started = false;
  return {
    id: 'held',
    label: 'Held until aborted',
    started: () => started,
    summarize: (_entries, { signal, onProgress }) =>
      new Promise((_resolve, reject) => {
        onProgress?.({ phase: 'generating', delta: 'The user', tokens: 2 });
        started = true;
        signal.addEventListener('abort', () => {
          const error = new Error('aborted');
          error.name = 'AbortError';
          reject(error);
        });
      }),
  };
}

const reply = (text: string) => assistantMessage(text, 0);

/**
 * start → ok, then branch A (try A → did A → more A) and branch B (try B → did B, the leaf), B
 * written after A.
 */
function branchedSession() {
  const sm = SessionManager.inMemory('/home/dev/project');
  const user = (text: string) => sm.appendMessage({ role: 'user', content: text, timestamp: 0 });
  const start = user('start');
  const ok = sm.appendMessage(reply('ok'));
  const tryA = user('try A');
  const didA = sm.appendMessage(reply('did A'));
  const moreA = sm.appendMessage(reply('more A'));
  sm.branch(ok);
  const tryB = user('try B');
  const didB = sm.appendMessage(reply('did B'));
  return { jsonl: sm.toJsonl(), ids: { start, ok, tryA, didA, moreA, tryB, didB } };
}

/** `count` user messages one under the other: the file, and the ids in order. */
function linearSession(count: number) {
  const sm = SessionManager.inMemory('/home/dev/project');
  const all: string[] = [];
  for (let i = 0; i < count; i++)
    all.push(sm.appendMessage({ role: 'user', content: `m${i}`, timestamp: 0 }));
  return { jsonl: sm.toJsonl(), all };
}

describe('summaries', () => {
  let env: TestEnv;
  afterEach(async () => env.close());

  async function boot(options: Partial<AppOptions>, jsonl = branchedSession().jsonl) {
    env = await setup([], options);
    fs.writeFileSync(env.file(FILE), jsonl);
    await env.restart();
    return sessionIdOf(env.app, FILE);
  }

  const post = (url: string, payload: Json) =>
    env.app.inject({ method: 'POST', url, headers: AUTH, payload });
  const read = () => fs.readFileSync(env.file(FILE), 'utf8');
  const lines = () =>
    read()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Json);

  async function socket(sessionId: string) {
    const events: Json[] = [];
    const ws = await env.app.injectWS(
      '/ws',
      { headers: AUTH },
      { onInit: (s) => s.on('message', (data) => events.push(JSON.parse(String(data)) as Json)) },
    );
    const hello = await waitFor(() => events.find((event) => event.type === 'hello'));
    ws.send(JSON.stringify({ type: 'subscribe', sessionId }));
    await waitFor(() => events.find((event) => event.type === 'subscribed'));
    return { ws, events, clientId: String(hello.clientId) };
  }

  it('navigate with summarize streams progress over the WebSocket and writes the summary at the target; the reference reads it there', async () => {
    const { jsonl, ids } = branchedSession();
    const calls: Array<{ ids: string[]; options: SummarizeOptions }> = [];
    const id = await boot({ summarizers: [echoSummarizer('echo', calls)] }, jsonl);
    const { ws, events } = await socket(id);

    const response = await post(`/api/sessions/${id}/navigate`, {
      targetId: ids.moreA,
      summarize: true,
      customInstructions: 'focus on B',
    });
    const body = response.json() as Json & { summaryEntry: Json };
    expect(response.statusCode, response.body).toBe(200);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.ids).toEqual([ids.tryB, ids.didB]);
    expect(calls[0]!.options.customInstructions).toBe('focus on B');
    // pi 1.6's fromId: the leaf that was left (docs/format.md#branch-summary-fromid).
    expect(body.summaryEntry).toMatchObject({
      type: 'branch_summary',
      parentId: ids.moreA,
      fromId: ids.didB,
      summary: `echo: ${ids.tryB},${ids.didB}`,
      details: { readFiles: ['src/read.ts'], modifiedFiles: ['src/edit.ts'] },
      fromHook: false,
    });
    const progress = events.filter((event) => event.type === 'summary_progress');
    expect(progress.map((event) => event.phase)).toEqual(['started', 'progress', 'done']);
    expect(progress[1]).toMatchObject({
      sessionId: id,
      targetId: ids.moreA,
      kind: 'navigate',
      step: 'generating',
      delta: 'partial',
      tokens: 2,
    });
    ws.terminate();

    const opened = reference.SessionManager.open(env.file(FILE));
    expect(opened.getLeafId()).toBe(body.summaryEntry.id);
    const context = opened.buildSessionContext().messages as unknown as Json[];
    expect(context.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'assistant',
      'branchSummary',
    ]);
    expect(context[5]).toMatchObject({ summary: `echo: ${ids.tryB},${ids.didB}`, fromId: ids.didB });
  });

  it('the chosen summariser runs; an unknown one is UNKNOWN_SUMMARIZER and nothing is written', async () => {
    const { jsonl, ids } = branchedSession();
    const id = await boot({ summarizers: [echoSummarizer('first'), echoSummarizer('second')] }, jsonl);
    const before = read();
    const unknown = await post(`/api/sessions/${id}/navigate`, {
      targetId: ids.moreA,
      summarize: true,
      summarizerId: 'nope',
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({
      error: {
        code: 'UNKNOWN_SUMMARIZER',
        message: 'No summariser "nope" is configured (offered: first, second).',
      },
    });
    expect(read()).toBe(before);

    const chosen = (
      await post(`/api/sessions/${id}/navigate`, {
        targetId: ids.moreA,
        summarize: true,
        summarizerId: 'second',
      })
    ).json() as { summaryEntry: Json };
    expect(chosen.summaryEntry.summary).toBe(`second: ${ids.tryB},${ids.didB}`);
  });

  it('the settings choose the summariser used when a request names none', async () => {
    const { jsonl, ids } = branchedSession();
    const id = await boot({ summarizers: [echoSummarizer('first'), echoSummarizer('second')] }, jsonl);
    const put = await env.app.inject({
      method: 'PUT',
      url: '/api/settings',
      headers: AUTH,
      payload: { branchSummary: { enabled: true, summarizerId: 'second' } },
    });
    expect(put.json()).toMatchObject({ branchSummary: { enabled: true, summarizerId: 'second' } });
    const body = (
      await post(`/api/sessions/${id}/navigate`, { targetId: ids.moreA, summarize: true })
    ).json() as {
      summaryEntry: Json;
    };
    expect(body.summaryEntry.summary).toBe(`second: ${ids.tryB},${ids.didB}`);
    const cleared = await env.app.inject({
      method: 'PUT',
      url: '/api/settings',
      headers: AUTH,
      payload: { branchSummary: { summarizerId: null } },
    });
    expect(cleared.json()).toEqual(expect.objectContaining({ branchSummary: { enabled: true } }));
  });

  it('abort_summary over the WebSocket cancels the navigation: the leaf and the file stay as they were', async () => {
    const { jsonl, ids } = branchedSession();
    const held = heldSummarizer();
    const id = await boot({ summarizers: [held] }, jsonl);
    const { ws, events } = await socket(id);
    const before = read();

    const pending = post(`/api/sessions/${id}/navigate`, { targetId: ids.moreA, summarize: true });
    await waitFor(() => held.started());
    await waitFor(() =>
      events.find((event) => event.type === 'summary_progress' && event.delta === 'The user'),
    );
    ws.send(JSON.stringify({ type: 'abort_summary', sessionId: id }));
    expect((await pending).json()).toMatchObject({ cancelled: true, aborted: true, newLeafId: ids.didB });
    await waitFor(() =>
      events.find((event) => event.type === 'summary_progress' && event.phase === 'aborted'),
    );
    expect(read()).toBe(before);
    ws.terminate();
    const snapshot = await getSnapshot(env.app, id);
    expect(snapshot.leafId).toBe(ids.didB);
  });

  it('the requesting WebSocket closing aborts its summary and nothing is written', async () => {
    const { jsonl, ids } = branchedSession();
    const held = heldSummarizer();
    const id = await boot({ summarizers: [held] }, jsonl);
    const { ws, clientId } = await socket(id);
    const before = read();
    const pending = post(`/api/sessions/${id}/summary/preview`, {
      source: { kind: 'navigate', targetId: ids.moreA },
      clientId,
    });
    await waitFor(() => held.started());
    ws.terminate();
    expect((await pending).json()).toMatchObject({ aborted: true, summary: '' });
    expect(read()).toBe(before);
  });

  it('an extension summary wins over a previewed one and is flagged fromHook', async () => {
    const { jsonl, ids } = branchedSession();
    const id = await boot(
      {
        summarizers: [echoSummarizer()],
        extensions: [
          {
            name: 'summariser',
            extension: (api) =>
              api.on('session_before_tree', () => ({ summary: { summary: 'from the extension' } })),
          },
        ],
      },
      jsonl,
    );
    const body = (
      await post(`/api/sessions/${id}/navigate`, {
        targetId: ids.moreA,
        summary: { text: 'edited by the user' },
      })
    ).json() as { summaryEntry: Json };
    expect(body.summaryEntry).toMatchObject({
      summary: 'from the extension',
      fromHook: true,
      parentId: ids.moreA,
    });
  });

  it('the preview writes nothing; the edited text is then written as given, with the preview details', async () => {
    const { jsonl, ids } = branchedSession();
    const id = await boot({ summarizers: [echoSummarizer()] }, jsonl);
    const before = read();
    const preview = (
      await post(`/api/sessions/${id}/summary/preview`, { source: { kind: 'navigate', targetId: ids.tryA } })
    ).json() as Json & { details: Json };
    expect(preview).toEqual({
      aborted: false,
      nothingToSummarize: false,
      summary: `echo: ${ids.tryB},${ids.didB}`,
      details: { readFiles: ['src/read.ts'], modifiedFiles: ['src/edit.ts'] },
      summarizerId: 'echo',
      entryCount: 2,
      selectedCount: 2,
      tokenEstimate: expect.any(Number),
    });
    expect(read()).toBe(before);

    const applied = (
      await post(`/api/sessions/${id}/navigate`, {
        targetId: ids.tryA,
        summary: { text: 'Tried B; it worked.', details: preview.details },
      })
    ).json() as Json & { summaryEntry: Json };
    // A user message target: the summary is its sibling, and its text prefills the composer.
    expect(applied).toMatchObject({ editorText: 'try A', newLeafId: applied.summaryEntry.id });
    expect(applied.summaryEntry).toMatchObject({
      parentId: ids.ok,
      fromId: ids.didB,
      summary: 'Tried B; it worked.',
      details: preview.details,
    });
  });

  it('a preview with nothing to summarise says so without running the summariser', async () => {
    const { jsonl, ids } = branchedSession();
    const calls: Array<{ ids: string[]; options: SummarizeOptions }> = [];
    const id = await boot({ summarizers: [echoSummarizer('echo', calls)] }, jsonl);
    // Going back up the active path abandons nothing.
    const preview = (
      await post(`/api/sessions/${id}/summary/preview`, { source: { kind: 'navigate', targetId: ids.didB } })
    ).json();
    expect(preview).toMatchObject({ nothingToSummarize: true, entryCount: 0, summary: '' });
    expect(calls).toEqual([]);
  });

  it('a selection narrows the abandoned path to the selected entries, which details list', async () => {
    const { jsonl, ids } = branchedSession();
    const id = await boot({ summarizers: [echoSummarizer()] }, jsonl);
    const body = (
      await post(`/api/sessions/${id}/navigate`, {
        targetId: ids.moreA,
        summarize: true,
        onlyIds: [ids.didB, ids.moreA, ids.start],
      })
    ).json() as { summaryEntry: Json };
    expect(body.summaryEntry).toMatchObject({
      summary: `echo: ${ids.didB}`,
      details: { selectedEntryIds: [ids.didB] },
    });
  });

  it('summarize-selection reads branch by branch, each oldest first, and appends one summary under the leaf with fromId the newest entry', async () => {
    const { jsonl, ids } = branchedSession();
    const calls: Array<{ ids: string[]; options: SummarizeOptions }> = [];
    const id = await boot({ summarizers: [echoSummarizer('echo', calls)] }, jsonl);
    const { ws, events } = await socket(id);
    const selection = [ids.didB, ids.moreA, ids.tryB, ids.tryA, ids.ok];

    const preview = (
      await post(`/api/sessions/${id}/summary/preview`, {
        source: { kind: 'selection', entryIds: selection },
        customInstructions: 'only the facts',
        replaceInstructions: true,
      })
    ).json() as Json & { details: Json };
    expect(calls[0]!.ids).toEqual([ids.ok, ids.tryA, ids.moreA, ids.tryB, ids.didB]);
    expect(calls[0]!.options).toMatchObject({
      customInstructions: 'only the facts',
      replaceInstructions: true,
    });
    expect(preview.details.selectedEntryIds).toEqual([ids.ok, ids.tryA, ids.moreA, ids.tryB, ids.didB]);
    const progress = events.find((event) => event.type === 'summary_progress' && event.phase === 'progress');
    expect(progress).toMatchObject({ kind: 'selection', targetId: ids.didB });

    const before = lines().length;
    const result = (
      await post(`/api/sessions/${id}/summary/selection`, {
        entryIds: selection,
        summary: { text: 'What A and B taught us.', details: preview.details },
      })
    ).json() as Json & { summaryEntry: Json };
    const written = lines().slice(before);
    expect(written).toHaveLength(1);
    expect(written[0]).toEqual({
      type: 'branch_summary',
      id: result.summaryEntry.id,
      parentId: ids.didB,
      timestamp: expect.any(String),
      fromId: ids.didB,
      summary: 'What A and B taught us.',
      details: {
        readFiles: ['src/read.ts'],
        modifiedFiles: ['src/edit.ts'],
        selectedEntryIds: [ids.ok, ids.tryA, ids.moreA, ids.tryB, ids.didB],
      },
      fromHook: false,
    });
    expect(result).toMatchObject({ aborted: false, oldLeafId: ids.didB, newLeafId: result.summaryEntry.id });
    ws.terminate();

    const opened = reference.SessionManager.open(env.file(FILE));
    expect(opened.getLeafId()).toBe(result.summaryEntry.id);
    const context = opened.buildSessionContext().messages as unknown as Json[];
    expect(context.at(-1)).toMatchObject({ role: 'branchSummary', summary: 'What A and B taught us.' });
  });

  it('summarize-selection without a text generates one; the newest selected entry is fromId even on another branch', async () => {
    const { jsonl, ids } = branchedSession();
    const id = await boot({ summarizers: [echoSummarizer()] }, jsonl);
    const result = (
      await post(`/api/sessions/${id}/summary/selection`, { entryIds: [ids.moreA, ids.didA] })
    ).json() as { summaryEntry: Json };
    expect(result.summaryEntry).toMatchObject({
      parentId: ids.didB,
      fromId: ids.moreA,
      summary: `echo: ${ids.didA},${ids.moreA}`,
    });
  });

  it('a bad selection is BAD_SELECTION with the unknown ids named, an empty one too, and neither writes', async () => {
    const { jsonl, ids } = branchedSession();
    const id = await boot({ summarizers: [echoSummarizer()] }, jsonl);
    const before = read();
    const unknown = await post(`/api/sessions/${id}/summary/selection`, {
      entryIds: [ids.tryA, 'gone1', 'gone2'],
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({
      error: {
        code: 'BAD_SELECTION',
        message: 'The selection names entries this session does not have: gone1, gone2.',
      },
    });
    const empty = await post(`/api/sessions/${id}/summary/preview`, {
      source: { kind: 'selection', entryIds: [] },
    });
    expect(empty.json()).toEqual({
      error: { code: 'BAD_SELECTION', message: 'The selection is empty: select entries to summarise.' },
    });
    const malformed = await post(`/api/sessions/${id}/summary/selection`, { entryIds: 'all' });
    expect((malformed.json() as { error: { code: string } }).error.code).toBe('BAD_REQUEST');
    expect(read()).toBe(before);
  });

  it('a selection of more than 10,000 entries is summarised from its newest 10,000, and the preview says so', async () => {
    const { jsonl, all } = linearSession(10_003);
    const calls: Array<{ ids: string[]; options: SummarizeOptions }> = [];
    const id = await boot({ summarizers: [echoSummarizer('echo', calls)] }, jsonl);
    const preview = (
      await post(`/api/sessions/${id}/summary/preview`, { source: { kind: 'selection', entryIds: all } })
    ).json() as Json;
    expect(calls[0]!.ids).toEqual(all.slice(3));
    expect(preview).toMatchObject({
      entryCount: 10_000,
      selectedCount: 10_003,
      notice:
        'The selection has 10,003 entries; the summary covers the newest 10,000 (the oldest 3 are left out).',
    });
  });

  it('a summary of a jump back over 12,002 entries reads back only the newest 10,000; a previewed text reads none', async () => {
    const { jsonl, all } = linearSession(12_003);
    const calls: Array<{ ids: string[]; options: SummarizeOptions }> = [];
    const id = await boot({ summarizers: [echoSummarizer('echo', calls)] }, jsonl);
    const readBack = vi.spyOn(SessionManager.prototype, 'getEntry');
    try {
      // Back to the first message: the 12,002 entries after it are abandoned.
      const preview = (
        await post(`/api/sessions/${id}/summary/preview`, { source: { kind: 'navigate', targetId: all[0] } })
      ).json() as Json;
      expect(preview).toMatchObject({ entryCount: 10_000, selectedCount: 12_002 });
      expect(calls[0]!.ids).toEqual(all.slice(2_003));
      // Before, the whole abandoned path was read back first (12,002 reads): at 1 GB, the file.
      expect(readBack.mock.calls.length).toBeLessThan(10_010);

      readBack.mockClear();
      const navigated = await post(`/api/sessions/${id}/navigate`, {
        targetId: all[0],
        summary: { text: 'the previewed text' },
      });
      expect(navigated.json()).toMatchObject({
        cancelled: false,
        summaryEntry: { summary: 'the previewed text' },
      });
      expect(readBack.mock.calls.length).toBeLessThan(10);
      expect(calls).toHaveLength(1);
    } finally {
      readBack.mockRestore();
    }
  });

  it('with an extension watching, the abandoned path is read back once: the summariser takes the newest of what the extension was given', async () => {
    const { jsonl, all } = linearSession(12_003);
    const calls: Array<{ ids: string[]; options: SummarizeOptions }> = [];
    const given: number[] = [];
    const id = await boot(
      {
        summarizers: [echoSummarizer('echo', calls)],
        extensions: [
          {
            name: 'watcher',
            extension: (api) =>
              api.on('session_before_tree', (event) => {
                given.push(event.preparation.entriesToSummarize.length);
                return undefined;
              }),
          },
        ],
      },
      jsonl,
    );
    const readBack = vi.spyOn(SessionManager.prototype, 'getEntry');
    try {
      const navigated = await post(`/api/sessions/${id}/navigate`, { targetId: all[0], summarize: true });
      expect(navigated.json()).toMatchObject({ cancelled: false, summaryEntry: { type: 'branch_summary' } });
      expect(given).toEqual([12_002]);
      expect(calls[0]!.ids).toEqual(all.slice(2_003));
      // 12,002 for the extension; reading the summariser's 10,000 again made it 22,000 and more.
      expect(readBack.mock.calls.length).toBeLessThan(12_010);
    } finally {
      readBack.mockRestore();
    }
  });

  it('summarize-selection aborted through the REST route writes nothing', async () => {
    const { jsonl, ids } = branchedSession();
    const held = heldSummarizer();
    const id = await boot({ summarizers: [held] }, jsonl);
    const before = read();
    const pending = post(`/api/sessions/${id}/summary/selection`, { entryIds: [ids.tryA] });
    await waitFor(() => held.started());
    const busy = await post(`/api/sessions/${id}/summary/preview`, {
      source: { kind: 'selection', entryIds: [ids.tryA] },
    });
    expect((busy.json() as { error: { code: string } }).error.code).toBe('BUSY');
    expect((await post(`/api/sessions/${id}/navigate/abort`, {})).json()).toEqual({ aborted: true });
    expect((await pending).json()).toEqual({
      aborted: true,
      oldLeafId: ids.didB,
      newLeafId: ids.didB,
    });
    expect(read()).toBe(before);
  });

  it('progress goes out as increments batched together, so what is sent grows with the text, not its square', async () => {
    const { jsonl, ids } = branchedSession();
    const piece = 'twenty characters.. ';
    const chatty: Summarizer = {
      id: 'chatty',
      label: 'Streams 2,000 pieces',
      summarize: async (_entries, { onProgress }) => {
        let text = '';
        for (let i = 0; i < 2000; i++) {
          text += piece;
          onProgress?.({ phase: 'generating', delta: piece, tokens: Math.ceil(text.length / 4) });
          // The pieces arrive in separate turns of the event loop, as a network stream's do.
          if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
        }
        return { summary: text, details: { readFiles: [], modifiedFiles: [] } };
      },
    };
    const id = await boot({ summarizers: [chatty], progressIntervalMs: 60_000 }, jsonl);
    const { ws, events } = await socket(id);
    const sizes: number[] = [];
    ws.on('message', (data) => sizes.push(String(data).length));
    const preview = await post(`/api/sessions/${id}/summary/preview`, {
      source: { kind: 'navigate', targetId: ids.moreA },
    });
    expect(preview.statusCode, preview.body).toBe(200);
    await waitFor(() => events.find((event) => event.type === 'summary_progress' && event.phase === 'done'));
    const deltas = events.filter(
      (event) => event.type === 'summary_progress' && typeof event.delta === 'string',
    );
    // Batched (here: one interval covers the whole answer), and together exactly the text.
    expect(deltas.length).toBeLessThan(5);
    expect(deltas.map((event) => event.delta).join('')).toBe(piece.repeat(2000));
    expect(deltas.at(-1)).toMatchObject({ tokens: 10_000 });
    // 40,000 characters of text cost about 40 KB of frames, not 2,000 frames of the text so far (~40 MB).
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeLessThan(50_000);
    ws.terminate();
  });

  it('a failing summariser is SUMMARY_FAILED with its message, and nothing is written', async () => {
    const { jsonl, ids } = branchedSession();
    const failing: Summarizer = {
      id: 'failing',
      label: 'Failing',
      summarize: async () => {
        throw new Error('provider said 401');
      },
    };
    const id = await boot({ summarizers: [failing] }, jsonl);
    const before = read();
    const response = await post(`/api/sessions/${id}/navigate`, { targetId: ids.moreA, summarize: true });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({
      error: { code: 'SUMMARY_FAILED', message: 'Summarisation failed: provider said 401' },
    });
    expect(read()).toBe(before);
  });

  it('the offline summariser names the abandoned goal, and the reference reads its summary and details', async () => {
    const { jsonl, ids } = branchedSession();
    const id = await boot({ summarizers: [createOfflineSummarizer()] }, jsonl);
    const body = (
      await post(`/api/sessions/${id}/navigate`, { targetId: ids.moreA, summarize: true })
    ).json() as {
      summaryEntry: Json & { summary: string };
    };
    expect(body.summaryEntry.summary).toContain('try B');
    expect(body.summaryEntry.details).toEqual({ readFiles: [], modifiedFiles: [] });
    const opened = reference.SessionManager.open(env.file(FILE));
    const entry = opened.getEntry(String(body.summaryEntry.id)) as unknown as Json;
    expect(entry).toMatchObject({
      type: 'branch_summary',
      parentId: ids.moreA,
      summary: body.summaryEntry.summary,
    });
  });

  it('info lists the summarisers and the default', async () => {
    await boot({
      summarizers: [echoSummarizer('first'), echoSummarizer('second')],
      defaultSummarizerId: 'second',
    });
    const info = (await env.app.inject({ method: 'GET', url: '/api/info', headers: AUTH })).json() as Json;
    expect(info).toMatchObject({
      summarizer: true,
      summarizers: [
        { id: 'first', label: 'Echo first' },
        { id: 'second', label: 'Echo second' },
      ],
      defaultSummarizerId: 'second',
    });
  });
});
