// Builds the app with `next build` unless the last build is current (or `--force`).
import { spawnSync } from 'node:child_process';
import { isBuildCurrent, writeBuildStamp } from './build-state.mjs';

export function buildIfNeeded({ force = false } = {}) {
  if (!force && isBuildCurrent()) return;
  console.log('[toolscope] building the app (next build)…');
  const result = spawnSync(process.execPath, ['node_modules/next/dist/bin/next', 'build'], {
    stdio: 'inherit',
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  });
  if (result.status !== 0) {
    console.error('[toolscope] next build failed');
    process.exit(result.status ?? 1);
  }
  writeBuildStamp();
}

if (import.meta.url === `file://${process.argv[1]}`) buildIfNeeded({ force: process.argv.includes('--force') });
