// Sessions of today's pi (written by pi 1.6.0 itself: packages/fixtures) opened and written through the
// server as a user does: no unknown-type notice for pi's own types, every usage counted, the context pi
// 1.6 would send at every entry, the detail of what pi 1.x added, nothing written by a read, and the
// /branch file and appended messages as pi 1.6 makes and continues them.
import fs from 'node:fs';
import path from 'node:path';
import { fixtureFacts, fixtureIds } from '@canopy/fixtures';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { positionalIds, projectEntry } from '../../../packages/session-core/test/interop/support/projection';
import * as pi16 from '../../../packages/session-core/test/pi16';
import { OmpSessionBuilder } from '../../../packages/session-core/test/omp-builder';
import { AUTH, getSnapshot, sessionIdOf, setup, waitFor, type TestEnv } from './helpers';

const PI16 = 'pi16-session.jsonl';
const CONTINUED = 'pi073-continued-by-pi16.jsonl';
const ids = fixtureIds(PI16);

type Json = Record<string, unknown>;
type PiEntries = Parameters<typeof pi16.buildSessionContext>[0];

// pi 1.6's session totals (AgentSession.getSessionStats, core/usage-totals.js): every usage source.
function piTotals(entries: Json[]): { tokens: number; cost: number } {
  let tokens = 0;
  let cost = 0;
  const add = (usage: unknown) => {
    const u = usage as {
      input: number;
      output: number;
      cacheRead: number;
      cacheWrite: number;
      cost: { total: number };
    };
    tokens += u.input + u.output + u.cacheRead + u.cacheWrite;
    cost += u.cost.total;
  };
  for (const entry of entries) {
    if (entry.type === 'usage') add(entry.usage);
    else if ((entry.type === 'branch_summary' || entry.type === 'compaction') && entry.usage)
      add(entry.usage);
    if (entry.type !== 'message') continue;
    const message = entry.message as Json;
    if (message.role === 'toolResult' && message.usage) add(message.usage);
    else if (message.role === 'assistant') add(message.usage);
  }
  return { tokens, cost };
}

