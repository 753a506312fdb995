// A header whose version is not a known whole number ({"major": 4}, "3", 3.5, …) is a file of an
// unknown format: it opens read-only, and is never migrated, backed up or rewritten.
import fs from 'node:fs';
import type { SessionListItem } from '@canopy/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { AUTH, getSnapshot } from './helpers';
import { makeSession, setupOwn, type OwnEnv } from './own-sessions';

/** A pi-shaped session whose header says `version` (given as JSON text). */
function withVersion(json: string): string {
  const [header, ...rest] = makeSession(1).text.trimEnd().split('\n');
  const parsed = JSON.parse(header!) as Record<string, unknown>;
  return `${JSON.stringify({ ...parsed, version: 0 }).replace('"version":0', `"version":${json}`)}\n${rest.join('\n')}\n`;
}

describe('header versions Canopy does not know', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  it('open read-only, say why, and a write changes nothing (no migration, no backup)', async () => {
    const versions = ['{"major":4}', '"3"', '3.5', '0', '-1', 'null', 'true', '"two"'];
    const files = Object.fromEntries(versions.map((json, i) => [`v${i}.jsonl`, withVersion(json)]));
    env = await setupOwn(files);
    const list = await env.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH });
    const items = (list.json() as { sessions: SessionListItem[] }).sessions;
    expect(items).toHaveLength(versions.length);
    for (const [i, json] of versions.entries()) {
      const name = `v${i}.jsonl`;
      const item = items.find((candidate) => candidate.path === name)!;
      expect(item.readOnly, json).toMatch(/is not a format version Canopy knows/);
      const snapshot = await getSnapshot(env.app, item.id);
      const entryId = snapshot.nodes[0]!.id;
      const label = await env.app.inject({
        method: 'PUT',
        url: `/api/sessions/${item.id}/labels/${entryId}`,
        headers: AUTH,
        payload: { label: 'x' },
      });
      expect(label.statusCode, json).toBe(403);
      expect((label.json() as { error: { code: string } }).error.code, json).toBe('READ_ONLY');
      expect(fs.readFileSync(env.file(name), 'utf8'), json).toBe(files[name]);
      // Still read-only once open (the row then comes from the open session).
      const again = await env.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH });
      const row = (again.json() as { sessions: SessionListItem[] }).sessions.find((c) => c.path === name)!;
      expect(row.readOnly, json).toMatch(/is not a format version Canopy knows/);
    }
    expect(fs.readdirSync(env.root).sort()).toEqual(Object.keys(files).sort());
  });

  it('a known legacy version (absent, 1, 2) is still migrated on its first write', async () => {
    const file = withVersion('2');
    env = await setupOwn({ 'legacy.jsonl': file });
    const list = await env.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH });
    const item = (list.json() as { sessions: SessionListItem[] }).sessions[0]!;
    expect(item.readOnly).toBeUndefined();
  });
});
