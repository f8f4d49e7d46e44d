// Builds the app unless the last build is current (or `--force`):
// 1. `next build` (pages, route handlers, the proxy) into .next;
// 2. esbuild bundles the custom server (server/main.ts and the agent path it imports) into
//    .next/toolscope-server.mjs, which `npm start` runs; packages stay external (node_modules).
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { isBuildCurrent, SERVER_BUNDLE, writeBuildStamp } from './build-state.mjs';

/** `server-only` throws outside React's server bundles; the custom server is server code by definition. */
const serverOnly = {
  name: 'server-only',
  setup(b) {
    b.onResolve({ filter: /^server-only$/ }, () => ({ path: 'server-only', namespace: 'empty' }));
    b.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: '', loader: 'js' }));
  },
};

export async function bundleServer() {
  await build({
    entryPoints: ['server/main.ts'],
    outfile: SERVER_BUNDLE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
    plugins: [serverOnly],
    // Bundled CommonJS-style code may call require(); an ES module has none of its own.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
}

export async function buildIfNeeded({ force = false } = {}) {
  if (!force && isBuildCurrent()) return;
  console.log('[toolscope] building the app (next build, then the server bundle)…');
  const result = spawnSync(process.execPath, ['node_modules/next/dist/bin/next', 'build'], {
    stdio: 'inherit',
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  });
  if (result.status !== 0) {
    console.error('[toolscope] next build failed');
    process.exit(result.status ?? 1);
  }
  try {
    await bundleServer();
  } catch (error) {
    console.error('[toolscope] bundling the server failed:', error);
    process.exit(1);
  }
  writeBuildStamp();
}

if (import.meta.url === `file://${process.argv[1]}`) await buildIfNeeded({ force: process.argv.includes('--force') });
