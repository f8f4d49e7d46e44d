import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from '@playwright/test';
import { freePort } from '../lib/server/testing/free-port';

/**
 * Default shell programs plus `sh`, so e2e tests can run a program that prints and then waits;
 * approvals expire after 2 min (a test on a loaded machine must not race the expiry; the expiry
 * test has a server of its own, e2e/approvals-expiry.spec.ts) and are decided by local mode's person;
 * upstream MCP servers as in mcpServers (added by writeE2EConfig).
 */
const E2E_CONFIG = {
  policies: { run_shell: 'allow' },
  approvals: { timeoutMs: 120_000 },
  shell: { allow: ['echo', 'ls', 'cat', 'pwd', 'date', 'wc', 'head', 'tail', 'grep', 'sh'] },
};

/** While this file exists, the e2e's `flaky` MCP server refuses to start (e2e/fixtures/flaky-mcp-server.mjs). */
export function flakyDownFlag(dataDir: string): string {
  return path.join(dataDir, 'flaky-mcp-down');
}

/**
 * Two upstream MCP servers over stdio: `everything` (the reference server, a dev dependency) and
 * `flaky`, a fixture whose `note` tool writes stderr and whose `crash` tool takes it down, kept
 * down while its flag file exists (see flakyDownFlag).
 */
function mcpServers(dataDir: string) {
  return {
    servers: {
      everything: {
        command: process.execPath,
        args: [path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
        trustAnnotations: true,
      },
      flaky: {
        command: process.execPath,
        args: [path.resolve('e2e/fixtures/flaky-mcp-server.mjs'), flakyDownFlag(dataDir)],
        trustAnnotations: true,
      },
    },
  };
}

/** Writes the e2e config file into the data folder and returns its path. */
export function writeE2EConfig(dataDir: string): string {
  const file = path.join(dataDir, 'toolscope.config.json');
  fs.writeFileSync(file, JSON.stringify({ ...E2E_CONFIG, mcp: mcpServers(dataDir) }, null, 2));
  return file;
}

export interface AppServer {
  pid: number;
  child: ChildProcess;
  /** SIGTERM to the process group, SIGKILL after `graceMs`; resolves when it is gone. */
  stop(graceMs?: number): Promise<void>;
}

async function waitForServer(
  url: string,
  child: ChildProcess,
  logFile: string,
  timeoutMs: number,
  headers: Record<string, string>,
) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`The app exited with code ${child.exitCode}:\n${fs.readFileSync(logFile, 'utf8').slice(-4000)}`);
    }
    try {
      const response = await fetch(url, { headers });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(
    `The app did not answer ${url} within ${timeoutMs} ms:\n${fs.readFileSync(logFile, 'utf8').slice(-4000)}`,
  );
}

/**
 * Starts the built app (`npm start`'s script) on `port` with the data folder `dataDir` (and the
 * e2e config in it), appending its output to `server.log` there; resolves once it answers.
 * `env` adds to its environment (e.g. `TOOLSCOPE_TOKEN`, which the readiness check then sends).
 */
export async function startAppServer({
  port,
  dataDir,
  timeoutMs = 180_000,
  env = {},
}: {
  port: number | string;
  dataDir: string;
  timeoutMs?: number;
  env?: Record<string, string>;
}): Promise<AppServer> {
  const logFile = path.join(dataDir, 'server.log');
  const log = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      TOOLSCOPE_DATA_DIR: dataDir,
      TOOLSCOPE_CONFIG: writeE2EConfig(dataDir),
      ...env,
    },
    stdio: ['ignore', log, log],
    detached: true,
  });
  fs.closeSync(log);
  const pid = child.pid;
  if (pid === undefined) throw new Error('Could not start the app');
  const stop = async (graceMs = 4_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      return;
    }
    const timer = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), graceMs));
    if ((await Promise.race([gone, timer])) === 'late') {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await gone;
    }
  };
  try {
    const auth: Record<string, string> = env.TOOLSCOPE_TOKEN ? { authorization: `Bearer ${env.TOOLSCOPE_TOKEN}` } : {};
    await waitForServer(`http://127.0.0.1:${port}/api/v1/tools`, child, logFile, timeoutMs, auth);
  } catch (error) {
    await stop();
    throw error;
  }
  return { pid, child, stop };
}

// A port free now (E2E_RESTART_PORT is live-cancel's, which may run beside the spec asking).
export { freePort };

/**
 * A Toolscope of the calling `describe`'s own, on a free port and a fresh data folder: started
 * before its tests, stopped (by pid) and its folder removed after them. Read `base` and `dataDir`
 * inside the tests, once it has started.
 */
export function ownAppServer(prefix: string, options: { timeoutMs: number; env?: Record<string, string> }) {
  const app = { base: '', dataDir: '' };
  let server: AppServer | null = null;
  test.beforeAll(async () => {
    test.setTimeout(options.timeoutMs + 30_000);
    app.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    const port = await freePort();
    app.base = `http://127.0.0.1:${port}`;
    server = await startAppServer({ port, dataDir: app.dataDir, timeoutMs: options.timeoutMs, env: options.env });
  });
  test.afterAll(async () => {
    await server?.stop();
    fs.rmSync(app.dataDir, { recursive: true, force: true });
  });
  return app;
}

/** The address and data folder of a spec's own Toolscope (`testWithOwnServer`). */
export interface OwnApp {
  base: string;
  dataDir: string;
}

/**
 * `test` for a spec whose tests change what every test of a server sees (fault rules, the policy,
 * upstream MCP servers): its tests' `page` and `request` go to a Toolscope of the file's own (see
 * ownAppServer), so they neither race other workers nor leave anything behind for them. The
 * `app` fixture names its address and data folder.
 * @example const test = testWithOwnServer('toolscope-e2e-faults-'); test('…', async ({ page, app }) => {});
 */
export function testWithOwnServer(prefix: string, options: { timeoutMs?: number; env?: Record<string, string> } = {}) {
  const app = ownAppServer(prefix, { timeoutMs: options.timeoutMs ?? 90_000, env: options.env });
  return test.extend<{ app: OwnApp }>({
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
    baseURL: async ({}, use) => {
      await use(app.base);
    },
    // biome-ignore lint/correctness/noEmptyPattern: as above.
    app: async ({}, use) => {
      await use(app);
    },
  });
}
