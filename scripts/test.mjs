// `npm test`: type-check, lint, unit and integration tests, build, then e2e tests in Chromium.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { buildIfNeeded } from './build.mjs';
import { ensureChromium } from './chromium.mjs';

function run(label, command, args) {
  console.log(`\n[toolscope test] ${label}: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  if (result.status !== 0) {
    console.error(`[toolscope test] ${label} failed`);
    process.exit(result.status ?? 1);
  }
}

ensureChromium();
const bin = (name) => (fs.existsSync(`node_modules/.bin/${name}`) ? `node_modules/.bin/${name}` : name);
run('type-check', bin('tsc'), ['--noEmit', '-p', '.']);
run('lint', bin('biome'), ['check', '.']);
run('unit and integration tests', bin('vitest'), ['run']);
buildIfNeeded();
run('e2e tests', bin('playwright'), ['test']);
