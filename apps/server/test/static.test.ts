import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HOST } from './helpers';
import { makeSession, setupOwn, type OwnEnv } from './own-sessions';

let env: OwnEnv | undefined;
let dist: string | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
  if (dist) fs.rmSync(dist, { recursive: true, force: true });
  dist = undefined;
});

/** A built web app as Vite lays it out: index.html naming hashed files under assets/. */
function builtWebApp(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-web-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><script type="module" src="/assets/index-Ab12Cd34.js"></script>',
  );
  fs.writeFileSync(path.join(dir, 'assets', 'index-Ab12Cd34.js'), 'export {};');
  fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

describe('the web app’s files', () => {
  it('are cached for good under assets/ (content-hashed names), while index.html and other files are revalidated', async () => {
    dist = builtWebApp();
    env = await setupOwn({ 'a.jsonl': makeSession().text }, { webDist: dist });
    const get = (url: string) => env!.app.inject({ method: 'GET', url, headers: { host: HOST } });

    const script = await get('/assets/index-Ab12Cd34.js');
    expect(script.statusCode).toBe(200);
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    for (const url of ['/', '/index.html', '/favicon.svg']) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['cache-control'], url).not.toContain('immutable');
      expect(response.headers['cache-control'], url).toContain('max-age=0');
    }
  });
});