describe('a session written by pi 1.6.0', () => {
  let env: TestEnv;
  beforeEach(async () => {
    env = await setup([PI16, CONTINUED]);
  });
  afterEach(async () => env.close());

  const get = async (url: string) => env.app.inject({ method: 'GET', url, headers: AUTH });
  const post = async (url: string, payload?: Json) =>
    env.app.inject({ method: 'POST', url, headers: AUTH, ...(payload ? { payload } : {}) });

  it('opens with no issue, pi’s rows and filters, and every usage counted as pi 1.6 counts it', async () => {
    const before = fs.readFileSync(env.file(PI16));
    const id = await sessionIdOf(env.app, PI16);
    const snapshot = await getSnapshot(env.app, id);
    expect(snapshot.issues).toEqual([]);
    expect(snapshot.dialect).toBe('pi');
    expect(snapshot.leafId).toBe(fixtureFacts(PI16).leaf);
    const node = (entryId: string) => snapshot.nodes.find((n) => n.id === entryId);
    expect(node(ids.omitAnswer)?.text).toBe(`[context omit: ${ids.done}]`);
    expect(node(ids.replaceUser)?.text).toBe(`[context replace: ${ids.firstUser}]`);
    expect(node(ids.system)?.text).toBe('[system]');
    expect(node(ids.cacheWarm)?.text).toBe('[usage: cache_warm anthropic/claude-sonnet-4-5]');

    const entries = fs
      .readFileSync(env.file(PI16), 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line) as Json);
    const expected = piTotals(entries);
    let tokens = 0;
    let cost = 0;
    for (const n of snapshot.nodes) {
      if (!n.usage) continue;
      tokens += n.usage.input + n.usage.output + n.usage.cacheRead + n.usage.cacheWrite;
      cost += n.usage.cost;
    }
    expect(tokens).toBe(expected.tokens);
    expect(cost).toBeCloseTo(expected.cost, 12);
    // The sources beyond the assistants' carry usage on their nodes.
    for (const source of [ids.cacheWarm, ids.codeResult, ids.compaction, ids.branchSummary])
      expect(node(source)?.usage, source).toBeDefined();
    // Reading wrote nothing (pi 1.6 itself adds a newline to a file that lacks one; Canopy never writes on a read).
    expect(fs.readFileSync(env.file(PI16)).equals(before)).toBe(true);
  });

  it('builds the context pi 1.6 would send at every entry', async () => {
    const id = await sessionIdOf(env.app, PI16);
    const text = fs.readFileSync(env.file(PI16), 'utf8');
    const entries = text
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line) as Json);
    for (const entry of entries) {
      const at = String(entry.id);
      const context = (await get(`/api/sessions/${id}/context?at=${at}`)).json() as {
        messages: Json[];
        llm: { role: string; text: string }[];
        thinkingLevel: string;
      };
      const theirs = pi16.buildSessionContext(entries as unknown as PiEntries, at);
      expect(context.messages, at).toEqual(JSON.parse(JSON.stringify(theirs.messages)));
      expect(context.thinkingLevel).toBe(theirs.thinkingLevel);
      expect(context.llm.map((m) => m.role)).toEqual(
        pi16.convertToLlm(theirs.messages).map((m: { role: string }) => m.role),
      );
    }
    // At the leaf the omitted reply is gone and the replaced texts are what is sent.
    const atEnv = (await get(`/api/sessions/${id}/context?at=${ids.envAnswer}`)).json() as {
      llm: { text: string }[];
    };
    const afterEdits = (await get(`/api/sessions/${id}/context?at=${ids.replaceNote}`)).json() as {
      llm: { text: string }[];
    };
    expect(atEnv.llm.some((m) => m.text.includes('tests pass'))).toBe(true);
    expect(afterEdits.llm.some((m) => m.text.includes('tests pass'))).toBe(false);
    expect(afterEdits.llm.some((m) => m.text === 'API frozen.')).toBe(true);
  });

  it('details what pi 1.x added: a summary’s origin, an edit’s target, a tool’s own usage and nested calls', async () => {
    const id = await sessionIdOf(env.app, PI16);
    const summary = (await get(`/api/sessions/${id}/entries/${ids.branchSummary}`)).json() as Json;
    expect(summary.summaryOrigin).toEqual({ meaning: 'left-leaf', id: ids.changelogLabel });
    const edit = (await get(`/api/sessions/${id}/entries/${ids.omitAnswer}`)).json() as { entry: Json };
    expect(edit.entry).toMatchObject({ type: 'context_edit', targetId: ids.done, replacement: null });
    const code = (await get(`/api/sessions/${id}/entries/${ids.codeResult}`)).json() as {
      entry: Json;
      toolCall: Json;
    };
    expect(code.toolCall).toMatchObject({ id: 'call_code_1', name: 'code', entryId: ids.codeCall });
    expect(code.entry).toHaveProperty('message.nestedCalls.complete', false);

    const other = await sessionIdOf(env.app, CONTINUED);
    const continued = fixtureIds(CONTINUED);
    const old = (await get(`/api/sessions/${other}/entries/${continued.oldSummary}`)).json() as Json;
    const current = (await get(`/api/sessions/${other}/entries/${continued.newSummary}`)).json() as Json;
    expect((old.summaryOrigin as Json).id).toBe(continued.answer);
    expect(current.summaryOrigin).toEqual({ meaning: 'left-leaf', id: continued.ciAnswer });
  });

  it('/branch writes the file pi 1.6’s createBranchedSession makes, and pi 1.6 continues from what Canopy appends', async () => {
    const id = await sessionIdOf(env.app, PI16);
    const response = (await post(`/api/sessions/${id}/branch`, { entryId: ids.thirdUser })).json() as {
      session: Json;
      editorText: string;
    };
    expect(response.editorText).toBe('Write the changelog entry.');
    const written = path.join(env.root, String(response.session.path));

    // pi 1.6 extracting the same path from its own copy.
    const dir = fs.mkdtempSync(path.join(env.dir, 'pi16-'));
    const copy = path.join(dir, PI16);
    fs.copyFileSync(env.file(PI16), copy);
    const pi = pi16.SessionManager.open(copy, dir);
    pi.createBranchedSession(ids.compaction);
    const theirs = pi.getEntries() as unknown as Parameters<typeof projectEntry>[0][];
    const mine = fs
      .readFileSync(written, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line) as Parameters<typeof projectEntry>[0]);
    const mineIds = positionalIds({ getEntries: () => mine });
    const theirIds = positionalIds({ getEntries: () => theirs });
    expect(mine.map((e) => projectEntry(e, mineIds))).toEqual(theirs.map((e) => projectEntry(e, theirIds)));

    // Canopy appends to the pi 1.6 file; pi 1.6 opens it and goes on; Canopy reads that as it is.
    expect((await post(`/api/sessions/${id}/messages`, { text: 'one more thing' })).statusCode).toBe(200);
    const reopened = pi16.SessionManager.open(env.file(PI16), dir);
    expect(reopened.getLeafEntry()).toMatchObject({ type: 'message', message: { role: 'user' } });
    const reply = reopened.appendMessage({
      role: 'assistant',
      content: [{ type: 'text', text: 'noted' }],
      api: 'anthropic-messages',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      usage: {
        input: 1,
        output: 1,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 2,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: 'stop',
      timestamp: Date.now(),
    });
    const snapshot = await waitFor(async () => {
      const s = await getSnapshot(env.app, id);
      return s.nodes.some((n) => n.id === reply) ? s : undefined;
    });
    expect(snapshot.issues).toEqual([]);
  });
});

describe('an oh-my-pi 18.3.4 file is still read as oh-my-pi reads it', () => {
  let env: TestEnv;
  afterEach(async () => env.close());

  it('keeps its dialect and reads its branch summary’s fromId as the branch point', async () => {
    env = await setup([]);
    const b = new OmpSessionBuilder({ title: 'Why' });
    const ask = b.user('why?');
    const answer = b.assistant('because');
    const detour = b.user('detour', answer);
    // oh-my-pi 18.3.4 writes the branch point as fromId, with its own extension flag.
    b.add('branch_summary', { fromId: answer, summary: 'went nowhere', fromExtension: false }, answer);
    fs.writeFileSync(env.file('omp.jsonl'), b.text());
    await env.restart();
    const id = await sessionIdOf(env.app, 'omp.jsonl');
    const snapshot = await getSnapshot(env.app, id);
    expect(snapshot.dialect).toBe('omp');
    const summary = snapshot.nodes.find((n) => n.type === 'branch_summary')!;
    const detail = (
      await env.app.inject({ method: 'GET', url: `/api/sessions/${id}/entries/${summary.id}`, headers: AUTH })
    ).json() as Json;
    expect(detail.summaryOrigin).toEqual({ meaning: 'branch-point', id: answer });
    expect(snapshot.nodes.map((n) => n.id)).toEqual(expect.arrayContaining([ask, detour]));
  });
});
