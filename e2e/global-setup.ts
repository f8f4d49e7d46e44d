import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FullConfig } from '@playwright/test';

async function waitForServer(url: string, child: ChildProcess, logFile: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`The app exited with code ${child.exitCode}:\n${fs.readFileSync(logFile, 'utf8').slice(-4000)}`);
    }
    try {
      const response = await fetch(url);
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
 * Starts the built app (`npm start`'s script) on the test port with a fresh data folder, and
 * returns the teardown that stops it by its process group id.
 */
export default async function globalSetup(config: FullConfig) {
  const baseURL = config.projects[0]?.use.baseURL ?? 'http://127.0.0.1:3197';
  const { port } = new URL(baseURL);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-e2e-'));
  process.env.E2E_DATA_DIR = dataDir;
  const logFile = path.join(dataDir, 'server.log');
  const log = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    env: { ...process.env, PORT: port, HOST: '127.0.0.1', TOOLSCOPE_DATA_DIR: dataDir, TOOLSCOPE_CONFIG: '' },
    stdio: ['ignore', log, log],
    detached: true,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('Could not start the app');
  const stop = async () => {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      return;
    }
    for (let i = 0; i < 40 && child.exitCode === null && child.signalCode === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  try {
    await waitForServer(`${baseURL}/api/v1/tools`, child, logFile, 180_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return async () => {
    await stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
}
