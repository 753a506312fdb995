// The compare, files and file-lens routes (docs/branches.md) on the "two approaches" sessions, through
// `inject`: token, schemas, coded errors, and the answers session-core computes for the same paths.
import { fixtureIds } from '@canopy/fixtures';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUTH, sessionIdOf, setup, type TestEnv } from './helpers';

const PI16 = 'two-approaches-pi16.jsonl';
const PI073 = 'two-approaches-pi073.jsonl';
const ids = fixtureIds(PI16);

describe('compare and files routes', () => {
  let env: TestEnv;
  let id: string;
  beforeEach(async () => {
    env = await setup([PI16, PI073]);
    id = await sessionIdOf(env.app, PI16);
  });
  afterEach(async () => env.close());

  const get = async (url: string, headers: Record<string, string> = AUTH) =>
    env.app.inject({ method: 'GET', url, headers });
  const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

  it('compares two leaves from their common ancestor', async () => {
    const res = await get(`/api/sessions/${id}/compare?${q({ a: ids.answerA, b: ids.answerB })}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.ancestorId).toBe(ids.plan);
    expect(body.a.leafId).toBe(ids.answerA);
    expect(body.a.rollup.toolErrors).toBe(1);
    expect(body.b.rollup.usageBySource.branch_summary.entries).toBe(1);
    expect(body.answerChanges).toEqual({ added: 2, removed: 2 });
    expect(body.rows.filter((r: { same: boolean }) => r.same)).toHaveLength(1);
  });

  it('answers coded errors: an unknown entry, a missing parameter, no token', async () => {
    const unknown = await get(`/api/sessions/${id}/compare?${q({ a: ids.answerA, b: 'nope' })}`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('ENTRY_NOT_FOUND');
    const missing = await get(`/api/sessions/${id}/compare?${q({ a: ids.answerA })}`);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.code).toBeTypeOf('string');
    const anonymous = await get(`/api/sessions/${id}/files`, { host: AUTH.host });
    expect(anonymous.statusCode).toBe(401);
  });

  it('lists the files a lane changed, each hunk linked to its tool call', async () => {
    const res = await get(`/api/sessions/${id}/files?${q({ at: ids.answerA, from: ids.plan })}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.at).toBe(ids.answerA);
    expect(body.files.map((f: { path: string }) => f.path)).toEqual(['src/config.ts', 'src/http.ts']);
    const http = body.files[1];
    expect(http.net.hunks[0].entryIds).toEqual([ids.editA]);
    expect(body.failed[0].entryId).toBe(ids.failedEdit);
    expect(body.unknownEffects.map((u: { reason: string }) => u.reason)).toContain('arguments-not-kept');
  });

  it('refuses a `from` that is not on the path', async () => {
    const res = await get(`/api/sessions/${id}/files?${q({ at: ids.answerA, from: ids.tryB })}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('INVALID_TARGET');
  });

  it('shows one file across every branch that touched it', async () => {
    const res = await get(`/api/sessions/${id}/file-lens?${q({ path: 'src/util.ts' })}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.omittedBranches).toBe(0);
    expect(body.branches.map((b: { leafId: string }) => b.leafId)).toEqual([ids.answerB]);
    expect(body.branches[0].report.changedBack).toBe(true);
    const http = (await get(`/api/sessions/${id}/file-lens?${q({ path: 'src/http.ts' })}`)).json();
    expect(http.branches.map((b: { leafId: string }) => b.leafId).sort()).toEqual(
      [ids.answerA, ids.answerB].sort(),
    );
  });
});
