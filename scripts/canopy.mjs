#!/usr/bin/env node
// The README commands. Runs with nothing but Node 20 and npm: it bootstraps a pinned pnpm into
// .tools/, installs the workspace, then starts Canopy (`start`), runs every check (`test`), or runs
// every check three times in a row on a deliberately busy machine (`stress`).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const rootPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const PNPM_VERSION = rootPackage.packageManager.replace(/^pnpm@/, '');
const toolsDir = join(root, '.tools');
const pnpmBin = join(toolsDir, 'node_modules', 'pnpm', 'bin', 'pnpm.cjs');
const CHROMIUM = '/usr/bin/chromium';

function log(message) {
  process.stdout.write(`\x1b[1m[canopy]\x1b[0m ${message}\n`);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function mustRun(command, args, options) {
  const status = run(command, args, options);
  if (status !== 0) {
    log(`failed: ${command} ${args.join(' ')} (exit ${status})`);
    process.exit(status);
  }
}

function pnpmVersion() {
  if (!existsSync(pnpmBin)) return null;
  const result = spawnSync(process.execPath, [pnpmBin, '--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : null;
}

/** Installs the pinned pnpm locally (never globally), so a fresh machine needs only Node and npm. */
function ensurePnpm() {
  if (pnpmVersion() === PNPM_VERSION) return;
  log(`bootstrapping pnpm ${PNPM_VERSION} into .tools/`);
  rmSync(toolsDir, { recursive: true, force: true });
  mkdirSync(toolsDir, { recursive: true });
  mustRun('npm', [
    'install',
    '--prefix',
    toolsDir,
    '--no-save',
    '--no-package-lock',
    '--no-audit',
    '--no-fund',
    `pnpm@${PNPM_VERSION}`,
  ]);
}

function pnpm(args, options) {
  return run(process.execPath, [pnpmBin, ...args], options);
}

function install() {
  ensurePnpm();
  const frozen = existsSync(join(root, 'pnpm-lock.yaml')) ? ['--frozen-lockfile'] : [];
  log('installing dependencies');
  const status = pnpm(['install', ...frozen, '--reporter=append-only']);
  if (status !== 0) process.exit(status);
}

function build() {
  log('building the web app and the server');
  const status = pnpm(['-r', '--filter', './apps/*', 'run', 'build']);
  if (status !== 0) process.exit(status);
}

/** Debian's Chromium for the end-to-end tests; Playwright's own browser download is unavailable here. */
function ensureChromium() {
  if (existsSync(CHROMIUM)) return true;
  log('installing Chromium from Debian packages');
  const asRoot = process.getuid?.() === 0 ? [] : ['sudo'];
  const apt = (args) =>
    asRoot.length
      ? run('sudo', ['apt-get', ...args], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
      : run('apt-get', args, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (apt(['update', '-qq']) !== 0) return false;
  if (apt(['install', '-y', '-qq', 'chromium', 'fonts-dejavu-core']) !== 0) return false;
  return existsSync(CHROMIUM);
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

function start(args) {
  install();
  build();
  log('starting Canopy');
  process.exit(run(process.execPath, [join(root, 'apps/server/dist/canopy.mjs'), ...args]));
}

/** `npm run bench`: install, build, Chromium, then bench/run.ts (a 1 GB session needs a large heap). */
function bench(args) {
  install();
  build();
  ensureChromium();
  log('running the benchmark');
  const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  process.exit(
    run(process.execPath, ['--max-old-space-size=8192', tsx, join(root, 'bench', 'run.ts'), ...args]),
  );
}

function test(args) {
  install();
  // Chromium first: the unit run has browser tests of its own (bench/browser.test.ts), not only the
  // end-to-end step, and on a fresh machine they found no browser when it was installed later.
  const hasChromium = ensureChromium();
  const resultsDir = join(root, '.state', 'test-results');
  rmSync(resultsDir, { recursive: true, force: true });
  mkdirSync(resultsDir, { recursive: true });
  const failures = [];
  const step = (name, fn) => {
    log(name);
    const status = fn();
    if (status !== 0) failures.push(name);
  };

  step('format check (prettier)', () => pnpm(['exec', 'prettier', '--check', '.', '--log-level', 'warn']));
  step('lint (eslint)', () => pnpm(['exec', 'eslint', '.', '--max-warnings', '0']));
  step('typecheck (tsc, every package)', () => pnpm(['run', '--silent', 'typecheck']));
  const vitestJson = join(resultsDir, 'vitest.json');
  step('unit and server tests (vitest)', () =>
    pnpm([
      'exec',
      'vitest',
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${vitestJson}`,
      ...args,
    ]),
  );

  const playwrightJson = join(resultsDir, 'playwright.json');
  const e2eTests = join(root, 'e2e', 'tests');
  const hasE2e = existsSync(e2eTests) && readdirSync(e2eTests).some((name) => name.endsWith('.spec.ts'));
  if (hasE2e) {
    step('build', () => pnpm(['-r', '--filter', './apps/*', 'run', 'build']));
    if (!hasChromium) {
      failures.push('chromium install');
    } else {
      step('end-to-end tests (playwright, chromium)', () =>
        pnpm(['--filter', '@canopy/e2e', 'exec', 'playwright', 'test'], {
          env: { ...process.env, CANOPY_PLAYWRIGHT_JSON: playwrightJson },
        }),
      );
    }
  }

  const { passed, failed, skipped } = countResults(resultsDir);
  if (failures.length) log(`failed steps: ${failures.join(', ')}`);
  // A failed step that ran no test (lint, typecheck, a crash) still counts as a failure.
  const failedTotal = failed + (failures.length && failed === 0 ? failures.length : 0);
  process.stdout.write(`canopy: ${passed} passed, ${failedTotal} failed, ${skipped} skipped\n`);
  process.exit(failures.length || failed ? 1 : 0);
}

/** Test counts from the JSON reports of vitest and Playwright in `resultsDir`. */
function countResults(resultsDir) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const vitest = readJson(join(resultsDir, 'vitest.json'));
  if (vitest) {
    passed += vitest.numPassedTests ?? 0;
    failed += vitest.numFailedTests ?? 0;
    skipped += (vitest.numPendingTests ?? 0) + (vitest.numTodoTests ?? 0);
  }
  const playwright = readJson(join(resultsDir, 'playwright.json'));
  if (playwright?.stats) {
    passed += (playwright.stats.expected ?? 0) + (playwright.stats.flaky ?? 0);
    failed += playwright.stats.unexpected ?? 0;
    skipped += playwright.stats.skipped ?? 0;
  }
  return { passed, failed, skipped };
}

/**
 * The whole suite `rounds` times in a row (3 by default) while two CPU-burning processes run, to show
 * that no test depends on an idle machine. The burners are started here and stopped however this ends.
 */
function stress(args) {
  const rounds = Number(args[0] ?? 3);
  if (!Number.isInteger(rounds) || rounds < 1) {
    process.stderr.write('usage: node scripts/canopy.mjs stress [rounds]\n');
    process.exit(2);
  }
  // Each burner spins, and now and then checks that this process still exists: if it is killed
  // outright (no chance to stop them), the burners end themselves.
  const burn = `const parent = ${process.pid}; for (let i = 1; ; i++) if (i % 50000000 === 0) { try { process.kill(parent, 0); } catch { process.exit(0); } }`;
  const burners = [0, 1].map(() => spawn(process.execPath, ['-e', burn], { stdio: 'ignore' }));
  const stopBurners = () => {
    for (const burner of burners) if (burner.exitCode === null) burner.kill('SIGKILL');
  };
  process.once('exit', stopBurners);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      stopBurners();
      process.exit(130);
    });
  }
  log(
    `stress: ${rounds} rounds of the whole suite beside 2 CPU-burning processes (pids ${burners.map((b) => b.pid).join(', ')})`,
  );
  const totals = { passed: 0, failed: 0, skipped: 0 };
  const outcomes = [];
  for (let round = 1; round <= rounds; round++) {
    log(`stress: round ${round} of ${rounds}`);
    // A round that dies early must not be counted with the reports of an earlier one.
    rmSync(join(root, '.state', 'test-results'), { recursive: true, force: true });
    const status = run(process.execPath, [join(root, 'scripts', 'canopy.mjs'), 'test']);
    const counts = countResults(join(root, '.state', 'test-results'));
    const failed = counts.failed || (status !== 0 ? 1 : 0);
    outcomes.push(`round ${round}: ${counts.passed} passed, ${failed} failed, ${counts.skipped} skipped`);
    totals.passed += counts.passed;
    totals.failed += failed;
    totals.skipped += counts.skipped;
  }
  stopBurners();
  for (const outcome of outcomes) log(`stress: ${outcome}`);
  process.stdout.write(
    `canopy: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`,
  );
  process.exit(totals.failed ? 1 : 0);
}

const [command = 'start', ...rest] = process.argv.slice(2);
if (command === 'start') start(rest);
else if (command === 'test') test(rest);
else if (command === 'stress') stress(rest);
else if (command === 'bench') bench(rest);
else {
  process.stderr.write(`usage: node scripts/canopy.mjs start|test|stress|bench [args…]\n`);
  process.exit(2);
}
