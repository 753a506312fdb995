#!/usr/bin/env node
// Builds each WebAssembly text module of session-core (`*.wat`) into the TypeScript module that
// carries its bytes (`*.wasm.ts`), so nothing is compiled at install or run time. `--check` builds in
// memory and exits non-zero when a committed module differs from its source (string-body.test.ts runs
// the script with it).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import initWabt from 'wabt';

const sourceDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'packages', 'session-core', 'src');
const HEX_PER_LINE = 96;

/** The `.wasm.ts` text for one `.wat` file's contents. */
async function wasmModuleText(name, watText) {
  const wabt = await initWabt();
  const parsed = wabt.parseWat(name, watText, { simd: true });
  try {
    parsed.validate();
    const { buffer } = parsed.toBinary({});
    const hex = Buffer.from(buffer).toString('hex');
    const lines = [];
    for (let at = 0; at < hex.length; at += HEX_PER_LINE)
      lines.push(`  '${hex.slice(at, at + HEX_PER_LINE)}',`);
    return [
      `// Generated from ${name} by scripts/build-wasm.mjs: do not edit; change the .wat and rebuild.`,
      "/** The module's bytes, in hexadecimal. */",
      'export const WASM_HEX = [',
      ...lines,
      "].join('');",
      '',
    ].join('\n');
  } finally {
    parsed.destroy();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const file of readdirSync(sourceDir).filter((name) => name.endsWith('.wat'))) {
    const target = join(sourceDir, file.replace(/\.wat$/, '.wasm.ts'));
    const text = await wasmModuleText(file, readFileSync(join(sourceDir, file), 'utf8'));
    let current = '';
    try {
      current = readFileSync(target, 'utf8');
    } catch {
      // Not built yet.
    }
    if (current === text) continue;
    if (check) {
      stale++;
      process.stderr.write(`${target} is not built from ${file}: run node scripts/build-wasm.mjs\n`);
    } else {
      writeFileSync(target, text);
      process.stdout.write(`built ${target}\n`);
    }
  }
  process.exitCode = stale > 0 ? 1 : 0;
}
