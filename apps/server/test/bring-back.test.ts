// Bringing entries of another branch into the current one, through the routes (docs/bring-back.md):
// the three previews, the write (one whole line under the leaf, the leaf moved, refused while another
// writer is active, nothing written on a bad request), the provenance and the undo read by pi 1.6.
import fs from 'node:fs';
import { assistantMessage } from '@canopy/fixtures';
import { BRING_BACK_CUSTOM_TYPE, SessionManager } from '@canopy/session-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppOptions } from '../src/app';
import type { Summarizer, SummarizeOptions } from '../src/summarizer';
import * as pi16 from '../../../packages/session-core/test/pi16';
import { AUTH, sessionIdOf, setup, waitFor, type TestEnv } from './helpers';

type Json = Record<string, unknown>;
const FILE = 'two-ways.jsonl';

/** Says what it was given and asked, so the tests can assert both. */
function echoSummarizer(calls: Array<{ ids: string[]; options: SummarizeOptions }> = []): Summarizer {
  return {
    id: 'echo',
    label: 'Echo',
    summarize: async (entries, options) => {
      calls.push({ ids: entries.map((entry) => entry.id), options });
      options.onProgress?.({ phase: 'generating', delta: 'partial', tokens: 2 });
      return {
        summary: `${options.preamble ?? ''}echo: ${entries.map((entry) => entry.id).join(',')}`,
        details: { readFiles: ['src/read.ts'], modifiedFiles: ['src/edit.ts'] },
      };
    },
  };
}

/** A question, approach A (abandoned: a tool call and its result, then the fix), approach B (the leaf). */
function twoWays() {
  const sm = SessionManager.inMemory('/home/dev/project');
  const user = (text: string) => sm.appendMessage({ role: 'user', content: text, timestamp: 0 });
  const question = user('why does the build fail?');
  const tryA = user('try A');
  const call = sm.appendMessage({
    ...assistantMessage(
      [
        { type: 'thinking', thinking: 'hidden thought', thinkingSignature: 'sig' },
        { type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'vite.config.ts' } },
      ] as never,
      0,
    ),
    stopReason: 'toolUse',
    thinkingLevel: 'medium',
  } as never);
  const result = sm.appendMessage({
    role: 'toolResult',
    toolCallId: 'c1',
    toolName: 'read',
    content: [{ type: 'text', text: 'base: "/app"' }],
    isError: false,
    timestamp: 0,
  });
  const fix = sm.appendMessage(assistantMessage('set base to "./"', 0));
  sm.branch(question);
  const tryB = user('try B');
  const didB = sm.appendMessage(assistantMessage('did B', 0));
  return { jsonl: sm.toJsonl(), ids: { question, tryA, call, result, fix, tryB, didB } };
}

