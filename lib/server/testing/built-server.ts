import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';

const root = path.resolve(__dirname, '../../..');

/**
 * Whether `.next` holds a build of the current sources, for tests that drive the built server.
 * Without one they skip (building takes minutes) — except under `npm test`, which builds first
 * and sets TOOLSCOPE_REQUIRE_BUILD, so there a missing build fails instead of skipping silently.
 */
export async function hasCurrentBuild(testName: string): Promise<boolean> {
  const state = (await import(path.join(root, 'scripts/build-state.mjs'))) as { isBuildCurrent(): boolean };
  const built = fs.existsSync(path.join(root, '.next', 'BUILD_ID')) && state.isBuildCurrent();
  if (!built && process.env.TOOLSCOPE_REQUIRE_BUILD === '1') {
    throw new Error(`[${testName}] .next is missing or older than the sources although npm test built it`);
  }
  if (!built)
    console.warn(`[${testName}] skipped: .next is missing or older than the sources; run node scripts/build.mjs`);
  return built;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers whose shape they assert on
type Json = any;

export interface BuiltServer {
  child: ChildProcess;
  port: number;
  base: string;
  /** Its data folder (removed by `stop`). */
  dir: string;
  /** What it printed so far. */
  log(): string;
  /** Sends a request with `body` as JSON (when given) and reads the JSON answer. */
  send(method: string, path: string, body?: unknown): Promise<{ status: number; json: Json }>;
  /** SIGKILLs its process group if it still runs, by pid, and removes the data folder. */
  stop(): void;
}

/**
 * Starts the built app as `npm start` does (scripts/start.mjs) on a free port with a fresh data
 * folder, in its own process group, and waits until it answers.
 * @param config the toolscope.config.json to write, if any
 * @param env more environment (e.g. `HOST`, `TOOLSCOPE_TOKEN`); with a token, its own requests
 *   (the readiness check, `send`) carry it as a bearer token
 * @param dir an existing data folder to start on instead of a fresh one (a restart)
 */
export async function startBuiltServer(
  prefix: string,
  config?: unknown,
  env: Record<string, string> = {},
  dir: string = fs.mkdtempSync(path.join(os.tmpdir(), prefix)),
): Promise<BuiltServer> {
  let configPath = '';
  if (config !== undefined) {
    configPath = path.join(dir, 'toolscope.config.json');
    fs.writeFileSync(configPath, JSON.stringify(config));
  }
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      TOOLSCOPE_DATA_DIR: dir,
      TOOLSCOPE_CONFIG: configPath,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const auth: Record<string, string> = env.TOOLSCOPE_TOKEN ? { authorization: `Bearer ${env.TOOLSCOPE_TOKEN}` } : {};
  let log = '';
  child.stdout?.on('data', (chunk) => (log += chunk));
  child.stderr?.on('data', (chunk) => (log += chunk));
  const server: BuiltServer = {
    child,
    port,
    base,
    dir,
    log: () => log,
    async send(method, requestPath, body) {
      const response = await fetch(`${base}${requestPath}`, {
        method,
        headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, json: await response.json() };
    },
    stop() {
      if (child.pid && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) {
      server.stop();
      throw new Error(`the server exited:\n${log}`);
    }
    const ok = await fetch(`${base}/api/v1/tools`, { headers: auth }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return server;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  server.stop();
  throw new Error(`the server did not start:\n${log}`);
}

/** The server process under scripts/start.mjs (its only child): the one to SIGKILL for a crash. */
export function serverPid(starter: number): number {
  const children = fs.readFileSync(`/proc/${starter}/task/${starter}/children`, 'utf8').trim().split(/\s+/);
  const pid = Number(children[0]);
  if (!pid) throw new Error(`scripts/start.mjs (${starter}) has no child`);
  return pid;
}

/**
 * Waits until the upstream MCP server `name` is connected (`GET /api/v1/mcp/servers`), for at
 * most `timeoutMs`; then it throws with the states seen.
 */
export async function waitForMcpServer(server: BuiltServer, name: string, timeoutMs = 20_000): Promise<void> {
  const until = performance.now() + timeoutMs;
  let state: unknown;
  while (performance.now() < until) {
    const { json } = await server.send('GET', '/api/v1/mcp/servers');
    state = json.servers?.find((s: Json) => s.name === name)?.state;
    if (state === 'connected') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the MCP server "${name}" did not connect within ${timeoutMs} ms (last state: ${String(state)})`);
}
