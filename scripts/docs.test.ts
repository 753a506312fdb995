// The docs/ pages are what code comments cite and what a newcomer reads first, so they must not rot:
// every `docs/<page>.md#<anchor>` cited anywhere in the repository names a page and a heading that
// exist, every repository path the docs name in backticks exists, and the claims of
// docs/architecture.md that a scan can check hold (its file names, the server's one owner of node:fs).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const docsDir = join(root, 'docs');
const SKIP = new Set(['node_modules', 'dist', '.git', '.tools', '.state', 'test-results', 'artifacts']);

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.(ts|tsx|mjs|js|md)$/.test(name)) out.push(path);
  }
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{Letter}\p{Number} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(page: string): Set<string> {
  return anchorsIn(join(docsDir, page));
}

function anchorsIn(path: string): Set<string> {
  const text = readFileSync(path, 'utf8');
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    const heading = !inFence && /^#{1,6} (.+)$/.exec(line);
    if (heading) anchors.add(slug(heading[1] as string));
  }
  return anchors;
}

const pages = readdirSync(docsDir).filter((name) => name.endsWith('.md'));
const files = ['packages', 'apps', 'e2e', 'bench', 'scripts', 'docs']
  .map((dir) => join(root, dir))
  .filter(existsSync)
  .flatMap((dir) => walk(dir))
  .concat(join(root, 'README.md'));

describe('docs/', () => {
  it('every docs/<page>.md#<anchor> cited in the repository names an existing page and heading', () => {
    const broken: string[] = [];
    const citation = /docs\/([a-z-]+\.md)((?:#[a-z0-9-]+)?)((?:,? #[a-z0-9-]+)*)/g;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(citation)) {
        const page = match[1] as string;
        const where = `${relative(root, file)}: ${match[0]}`;
        if (!pages.includes(page)) {
          broken.push(`${where} (no such page)`);
          continue;
        }
        const anchors = [match[2], ...(match[3] ?? '').split(/,? /)]
          .filter((anchor): anchor is string => !!anchor && anchor.startsWith('#'))
          .map((anchor) => anchor.slice(1));
        const known = anchorsOf(page);
        for (const anchor of anchors) if (!known.has(anchor)) broken.push(`${where} (no heading #${anchor})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every bench/README.md#<anchor> and bench/log/<file>.md#<anchor> cited names an existing heading', () => {
    // The benchmark's history moved from its README to bench/log/: a citation of either must resolve.
    const broken: string[] = [];
    const citation = /bench\/((?:log\/)?[\w.-]+\.md)#([a-z0-9-]+)/g;
    let cited = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(citation)) {
        cited++;
        const page = join(root, 'bench', match[1] as string);
        const where = `${relative(root, file)}: ${match[0]}`;
        if (!existsSync(page)) broken.push(`${where} (no such file)`);
        else if (!anchorsIn(page).has(match[2] as string)) broken.push(`${where} (no heading)`);
      }
    }
    expect(cited).toBeGreaterThan(0);
    expect(broken).toEqual([]);
  });

  it('every repository path the docs name in backticks exists', () => {
    const missing: string[] = [];
    const pathPattern = /`((?:packages|apps|e2e|bench|scripts)\/[\w./-]+)`/g;
    for (const page of pages) {
      const text = readFileSync(join(docsDir, page), 'utf8');
      for (const match of text.matchAll(pathPattern)) {
        if (!existsSync(join(root, match[1] as string))) missing.push(`docs/${page}: ${match[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  describe('architecture.md', () => {
    const text = readFileSync(join(docsDir, 'architecture.md'), 'utf8');
    const names = [...text.matchAll(/`([\w./-]+)`/g)].map((match) => match[1] as string);
    const sourceFile = /\.(ts|tsx|mjs|js|md|json|wat)$/;

    it('is one page a newcomer reads in minutes, and the server README a short map', () => {
      expect(text.split('\n').length).toBeLessThan(200);
      expect(readFileSync(join(root, 'apps/server/README.md'), 'utf8').split('\n').length).toBeLessThan(60);
    });

    it('every file or folder it names by path exists', () => {
      const missing = names
        .filter((name) => name.includes('/') && (sourceFile.test(name) || name.endsWith('/')))
        .filter((name) => !existsSync(join(root, name)));
      expect(missing).toEqual([]);
    });

    it('every file it names by its bare name exists in the code', () => {
      const known = new Set(
        ['packages', 'apps', 'scripts'].flatMap((dir) => walk(join(root, dir))).map((file) => basename(file)),
      );
      const missing = names
        .filter((name) => !name.includes('/') && sourceFile.test(name))
        .filter((name) => !known.has(name));
      expect(missing).toEqual([]);
    });

    it('on the server, only files under apps/server/src/files/ import node:fs, as it says', () => {
      expect(text.replace(/\s+/g, ' ')).toContain('only `apps/server/src/files/` imports `node:fs`');
      const serverSrc = join(root, 'apps/server/src');
      const fsImport = /(?:from\s+|import\s*\(\s*|require\(\s*)['"](?:node:)?fs(?:\/promises)?['"]/;
      const importers = walk(serverSrc)
        .filter((file) => !file.endsWith('.test.ts') && fsImport.test(readFileSync(file, 'utf8')))
        .map((file) => relative(root, file));
      expect(importers.length).toBeGreaterThan(0);
      expect(importers.filter((file) => !file.startsWith('apps/server/src/files/'))).toEqual([]);
    });
  });
});
