// `npm test`: type-check, lint, build, unit and integration tests (some drive the built server),
// then e2e tests in Chromium.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { buildIfNeeded } from './build.mjs';
import { ensureSystemPackages } from './system-packages.mjs';

function run(label, command, args) {
  console.log(`\n[toolscope test] ${label}: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  if (result.status !== 0) {
    console.error(`[toolscope test] ${label} failed`);
    process.exit(result.status ?? 1);
  }
}

const REPORTS = '.test-reports';

/** Reads the runners' JSON reports into one count. */
function summary() {
  const read = (file) => JSON.parse(fs.readFileSync(`${REPORTS}/${file}`, 'utf8'));
  const unit = read('vitest.json');
  const e2e = read('e2e.json').stats;
  return {
    passed: unit.numPassedTests + e2e.expected + e2e.flaky,
    failed: unit.numFailedTests + e2e.unexpected,
    skipped: unit.numPendingTests + unit.numTodoTests + e2e.skipped,
  };
}

ensureSystemPackages();
fs.rmSync(REPORTS, { recursive: true, force: true });
fs.mkdirSync(REPORTS, { recursive: true });
const bin = (name) => (fs.existsSync(`node_modules/.bin/${name}`) ? `node_modules/.bin/${name}` : name);
run('type-check', bin('tsc'), ['--noEmit', '-p', '.']);
run('lint', bin('biome'), ['check', '.']);
await buildIfNeeded();
process.env.TOOLSCOPE_REQUIRE_BUILD = '1';
run('unit and integration tests', bin('vitest'), [
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${REPORTS}/vitest.json`,
]);
run('e2e tests', bin('playwright'), ['test']);
const { passed, failed, skipped } = summary();
console.log(`\ntoolscope: ${passed} passed, ${failed} failed, ${skipped} skipped`);
