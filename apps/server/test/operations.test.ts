import fs from 'node:fs';
import path from 'node:path';
import * as reference from '@mariozechner/pi-coding-agent';
import { SessionManager } from '@canopy/session-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ALL_IDS, AUTH, getSnapshot, SEED_IDS, sessionIdOf, setup, type TestEnv } from './helpers';

const SEED = 'seed-example.jsonl';
const ALL = 'all-entry-types.jsonl';

type Json = Record<string, unknown>;

describe('session operations', () => {
  let env: TestEnv;
  beforeEach(async () => {
    env = await setup([SEED, ALL]);
  });
  afterEach(async () => env.close());

  const get = async (url: string) => env.app.inject({ method: 'GET', url, headers: AUTH });
  const post = async (url: string, payload?: Json) =>
    env.app.inject({ method: 'POST', url, headers: AUTH, ...(payload ? { payload } : {}) });

  it('an entry detail of a toolResult includes its tool call, of an assistant its usage', async () => {
    const id = await sessionIdOf(env.app, ALL);
    const result = (await get(`/api/sessions/${id}/entries/${ALL_IDS.readResult}`)).json() as {
      entry: Json;
      toolCall: Json;
      childIds: string[];
    };
    expect(result.entry.id).toBe(ALL_IDS.readResult);
    // The generator's read call (call_read_1) is answered by this result.
    expect(result.toolCall).toMatchObject({ id: 'call_read_1', entryId: ALL_IDS.readCall });
    expect(result.childIds).toEqual([ALL_IDS.editCall]);
    const assistant = (await get(`/api/sessions/${id}/entries/${ALL_IDS.readCall}`)).json() as {
      usage: Json;
      childIds: string[];
    };
    expect(assistant.usage).toHaveProperty('totalTokens');
    // A fork: the assistant has the toolResult and the branch summary as children, oldest first.
    expect(assistant.childIds).toEqual([ALL_IDS.readResult, ALL_IDS.branchSummary]);
    const missing = await get(`/api/sessions/${id}/entries/nope`);
    expect(missing.statusCode).toBe(404);
    expect((missing.json() as { error: Json }).error.code).toBe('ENTRY_NOT_FOUND');
  });

  it('the context at the leaf is the leaf path as the fixture was built; at another node it is that path', async () => {
    const id = await sessionIdOf(env.app, ALL);
    const atLeaf = (await get(`/api/sessions/${id}/context`)).json() as {
      at: string;
      messages: Json[];
      llm: Json[];
      thinkingLevel: string;
      tokens: number;
      model: Json;
    };
    expect(atLeaf.at).toBe(ALL_IDS.branchAnswer);
    // The leaf path is model change, thinking "high", session_info, the first user message, the read
    // call, the branch summary, the branch's user message and answer: five of them are messages. The
    // later switch to "low" and to the codex model lies on the other branch.
    expect(atLeaf.messages).toHaveLength(5);
    expect(atLeaf.thinkingLevel).toBe('high');
    expect(atLeaf.model).toEqual({ provider: 'anthropic', modelId: 'claude-sonnet-4-5' });
    expect(atLeaf.llm.length).toBeGreaterThan(0);
    expect(atLeaf.tokens).toBeGreaterThan(0);
    const atUser = (await get(`/api/sessions/${id}/context?at=${ALL_IDS.firstUser}`)).json() as {
      at: string;
      messages: Json[];
    };
    expect(atUser.at).toBe(ALL_IDS.firstUser);
    expect(atUser.messages).toHaveLength(1);
    const bad = await get(`/api/sessions/${id}/context?at=nope`);
    expect((bad.json() as { error: Json }).error.code).toBe('ENTRY_NOT_FOUND');
  });

  it('the composer appends a user message under the leaf; an empty or missing text is refused', async () => {
    const id = await sessionIdOf(env.app, SEED);
    const before = fs.readFileSync(env.file(SEED), 'utf8');
    const response = (await post(`/api/sessions/${id}/messages`, { text: 'next step' })).json() as {
      entryId: string;
      leafId: string;
    };
    // Ids only: the node reaches the browser through session_changed, once.
    expect(response).toEqual({ entryId: expect.any(String), leafId: response.entryId });
    expect((await getSnapshot(env.app, id)).nodes.at(-1)).toMatchObject({
      id: response.entryId,
      type: 'message',
      role: 'user',
      text: 'user: next step',
      parentId: SEED_IDS.milestoneLabel,
    });
    const after = fs.readFileSync(env.file(SEED), 'utf8');
    const line = JSON.parse(after.slice(before.length)) as { message: Json };
    expect(line.message).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'next step' }] });
    const empty = await post(`/api/sessions/${id}/messages`, { text: '   ' });
    expect(empty.statusCode).toBe(400);
    const missing = await post(`/api/sessions/${id}/messages`, {});
    expect(missing.statusCode).toBe(400);
    expect(fs.readFileSync(env.file(SEED), 'utf8')).toBe(after);
  });

  it('/branch from a non-root user message writes the root→parent path to a new file; the original is untouched', async () => {
    const id = await sessionIdOf(env.app, SEED);
    const original = fs.readFileSync(env.file(SEED));
    const response = (await post(`/api/sessions/${id}/branch`, { entryId: SEED_IDS.tryB })).json() as {
      sessionId: string;
      editorText: string;
      session: Json;
      cancelled: boolean;
    };
    expect(response.cancelled).toBe(false);
    expect(response.editorText).toBe('Try approach B');
    expect(fs.readFileSync(env.file(SEED)).equals(original)).toBe(true);
    const newFile = path.join(env.root, String(response.session.path));
    const opened = reference.SessionManager.open(newFile);
    expect(opened.getEntries().map((entry) => entry.id)).toEqual([SEED_IDS.startTask, SEED_IDS.plan]);
    expect(opened.getHeader()?.parentSession).toBe(fs.realpathSync(env.file(SEED)));
    expect(response.session.parentId).toBe(id);
  });

  it('/branch from a root user message starts an empty session whose parent is this file', async () => {
    const id = await sessionIdOf(env.app, SEED);
    const response = (await post(`/api/sessions/${id}/branch`, { entryId: SEED_IDS.startTask })).json() as {
      session: Json;
      editorText: string;
    };
    expect(response.editorText).toBe('Start task');
    const text = fs.readFileSync(path.join(env.root, String(response.session.path)), 'utf8');
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      type: 'session',
      version: 3,
      parentSession: fs.realpathSync(env.file(SEED)),
    });
  });

  it('/branch from an assistant message is INVALID_TARGET and creates no file', async () => {
    const id = await sessionIdOf(env.app, SEED);
    const response = await post(`/api/sessions/${id}/branch`, { entryId: SEED_IDS.plan });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: { code: 'INVALID_TARGET', message: 'Only a user message can be branched from.' },
    });
    expect(fs.readdirSync(env.root).sort()).toEqual([ALL, SEED]);
  });

  it('/branch and /fork write from the open session, loading no second copy of its file', async () => {
    const id = await sessionIdOf(env.app, SEED);
    await getSnapshot(env.app, id);
    const load = vi.spyOn(SessionManager, 'fromJsonlChunks');
    try {
      const branched = await post(`/api/sessions/${id}/branch`, { entryId: SEED_IDS.tryB });
      const forked = await post(`/api/sessions/${id}/fork`);
      expect([branched.statusCode, forked.statusCode]).toEqual([200, 200]);
      // Before, each loaded a throwaway copy of the whole file (3.35 s for a 1 GB session's /branch).
      expect(load).not.toHaveBeenCalled();
    } finally {
      load.mockRestore();
    }
  });

  it('/fork copies every entry into a new file', async () => {
    const id = await sessionIdOf(env.app, ALL);
    const response = (await post(`/api/sessions/${id}/fork`)).json() as { sessionId: string; session: Json };
    expect(response.sessionId).not.toBe(id);
    const opened = reference.SessionManager.open(path.join(env.root, String(response.session.path)));
    expect(opened.getEntries()).toHaveLength(31);
  });

  it('settings default as the reference, persist, and refuse bad values', async () => {
    expect((await get('/api/settings')).json()).toEqual({
      branchSummary: { enabled: false },
      doubleEscapeAction: 'tree',
      defaultFilter: 'default',
    });
    const put = await env.app.inject({
      method: 'PUT',
      url: '/api/settings',
      headers: AUTH,
      payload: { branchSummary: { enabled: true }, defaultFilter: 'no-tools' },
    });
    expect(put.json()).toEqual({
      branchSummary: { enabled: true },
      doubleEscapeAction: 'tree',
      defaultFilter: 'no-tools',
    });
    const bad = await env.app.inject({
      method: 'PUT',
      url: '/api/settings',
      headers: AUTH,
      payload: { doubleEscapeAction: 'fork' },
    });
    expect(bad.statusCode).toBe(400);
    await env.restart();
    expect((await get('/api/settings')).json()).toEqual({
      branchSummary: { enabled: true },
      doubleEscapeAction: 'tree',
      defaultFilter: 'no-tools',
    });
  });

  it('info names the roots and says there is no summariser', async () => {
    const info = (await get('/api/info')).json() as {
      protocolVersion: number;
      roots: Json[];
      summarizer: boolean;
    };
    expect(info.protocolVersion).toBe(1);
    expect(info.roots).toEqual([{ name: '~/sessions', path: fs.realpathSync(env.root) }]);
    expect(info.summarizer).toBe(false);
  });
});
