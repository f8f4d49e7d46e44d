import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { freePort } from '../lib/server/testing/free-port';

export interface AppServer {
  pid: number;
  origin: string;
  dataDir: string;
  /** SIGTERM to the pid we started, as Ctrl-C would; SIGKILL to its process group after `graceMs`. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: string | null; killed: boolean }>;
}

export { freePort };

/**
 * Starts the app as `npm start` does (`node scripts/start.mjs`, in its own process group) with
 * `PORT` and a data folder of its own, its output to `logFile`, and waits until it answers.
 */
export async function startApp(options: {
  root: string;
  dataDir: string;
  logFile: string;
  /** Extra environment (e.g. OTEL_EXPORTER_OTLP_ENDPOINT). */
  env?: Record<string, string>;
  /** Written as the config file (TOOLSCOPE_CONFIG) in the data folder. */
  config?: unknown;
}): Promise<AppServer> {
  const port = await freePort();
  const log = fs.openSync(options.logFile, 'a');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...options.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    TOOLSCOPE_DATA_DIR: options.dataDir,
  };
  if (options.config !== undefined) {
    fs.mkdirSync(options.dataDir, { recursive: true });
    env.TOOLSCOPE_CONFIG = path.join(options.dataDir, 'toolscope.config.json');
    fs.writeFileSync(env.TOOLSCOPE_CONFIG, JSON.stringify(options.config, null, 2));
  }
  const child: ChildProcess = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: options.root,
    detached: true,
    stdio: ['ignore', log, log],
    env,
  });
  fs.closeSync(log);
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start the app');
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const origin = `http://127.0.0.1:${port}`;
  const app: AppServer = {
    pid,
    origin,
    dataDir: options.dataDir,
    async stop(graceMs = 20_000) {
      if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), graceMs);
      });
      const outcome = await Promise.race([exited, late]);
      clearTimeout(timer);
      if (outcome !== 'late') return { ...outcome, killed: false };
      process.kill(-pid, 'SIGKILL');
      return { ...(await exited), killed: true };
    },
  };
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the app exited (${child.exitCode}); see ${options.logFile}`);
    try {
      const response = await fetch(`${origin}/api/v1/tools`);
      if (response.ok) return app;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await app.stop();
  throw new Error(`the app did not answer within 120 s; see ${options.logFile}`);
}

/** Counts the calls in the app's SQLite file, read-only; run it after the server stopped. */
export function countStoredCalls(dataDir: string): { rows: number; succeeded: number } {
  const db = new Database(path.join(dataDir, 'toolscope.db'), { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare("SELECT count(*) AS rows, count(*) FILTER (WHERE status = 'succeeded') AS succeeded FROM tool_calls")
      .get() as { rows: number; succeeded: number };
    return row;
  } finally {
    db.close();
  }
}
