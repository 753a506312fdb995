// Bundles the server, the workspace packages and the npm packages it imports into dist/canopy.mjs.
// Resolving and reading the ~700 modules of Fastify and its dependencies one file at a time was
// about 0.45 s of CPU at every start (a CPU profile of the built server: node's module resolution,
// package.json reads and file reads); one file is parsed at once. What stays outside:
// - pi-ai, the LLM client: imported on first use only when an LLM summariser is configured
//   (packages/summarizer/src/pi-ai.ts), from node_modules;
// - sql.js (SQLite in WebAssembly), imported on first use to read oh-my-pi's agent.db; it loads its
//   .wasm file from beside its own script;
// - ws's optional native helpers, which it loads with a try/require when they are installed.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const external = ['@earendil-works/pi-ai', 'sql.js', 'bufferutil', 'utf-8-validate'];

await build({
  entryPoints: [path.join(here, 'src/server.ts')],
  outfile: path.join(here, 'dist/canopy.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external: [...external, ...external.map((name) => `${name}/*`)],
  // The CommonJS packages bundled into this ES module call `require` (node's built-ins, ws's
  // optional helpers): give them one that resolves from here.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as createRequireForBundle } from 'node:module';\nconst require = createRequireForBundle(import.meta.url);",
  },
  logLevel: 'warning',
});