describe('bring back', () => {
  let env: TestEnv;
  afterEach(async () => env.close());

  async function boot(options: Partial<AppOptions> = {}, jsonl = twoWays().jsonl) {
    env = await setup([], { summarizers: [echoSummarizer()], ...options });
    fs.writeFileSync(env.file(FILE), jsonl);
    await env.restart();
    return sessionIdOf(env.app, FILE);
  }
  const post = (url: string, payload?: Json) =>
    env.app.inject({ method: 'POST', url, headers: AUTH, ...(payload ? { payload } : {}) });
  const lines = () =>
    fs
      .readFileSync(env.file(FILE), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Json);

  it('previews the excerpt: paired, thinking left out, and writes nothing', async () => {
    const { jsonl, ids } = twoWays();
    const id = await boot({}, jsonl);
    const before = fs.readFileSync(env.file(FILE), 'utf8');
    const response = await post(`/api/sessions/${id}/bring-back/preview`, {
      entryIds: [ids.result, ids.fix],
      form: 'excerpt',
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as Json;
    expect(body).toMatchObject({
      form: 'excerpt',
      aborted: false,
      sourceEntryIds: [ids.call, ids.result, ids.fix],
      selectedCount: 2,
      addedCalls: 1,
      leftOut: 0,
    });
    expect(body.text).toContain('[Tool call]: read(path="vite.config.ts")');
    expect(body.text).toContain('[Tool result of read]: base: "/app"');
    expect(body.text).not.toContain('hidden thought');
    expect(body.tokens).toBe(Math.ceil(String(body.text).length / 4));
    expect(fs.readFileSync(env.file(FILE), 'utf8')).toBe(before);
  });

  it('previews condensed through the summariser with the budget in its instructions, and summary + files', async () => {
    const { jsonl, ids } = twoWays();
    const calls: Array<{ ids: string[]; options: SummarizeOptions }> = [];
    const id = await boot({ summarizers: [echoSummarizer(calls)] }, jsonl);
    const condensed = await post(`/api/sessions/${id}/bring-back/preview`, {
      entryIds: [ids.tryA, ids.fix],
      form: 'condensed',
      tokenBudget: 300,
    });
    expect(condensed.statusCode, condensed.body).toBe(200);
    expect(calls[0]!.ids).toEqual([ids.tryA, ids.fix]);
    expect(calls[0]!.options.replaceInstructions).toBe(true);
    expect(calls[0]!.options.customInstructions).toContain('at most 300 tokens');
    expect(condensed.json()).toMatchObject({ form: 'condensed', aborted: false, summarizerId: 'echo' });
    expect((condensed.json() as Json).text).toContain('did not happen on this branch');

    const summary = await post(`/api/sessions/${id}/bring-back/preview`, {
      entryIds: [ids.tryA, ids.fix],
      form: 'summary',
    });
    expect(summary.statusCode, summary.body).toBe(200);
    const body = summary.json() as Json;
    expect(body).toMatchObject({
      form: 'summary',
      details: { readFiles: ['src/read.ts'], modifiedFiles: ['src/edit.ts'] },
    });
    expect(body.text).toContain('<read-files>\nsrc/read.ts\n</read-files>');
    expect(body.text).toContain('<modified-files>\nsrc/edit.ts\n</modified-files>');
  });

  it('writes one custom_message under the leaf, which becomes the leaf; pi 1.6 sends it; undo omits it', async () => {
    const { jsonl, ids } = twoWays();
    const id = await boot({}, jsonl);
    const before = lines().length;
    const response = await post(`/api/sessions/${id}/bring-back`, {
      sourceEntryIds: [ids.call, ids.result, ids.fix],
      form: 'excerpt',
      text: 'edited: set base to "./"',
    });
    expect(response.statusCode, response.body).toBe(200);
    const result = response.json() as Json;
    expect(result).toMatchObject({
      oldLeafId: ids.didB,
      tokens: Math.ceil('edited: set base to "./"'.length / 4),
    });
    expect(result.newLeafId).toBe(result.entryId);
    const written = lines();
    expect(written).toHaveLength(before + 1);
    expect(written.at(-1)).toMatchObject({
      type: 'custom_message',
      id: result.entryId,
      parentId: ids.didB,
      customType: BRING_BACK_CUSTOM_TYPE,
      display: true,
      content: 'edited: set base to "./"',
      details: {
        sourceFile: env.file(FILE),
        sourceEntryIds: [ids.call, ids.result, ids.fix],
        form: 'excerpt',
      },
    });

    const info = await env.app.inject({
      method: 'GET',
      url: `/api/sessions/${id}/bring-back/${result.entryId}`,
      headers: AUTH,
    });
    expect(info.json()).toMatchObject({ sameFile: true, form: 'excerpt', undo: { possible: true } });

    const context = () => {
      const text = fs.readFileSync(env.file(FILE), 'utf8');
      const entries = pi16.parseSessionEntries(text).filter((e: { type: string }) => e.type !== 'session');
      return JSON.stringify(pi16.buildSessionContext(entries as never).messages);
    };
    expect(context()).toContain('edited: set base to');
    const undo = await post(`/api/sessions/${id}/bring-back/${String(result.entryId)}/undo`);
    expect(undo.statusCode, undo.body).toBe(200);
    expect(lines().at(-1)).toMatchObject({
      type: 'context_edit',
      targetId: result.entryId,
      replacement: null,
    });
    expect(context()).not.toContain('edited: set base to');
    const again = await post(`/api/sessions/${id}/bring-back/${String(result.entryId)}/undo`);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({
      error: { code: 'INVALID_TARGET', message: expect.stringContaining('Undone') },
    });
  });

  it('refuses while another writer is active, with the reason, and writes nothing', async () => {
    const { jsonl, ids } = twoWays();
    const id = await boot({}, jsonl);
    await env.app.inject({ method: 'GET', url: `/api/sessions/${id}`, headers: AUTH });
    // Another program appends a line to the open session.
    const agent = SessionManager.fromJsonl(fs.readFileSync(env.file(FILE), 'utf8'));
    agent.appendMessage({ role: 'user', content: 'agent keeps going', timestamp: 0 });
    fs.writeFileSync(env.file(FILE), agent.toJsonl());
    const before = fs.readFileSync(env.file(FILE), 'utf8');
    const response = await waitFor(async () => {
      const r = await post(`/api/sessions/${id}/bring-back`, {
        sourceEntryIds: [ids.fix],
        form: 'excerpt',
        text: 'x',
      });
      return r.statusCode === 409 ? r : undefined;
    });
    expect(response.json()).toMatchObject({
      error: { code: 'FILE_BUSY', message: expect.stringContaining('Another program is writing') },
    });
    expect(fs.readFileSync(env.file(FILE), 'utf8')).toBe(before);
  });

  it('refuses unknown entries and an empty selection with a coded error, and needs the token', async () => {
    const id = await boot();
    const unknown = await post(`/api/sessions/${id}/bring-back/preview`, {
      entryIds: ['nope1234'],
      form: 'excerpt',
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ error: { code: 'BAD_SELECTION' } });
    const empty = await post(`/api/sessions/${id}/bring-back`, {
      sourceEntryIds: [],
      form: 'excerpt',
      text: 'x',
    });
    expect(empty.json()).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    const noToken = await env.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/bring-back/preview`,
      headers: { host: AUTH.host },
      payload: { entryIds: ['x'], form: 'excerpt' },
    });
    expect(noToken.statusCode).toBe(401);
  });
});
