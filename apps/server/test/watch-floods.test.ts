// A program renaming files over and over inside a session's folder (oh-my-pi's tool outputs live
// there) must not keep the server busy (docs/safety.md#confinement): names that are never sessions
// are ignored as the events come, a flood of other names becomes one rescan, and on Linux folders
// are watched one by one instead of by Node's per-file recursive watcher.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_QUEUED_PATHS } from '../src/session-store';
import { AUTH, waitFor } from './helpers';
import { makeSession, setupOwn, type OwnEnv } from './own-sessions';

const NO_PERIODIC_RESCAN = { rescanMs: 2_000_000_000 };

describe('watch events in floods', () => {
  let env: OwnEnv;
  afterEach(async () => {
    vi.restoreAllMocks();
    await env.close();
  });

  async function withArtifactFolder() {
    env = await setupOwn({ 'work.jsonl': makeSession().text }, NO_PERIODIC_RESCAN);
    const folder = env.file('work');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, '0.bash.log'), 'log\n');
    const index = env.app.canopy.store.index;
    await index.scan();
    return { folder, index };
  }

  it('renames of tool outputs and temporary files in a session folder are not looked at one by one', async () => {
    const { folder, index } = await withArtifactFolder();
    const refreshPath = vi.spyOn(index, 'refreshPath');
    for (let i = 0; i < 500; i++) {
      fs.writeFileSync(path.join(folder, `.${i}.tmp`), 'x');
      fs.renameSync(path.join(folder, `.${i}.tmp`), path.join(folder, `${i}.bash.log`));
    }
    // Then a session appears in that folder: its event is acted on, after every earlier one.
    fs.writeFileSync(path.join(folder, 'Helper.jsonl'), makeSession(1).text);
    await waitFor(() => refreshPath.mock.calls.some(([changed]) => changed.endsWith('Helper.jsonl')));
    // (The folder's own creation, just before, may be among them.)
    const looked = refreshPath.mock.calls.map(([changed]) => path.basename(changed));
    expect(looked.filter((name) => name !== 'work')).toEqual(['Helper.jsonl']);
  });

  it('a flood of other names becomes one rescan instead of a look at each', async () => {
    const { folder, index } = await withArtifactFolder();
    const refreshPath = vi.spyOn(index, 'refreshPath');
    const scan = vi.spyOn(index, 'scan');
    for (let i = 0; i < 500; i++) {
      fs.writeFileSync(path.join(folder, `n${i}`), 'x');
      fs.renameSync(path.join(folder, `n${i}`), path.join(folder, `m${i}`));
    }
    await waitFor(() => scan.mock.calls.length > 0);
    expect(refreshPath.mock.calls.length).toBeLessThanOrEqual(2 * MAX_QUEUED_PATHS);
    const list = await env.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH });
    expect((list.json() as { sessions: unknown[] }).sessions).toHaveLength(1);
  });

  it('a session in a folder made after the start is listed from the watch events alone', async () => {
    env = await setupOwn({ 'a.jsonl': makeSession().text }, NO_PERIODIC_RESCAN);
    await env.app.canopy.store.firstScan;
    const nested = env.file(path.join('one', 'two'));
    fs.mkdirSync(nested, { recursive: true });
    fs.writeFileSync(path.join(nested, 'deep.jsonl'), makeSession(1).text);
    await waitFor(async () => {
      const list = await env.app.inject({ method: 'GET', url: '/api/sessions', headers: AUTH });
      return (list.json() as { sessions: Array<{ path: string }> }).sessions.some(
        (item) => item.path === path.join('one', 'two', 'deep.jsonl'),
      );
    });
  });
});
