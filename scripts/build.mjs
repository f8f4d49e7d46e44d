// Builds the app unless the last build is current (or `--force`):
// 1. `next build` (pages, route handlers, the proxy) into .next;
// 2. esbuild bundles the custom server (server/main.ts and the agent path it imports) into
//    .next/toolscope-server.mjs, which `npm start` runs; packages stay external (node_modules).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
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

/** Where the last build's duration is kept, to say how long the next one will take. */
const LAST_BUILD = path.join('node_modules', '.toolscope-last-build.json');
/** How often a line says the build is still going while `next build` prints nothing. */
const QUIET_NOTICE_MS = 20_000;

function lastBuildSeconds() {
  try {
    const seconds = JSON.parse(fs.readFileSync(LAST_BUILD, 'utf8')).seconds;
    return Number.isFinite(seconds) && seconds > 0 ? seconds : null;
  } catch {
    return null;
  }
}

/** `next build`, its output passed through; a line every 20 s of silence says it is still going. */
function nextBuild(started) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['node_modules/next/dist/bin/next', 'build'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    });
    let lastOutput = Date.now();
    child.stdout.on('data', (chunk) => {
      lastOutput = Date.now();
      process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk) => {
      lastOutput = Date.now();
      process.stderr.write(chunk);
    });
    const ticker = setInterval(() => {
      if (Date.now() - lastOutput < QUIET_NOTICE_MS) return;
      lastOutput = Date.now();
      console.log(`[toolscope] still building… ${seconds(started)} s so far`);
    }, 1_000);
    child.on('close', (code, signal) => {
      clearInterval(ticker);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

const seconds = (since) => Math.round((Date.now() - since) / 1000);

export async function buildIfNeeded({ force = false } = {}) {
  if (!force && isBuildCurrent()) return;
  const last = lastBuildSeconds();
  console.log(
    '[toolscope] building the app (next build, then the server bundle): ' +
      (last === null
        ? 'a first build takes 1–3 minutes on a two-core machine (longer while other work runs).'
        : `the last build here took ${last} s.`),
  );
  const started = Date.now();
  const status = await nextBuild(started);
  if (status !== 0) {
    console.error('[toolscope] next build failed');
    process.exit(status);
  }
  try {
    await bundleServer();
  } catch (error) {
    console.error('[toolscope] bundling the server failed:', error);
    process.exit(1);
  }
  writeBuildStamp();
  const took = seconds(started);
  try {
    fs.writeFileSync(LAST_BUILD, JSON.stringify({ seconds: took }));
  } catch {
    // Only a hint for the next build's message.
  }
  console.log(`[toolscope] built in ${took} s`);
}

if (import.meta.url === `file://${process.argv[1]}`) await buildIfNeeded({ force: process.argv.includes('--force') });
