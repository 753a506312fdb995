#!/usr/bin/env node
// Type-checks every TypeScript project of the workspace, each with its own tsconfig (session-core's
// sources without Node or DOM types, its tests with Node, the web app with the DOM, …).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
const projects = ['tsconfig.json'];
for (const group of ['packages', 'apps']) {
  for (const name of readdirSync(join(root, group)).sort()) {
    for (const file of ['tsconfig.json', 'tsconfig.test.json']) {
      if (existsSync(join(root, group, name, file))) projects.push(join(group, name, file));
    }
  }
}
if (existsSync(join(root, 'e2e', 'tsconfig.json'))) projects.push(join('e2e', 'tsconfig.json'));

let failed = 0;
for (const project of projects) {
  const result = spawnSync(process.execPath, [tsc, '-p', project, '--noEmit'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    failed++;
    process.stderr.write(`typecheck failed: ${project}\n`);
  }
}
process.stdout.write(`typecheck: ${projects.length - failed} of ${projects.length} projects clean\n`);
process.exit(failed ? 1 : 0);
